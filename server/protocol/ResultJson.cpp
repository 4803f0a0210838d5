#include "server/protocol/ResultJson.h"

namespace skein::protocol {

using nlohmann::json;

json toJSON(const report::SourceLocation& l) {
    json j = {{"file", l.file}, {"line", l.line}, {"column", l.column}};
    if (!l.function.empty()) j["function"] = l.function;
    return j;
}

json toJSON(const report::Stats& s) {
    json j = {{"executions", s.executions}, {"blocked", s.blocked},     {"bounded", s.bounded},
              {"ssb", s.ssb},               {"events", s.events},       {"instructions", s.instructions},
              {"elapsed_ms", s.elapsedMs},  {"compile_ms", s.compileMs}, {"peak_rss_kb", s.peakRssKb}};
    if (s.mazurkiewiczTraces) j["mazurkiewicz_traces"] = *s.mazurkiewiczTraces;
    if (s.finalStates) j["final_states"] = *s.finalStates;
    if (s.warmRuns) j["warm_runs"] = s.warmRuns;
    if (s.timedRuns) j["timed_runs"] = s.timedRuns;
    if (const auto& a = s.timedAgainst)
        j["timed_against"] = {{"algorithm", a->algorithm},
                              {"elapsed_ms", a->elapsedMs},
                              {"block_ratio", a->blockRatio},
                              {"runs", a->runs},
                              {"timed_runs", a->timedRuns}};
    if (!s.extra.empty()) j["algorithm_counters"] = s.extra;
    return j;
}

json toJSON(const report::ErrorReport& e) {
    json trace = json::array();
    for (const report::TraceStep& s : e.trace) {
        json step = {{"step", s.step}, {"thread", s.thread}, {"location", toJSON(s.location)}, {"operation", s.operation}};
        if (!s.variable.empty()) step["variable"] = s.variable;
        if (s.value) step["value"] = *s.value;
        if (!s.detail.empty()) step["detail"] = s.detail;
        trace.push_back(std::move(step));
    }
    json nodes = json::array(), edges = json::array();
    for (const report::GraphNode& n : e.graph.nodes)
        nodes.push_back({{"id", n.id},
                         {"thread", n.thread},
                         {"label", n.label},
                         {"location", toJSON(n.id < e.trace.size() ? e.trace[n.id].location : report::SourceLocation{})}});
    for (const report::GraphEdge& g : e.graph.edges)
        edges.push_back({{"from", g.from}, {"to", g.to}, {"kind", report::edgeKindName(g.kind)}});
    json schedule = json::array();
    for (const report::Decision& d : e.schedule) schedule.push_back({d.thread, d.choice});
    json j = {{"kind", report::errorKindName(e.kind)},
              {"message", e.message},
              {"location", toJSON(e.location)},
              {"thread", e.thread},
              {"occurrences", e.occurrences},
              {"trace", std::move(trace)},
              {"graph", {{"nodes", std::move(nodes)}, {"edges", std::move(edges)}}},
              {"schedule", std::move(schedule)}};
    if (e.otherLocation) j["other_location"] = toJSON(*e.otherLocation);
    if (e.otherThread) j["other_thread"] = *e.otherThread;
    return j;
}

json toJSON(const report::CheckResult& r) {
    json errors = json::array();
    for (const report::ErrorReport& e : r.errors) errors.push_back(toJSON(e));
    json bounds = json::array();
    for (const report::BoundHit& b : r.bounds) bounds.push_back(b.what);
    json output = json::array();
    for (const report::Output& o : r.output) output.push_back({{"thread", o.thread}, {"text", o.text}});
    return {{"verdict", report::verdictName(r.verdict)},
            {"algorithm", r.algorithm},
            {"file", r.file},
            {"stats", toJSON(r.stats)},
            {"errors", std::move(errors)},
            {"bounds", std::move(bounds)},
            {"stopped_early", r.stoppedEarly},
            {"notes", r.notes},
            {"output", std::move(output)}};
}

json toJSON(const report::Diagnostic& d) {
    return {{"location", toJSON(d.location)}, {"severity", report::severityName(d.severity)}, {"message", d.message}};
}

} // namespace skein::protocol
