#include "server/lsp/ProgramFacts.h"

#include "server/lsp/Tokens.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <tuple>

namespace skein::lsp {

LocationMap::LocationMap(const program::Program& from, const program::Program& to) {
    auto add = [&](uint32_t a, uint32_t b) {
        if (a >= from.locations.size() || b >= to.locations.size()) return;
        const program::Location& la = from.locations[a];
        const program::Location& lb = to.locations[b];
        if (la.line == 0 || la.file >= from.files.size() || lb.file >= to.files.size()) return;
        map_.try_emplace(Key{from.files[la.file], la.line, la.column},
                         Key{to.files[lb.file], lb.line, lb.column});
    };
    size_t nf = std::min(from.functions.size(), to.functions.size());
    for (size_t f = 0; f < nf; ++f) {
        const program::Function& a = from.functions[f];
        const program::Function& b = to.functions[f];
        add(a.loc, b.loc);
        size_t n = std::min(a.locs.size(), b.locs.size());
        for (size_t i = 0; i < n; ++i) add(a.locs[i], b.locs[i]);
    }
}

LocationMap LocationMap::fromTokens(const report::CheckResult& r, const std::string& file,
                                    const TokenMap& t) {
    LocationMap m;
    auto add = [&](const report::SourceLocation& l) {
        if (l.file != file || l.line == 0) return;
        auto [line, column] = t.map(l.line, l.column);
        m.map_.try_emplace(Key{l.file, l.line, l.column}, Key{l.file, line, l.column ? column : 0});
    };
    for (const report::ErrorReport& e : r.errors) {
        add(e.location);
        if (e.otherLocation) add(*e.otherLocation);
        for (const report::TraceStep& s : e.trace) add(s.location);
    }
    return m;
}

void LocationMap::apply(report::SourceLocation& l) const {
    auto it = map_.find(Key{l.file, l.line, l.column});
    if (it == map_.end()) return;
    l.file = it->second.file;
    l.line = it->second.line;
    l.column = it->second.column;
}

void LocationMap::apply(report::ErrorReport& e) const {
    apply(e.location);
    if (e.otherLocation) apply(*e.otherLocation);
    for (report::TraceStep& s : e.trace) apply(s.location);
}

void LocationMap::apply(report::CheckResult& r) const {
    for (report::ErrorReport& e : r.errors) {
        // The message of a race quotes both lines: rebuild those numbers from the mapped locations.
        report::SourceLocation before = e.location;
        std::optional<report::SourceLocation> otherBefore = e.otherLocation;
        apply(e);
        auto replaceLine = [&](uint32_t oldLine, uint32_t newLine) {
            if (oldLine == newLine) return;
            std::string from = "line " + std::to_string(oldLine),
                        to = "line " + std::to_string(newLine) + "\x01";
            for (size_t pos = 0; (pos = e.message.find(from, pos)) != std::string::npos;) {
                size_t end = pos + from.size();
                if (end < e.message.size() && std::isdigit(static_cast<unsigned char>(e.message[end]))) {
                    pos = end;
                    continue;
                }
                e.message.replace(pos, from.size(), to);
                pos += to.size();
            }
        };
        replaceLine(before.line, e.location.line);
        if (otherBefore && e.otherLocation) replaceLine(otherBefore->line, e.otherLocation->line);
        std::erase(e.message, '\x01'); // marks replaced text so a second replacement cannot rewrite it
    }
}

uint32_t mainLine(const program::Program& p) {
    if (p.mainFunction >= p.functions.size()) return 0;
    uint32_t loc = p.functions[p.mainFunction].loc;
    if (loc < p.locations.size() && p.locations[loc].line) return p.locations[loc].line;
    for (uint32_t l : p.functions[p.mainFunction].locs)
        if (l < p.locations.size() && p.locations[l].line) return p.locations[l].line;
    return 0;
}

VariableFacts sharedVariables(const program::Program& p, const exec::ExecOptions& opts) {
    VariableFacts out;
    if (p.mainFunction >= p.functions.size()) return out;
    exec::ExecOptions bounded = opts;
    bounded.maxStepsPerThread = std::min<uint64_t>(bounded.maxStepsPerThread, 200'000);
    bounded.maxEventsPerThread = std::min<uint32_t>(bounded.maxEventsPerThread, 2'000);
    exec::Executor ex(p, bounded);
    while (ex.status() == exec::ExecStatus::Running) {
        model::ThreadId next = model::kNoThread;
        for (model::ThreadId t = 0; t < ex.numThreads() && next == model::kNoThread; ++t)
            if (ex.enabled(t)) next = t;
        if (next == model::kNoThread) break;
        ex.step(next, 0);
    }
    for (const model::Event& e : ex.trace()) {
        if (!e.reads() && !e.writes()) continue;
        std::string name = ex.describeAddress(e.addr);
        name = name.substr(0, name.find('['));
        if (name.empty()) continue;
        uint32_t line = e.loc < p.locations.size() ? p.locations[e.loc].line : 0;
        out[name].insert({e.tid, e.writes(), line});
    }
    return out;
}

void addTraceAccesses(VariableFacts& facts, const report::CheckResult& r) {
    for (const report::ErrorReport& e : r.errors)
        for (const report::TraceStep& s : e.trace) {
            bool read = s.operation == "read" || s.operation == "rmw";
            bool write = s.operation == "write" || s.operation == "rmw" || s.operation == "free";
            if ((!read && !write) || s.variable.empty()) continue;
            std::string name = s.variable.substr(0, s.variable.find('['));
            if (read) facts[name].insert({s.thread, false, s.location.line});
            if (write) facts[name].insert({s.thread, true, s.location.line});
        }
}

} // namespace skein::lsp
