#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include "server/cli/Outputs.h"

namespace skein::cli {

namespace {
std::string shortLocation(const report::SourceLocation& l) {
    std::string f = l.file;
    if (auto slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
    if (f.empty()) return "?";
    return f + ":" + std::to_string(l.line);
}

std::string formatMs(double ms) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(ms < 10 ? 2 : 1) << ms << " ms";
    return os.str();
}
} // namespace

void printText(std::ostream& os, const report::CheckResult& r) {
    std::string verdict = r.verdict == report::Verdict::Error ? "ERROR" : r.verdict == report::Verdict::Safe ? "SAFE" : "BOUNDED";
    os << "skein: " << r.file << " (" << r.algorithm << ")\n";
    os << "verdict: " << verdict;
    if (r.verdict == report::Verdict::Error) os << " — " << r.errors.size() << (r.errors.size() == 1 ? " error" : " distinct errors");
    if (r.verdict == report::Verdict::Safe) os << " — no error in any execution";
    os << "\n";
    for (const std::string& n : r.notes) os << "note: " << n << "\n";
    if (!r.bounds.empty()) {
        os << (r.verdict == report::Verdict::Bounded ? "inconclusive: " : "also bounded: ");
        for (size_t i = 0; i < r.bounds.size(); ++i) os << (i ? "; " : "") << r.bounds[i].what;
        os << "\n";
    }
    for (size_t i = 0; i < r.errors.size(); ++i) {
        const report::ErrorReport& e = r.errors[i];
        os << "\nerror " << (i + 1) << " [" << report::errorKindName(e.kind) << "]: " << e.message << "\n";
        os << "  at " << report::formatLocation(e.location);
        if (!e.location.function.empty()) os << " in " << e.location.function << "()";
        os << ", thread " << e.thread << "\n";
        if (e.otherLocation) os << "  other access at " << report::formatLocation(*e.otherLocation) << ", thread " << *e.otherThread << "\n";
        os << "  seen in " << e.occurrences << (e.occurrences == 1 ? " execution" : " executions") << "; trace:\n";
        // Columns as wide as their longest entry (a long file name or variable must not run into the next).
        size_t locWidth = 22, opWidth = 13, varWidth = 16;
        for (const report::TraceStep& s : e.trace) {
            locWidth = std::max(locWidth, shortLocation(s.location).size() + 2);
            opWidth = std::max(opWidth, s.operation.size() + 1); // barrier_arrive ran into its variable
            varWidth = std::max(varWidth, s.variable.size() + 2);
        }
        os << "    " << std::left << std::setw(5) << "step" << std::setw(7) << "thread" << std::setw(int(locWidth))
           << "location" << std::setw(int(opWidth)) << "operation" << std::setw(int(varWidth)) << "variable"
           << "value\n";
        for (const report::TraceStep& s : e.trace) {
            std::string value = s.value ? std::to_string(int64_t(*s.value)) : "";
            if (!s.detail.empty()) value += (value.empty() ? "" : "  ") + std::string("(") + s.detail + ")";
            os << "    " << std::left << std::setw(5) << s.step << std::setw(7) << s.thread << std::setw(int(locWidth))
               << shortLocation(s.location) << std::setw(int(opWidth)) << s.operation << std::setw(int(varWidth))
               << (s.variable.empty() ? "-" : s.variable) << value << "\n";
        }
    }
    if (!r.output.empty()) {
        os << "\nprogram output (first complete execution):\n";
        for (const report::Output& o : r.output) os << o.text;
        if (!r.output.back().text.empty() && r.output.back().text.back() != '\n') os << "\n";
    }
    const report::Stats& s = r.stats;
    os << "\nstatistics: " << s.executions << " executions, " << s.blocked << " blocked, " << s.bounded << " bounded";
    if (s.ssb) os << ", " << s.ssb << " sleep-set blocked";
    if (s.mazurkiewiczTraces) os << ", " << *s.mazurkiewiczTraces << " Mazurkiewicz traces";
    if (s.finalStates) os << ", " << *s.finalStates << " final states";
    os << "\n            " << s.events << " events, " << s.instructions << " instructions, explored in "
       << formatMs(s.elapsedMs) << ", compiled in " << formatMs(s.compileMs) << ", peak RSS " << s.peakRssKb / 1024
       << " MB\n";
    // The unfolding explorer's own figures (issue 3: time per event and per execution, and where it goes).
    auto counter = [&](const char* k) { return s.extra.count(k) ? s.extra.at(k) : 0.0; };
    if (r.algorithm == "qpor" && s.extra.count("u_peak")) {
        uint64_t runs = s.executions + s.blocked + s.bounded + s.ssb;
        double phases[] = {counter("ms_execute"), counter("ms_extensions"), counter("ms_comb"), counter("ms_cex"),
                           counter("ms_other")};
        double total = s.elapsedMs > 0 ? s.elapsedMs : 1;
        auto pct = [&](double ms) { return int(100.0 * ms / total + 0.5); };
    auto micros = [](double us) {
        char buf[32];
        std::snprintf(buf, sizeof buf, us < 10 ? "%.2f µs" : "%.0f µs", us);
        return std::string(buf);
    };
        os << "qpor:       U " << uint64_t(counter("u_peak")) << " events at most, " << uint64_t(counter("alternatives"))
           << " alternatives computed (" << uint64_t(counter("alternatives_none")) << " found none); "
           << micros(s.events ? s.elapsedMs * 1000.0 / double(s.events) : 0) << " per event, "
           << micros(runs ? s.elapsedMs * 1000.0 / double(runs) : 0) << " per execution\n"
           << "            time: running the program " << pct(phases[0]) << " %, en(C) " << pct(phases[1])
           << " %, alternatives (comb) " << pct(phases[2]) << " %, conflicting extensions " << pct(phases[3])
           << " %, errors, races and the rest " << pct(phases[4]) << " %";
        // The attempts that were started over (a section or a segment learned more after events were made with it).
        if (counter("ms_restarted") > 0) os << ", attempts started over " << pct(counter("ms_restarted")) << " %";
        os << "\n";
    }
    // The vhb explorer's figures (issue 4): classes, closure calls and their cost, non-maximal nodes.
    if (r.algorithm == "vhb" && s.extra.count("classes")) {
        uint64_t classes = uint64_t(counter("classes"));
        double total = s.elapsedMs > 0 ? s.elapsedMs : 1;
        auto pct = [&](double ms) { return int(100.0 * ms / total + 0.5); };
        os << "vhb:        " << classes << " classes (maximal traces), " << uint64_t(counter("non_maximal"))
           << " non-maximal traces, " << uint64_t(counter("closure_calls")) << " closure calls ("
           << formatMs(counter("closure_ms")) << ", " << uint64_t(counter("infeasible_extensions"))
           << " infeasible extensions), " << formatMs(classes ? s.elapsedMs / double(classes) : 0) << " per class\n"
           << "            time: closure " << pct(counter("closure_ms")) << " %, realize " << pct(counter("realize_ms"))
           << " %, final-state monitor " << pct(counter("monitor_ms")) << " %\n";
        if (s.extra.count("paper")) // --vhb-equivalence=paper: the paper's VHB classes and its CHB maps
            os << "            paper equivalence: " << uint64_t(counter("extend_results"))
               << " extensions to write-extended traces (Alg. 5 line 3), " << uint64_t(counter("chb_pruned"))
               << " extensions pruned by CHB maps\n";
    }
}

void printDiagnostics(std::ostream& os, const std::vector<report::Diagnostic>& diags) {
    for (const report::Diagnostic& d : diags)
        os << report::formatLocation(d.location) << ": " << report::severityName(d.severity) << ": " << d.message << "\n";
}

} // namespace skein::cli
