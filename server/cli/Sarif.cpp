// SARIF 2.1.0: one result per distinct error, each with a codeFlow holding one threadFlow per thread, so that
// code-scanning tools can show the interleaving.
#include <map>
#include <ostream>

#include <nlohmann/json.hpp>

#include "server/cli/Outputs.h"

namespace skein::cli {

using nlohmann::json;

namespace {
json physical(const report::SourceLocation& l) {
    json region = {{"startLine", std::max<uint32_t>(l.line, 1)}};
    if (l.column) region["startColumn"] = l.column;
    return {{"physicalLocation", {{"artifactLocation", {{"uri", l.file}}}, {"region", region}}}};
}
} // namespace

void writeSarif(std::ostream& os, const report::CheckResult& r) {
    json rules = json::array();
    std::map<std::string, int> ruleIndex;
    for (auto kind : {report::ErrorKind::Assertion, report::ErrorKind::DataRace, report::ErrorKind::Deadlock,
                      report::ErrorKind::Memory, report::ErrorKind::Arithmetic, report::ErrorKind::PthreadMisuse,
                      report::ErrorKind::StackOverflow, report::ErrorKind::Unsupported}) {
        std::string id(report::errorKindName(kind));
        ruleIndex[id] = int(rules.size());
        rules.push_back({{"id", id}, {"shortDescription", {{"text", "Skein: " + id}}}});
    }
    json results = json::array();
    for (const report::ErrorReport& e : r.errors) {
        std::map<uint32_t, json> flows;
        for (const report::TraceStep& s : e.trace) {
            json loc = physical(s.location);
            std::string text = s.operation + (s.variable.empty() ? "" : " " + s.variable) +
                               (s.value ? " = " + std::to_string(int64_t(*s.value)) : "") +
                               (s.detail.empty() ? "" : " (" + s.detail + ")");
            loc["message"] = {{"text", text}};
            flows[s.thread].push_back({{"location", loc}, {"executionOrder", s.step}});
        }
        json threadFlows = json::array();
        for (auto& [t, locs] : flows)
            threadFlows.push_back({{"id", "thread " + std::to_string(t)}, {"message", {{"text", "thread " + std::to_string(t)}}}, {"locations", locs}});
        std::string id(report::errorKindName(e.kind));
        json res = {{"ruleId", id},
                    {"ruleIndex", ruleIndex[id]},
                    {"level", "error"},
                    {"message", {{"text", e.message}}},
                    {"locations", json::array({physical(e.location)})},
                    {"codeFlows", json::array({{{"message", {{"text", "a failing interleaving"}}}, {"threadFlows", threadFlows}}})}};
        if (e.otherLocation) {
            json rel = physical(*e.otherLocation);
            rel["id"] = 1;
            rel["message"] = {{"text", "the other access"}};
            res["relatedLocations"] = json::array({rel});
        }
        results.push_back(std::move(res));
    }
    json sarif = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                  {"version", "2.1.0"},
                  {"runs", json::array({{{"tool", {{"driver", {{"name", "skein"}, {"version", "0.1.0"}, {"rules", rules}}}}},
                                         {"results", results}}})}};
    os << sarif.dump(2) << "\n";
}

} // namespace skein::cli
