// Engine's editor features that read the shown result: code lenses on `main` and hover on shared variables.
#include <set>

#include "server/lsp/Diagnostics.h"
#include "server/lsp/Engine.h"
#include "server/lsp/Text.h"

namespace skein::lsp {
namespace {

std::string shortName(const report::ErrorReport& e) {
    std::string var;
    for (const report::TraceStep& s : e.trace)
        if (s.detail == "racing access" && !s.variable.empty()) var = s.variable;
    switch (e.kind) {
    case report::ErrorKind::Assertion:
        return "assertion fails";
    case report::ErrorKind::DataRace:
        return var.empty() ? "data race" : "data race on `" + var + "`";
    case report::ErrorKind::Deadlock:
        return "deadlock";
    default:
        return e.message;
    }
}

bool isIdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace

std::expected<std::vector<CodeLens>, ResponseError> Engine::codeLenses(const std::string& uri) const {
    std::lock_guard lock(mutex_);
    auto found = find(uri);
    if (!found) return std::unexpected(found.error());
    const Document& d = **found;
    std::vector<CodeLens> out;
    uint32_t line1 = 1;
    if (d.shown && d.shown->program) line1 = std::max<uint32_t>(1, d.shown->mainLine);
    LineIndex lines(d.text);
    Range at = lines.statementRange(line1, 0);
    auto lens = [&](std::string title, std::string command = "", json args = json::array()) {
        out.push_back({at, std::move(title), std::move(command), std::move(args)});
    };
    switch (d.status.state) {
    case DocumentState::Queued:
    case DocumentState::Compiling:
    case DocumentState::Replaying:
    case DocumentState::Exploring:
        lens("Skein: " + std::string(documentStateName(d.status.state)) +
             (d.status.stats ? " (" + std::to_string(d.status.stats->executions) + " executions so far)"
                             : "") +
             "…");
        return out;
    default:
        break;
    }
    if (!d.shown) return out;
    if (!d.shown->program) {
        lens("Skein: does not compile");
        return out;
    }
    if (!d.shown->result) return out;
    const report::CheckResult& r = *d.shown->result;
    Settings s = settingsFor(d);
    std::vector<std::pair<std::string, const report::ErrorReport*>> errs;
    for (const auto& [id, e] : d.counterexamples)
        if (kindReported(s, e.kind)) errs.push_back({id, &e});
    std::string execs = std::to_string(r.stats.executions) + " executions";
    bool bounded = r.verdict == report::Verdict::Bounded || d.status.state == DocumentState::Cancelled;
    if (errs.empty()) {
        lens("Skein: " + execs + (bounded ? ", no errors found (bounded)" : ", no errors"));
        return out;
    }
    if (errs.size() == 1) {
        lens("Skein: " + shortName(*errs[0].second) + " — show trace", Command::ShowTrace,
             json::array({uri, errs[0].first}));
        return out;
    }
    lens("Skein: " + execs + ", " + std::to_string(errs.size()) + " errors");
    for (size_t i = 0; i < errs.size() && i < 5; ++i)
        lens("Skein: " + shortName(*errs[i].second) + " — show trace", Command::ShowTrace,
             json::array({uri, errs[i].first}));
    return out;
}

std::expected<std::optional<Hover>, ResponseError> Engine::hover(const std::string& uri, Position pos) const {
    std::lock_guard lock(mutex_);
    auto found = find(uri);
    if (!found) return std::unexpected(found.error());
    const Document& d = **found;
    if (!d.shown || !d.shown->program) return std::optional<Hover>{};
    LineIndex lines(d.text);
    std::string_view line = lines.lineText(pos.line);
    auto [l1, c1] = lines.skeinPosition(pos);
    size_t at = c1 - 1;
    if (at > line.size()) return std::optional<Hover>{};
    size_t b = at, e = at;
    while (b > 0 && isIdentChar(line[b - 1])) --b;
    while (e < line.size() && isIdentChar(line[e])) ++e;
    if (b == e) return std::optional<Hover>{};
    std::string name(line.substr(b, e - b));
    auto v = d.shown->variables.find(name);
    if (v == d.shown->variables.end()) return std::optional<Hover>{};

    std::map<uint32_t, std::pair<std::set<uint32_t>, std::set<uint32_t>>> byThread; // reads, writes lines
    for (const VariableAccess& a : v->second)
        (a.write ? byThread[a.thread].second : byThread[a.thread].first).insert(a.line);
    auto linesText = [](const std::set<uint32_t>& s) {
        std::string out;
        for (uint32_t l : s) out += (out.empty() ? "" : ", ") + std::to_string(l);
        return out;
    };
    std::string md = "**`" + name + "`** — shared variable (Skein)\n\n";
    for (auto& [t, rw] : byThread) {
        md += "- thread " + std::to_string(t) + (t == 0 ? " (main)" : "") + ":";
        if (!rw.first.empty()) md += " reads at line " + linesText(rw.first);
        if (!rw.first.empty() && !rw.second.empty()) md += ";";
        if (!rw.second.empty()) md += " writes at line " + linesText(rw.second);
        md += "\n";
    }
    md += "\n(seen in one execution and in the counterexamples: other interleavings may touch it "
          "elsewhere)\n\n";
    std::vector<std::string> races;
    if (d.shown->result)
        for (const report::ErrorReport& err : d.shown->result->errors) {
            if (err.kind != report::ErrorKind::DataRace) continue;
            for (const report::TraceStep& s : err.trace)
                if (s.detail == "racing access" && s.variable.substr(0, s.variable.find('[')) == name) {
                    races.push_back(explainError(err));
                    break;
                }
        }
    if (races.empty() && !settingsFor(d).detectRaces)
        md += "Race detection is off (setting `detectRaces`).";
    else if (races.empty())
        md += d.shown->result && d.shown->result->bounds.empty() && d.shown->complete
                  ? "No data race on it in any explored execution."
                  : "No data race on it found (the exploration was not exhaustive).";
    else
        for (const std::string& r : races) md += "**Race:** " + r + "\n\n";
    Hover h;
    h.markdown = std::move(md);
    h.range = Range{{pos.line, lines.position(l1, uint32_t(b + 1)).character},
                    {pos.line, lines.position(l1, uint32_t(e + 1)).character}};
    return std::optional<Hover>{std::move(h)};
}

} // namespace skein::lsp
