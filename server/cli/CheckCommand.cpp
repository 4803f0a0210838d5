// `skein check`: options → CheckRequest → result in text / JSON / SARIF / DOT, and the exit code.
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "core/Check.h"
#include "core/explore/unfolding/Qpor.h"
#include "server/cli/Commands.h"
#include "server/cli/Outputs.h"
#include "server/protocol/ResultJson.h"

namespace skein::cli {
namespace {

const char* kHelp = R"(usage: skein check [options] FILE.c [-- clang flags]

exploration:
  --algo=NAME            explorer: qpor (default; falls back to dfs, with a note, on the few programs it
                         cannot handle), dfs (every interleaving, no reduction: the oracle) or vhb
                         (value-centric DPOR: one run per class of executions whose threads observe the
                         same values; no condition variables, free or memcpy yet)
  --vhb-final-states=on|off  vhb: enumerate each class's distinct final memories (default on)
  --vhb-equivalence=values|paper  vhb: explore classes of equal events and values (default), or the
                             paper's VHB equivalence with its two-sided Closure and CHB maps
  --vhb-root=N               vhb paper: the root thread (canonical id; main is 0; default 1, main's first child)
  --alt=MODE             qpor's alternatives: sdpor, k1, k2, ..., optimal (default)
  --skip-step=N          qpor's tree skip-list step (default 4)
  --qpor-resources=M     qpor's memory resources: segments (runs of words of objects over 16 words; default)
                         or words (one per 4-byte word)
  --unroll=N             bound each loop to N iterations per entry (0 = unbounded, the default;
                         side-effect-free spin loops never need it)
  --max-steps=N          interpreted instructions per thread per execution (default 5000000)
  --max-events=N         visible events per thread per execution (default 10000)
  --max-threads=N        threads per execution (default 64)
  --max-executions=N     stop after N executions (the verdict is then bounded)
  --time-limit=SECONDS   stop after this long (the verdict is then bounded)
  --warm-runs=N          benchmarks: explore N times first and report the next run, timed in a warm
                         process (stats.warm_runs); each run has the whole time limit
  --timed-runs=N         benchmarks: then time N explorations (up to 100000) and report the median elapsed_ms
                         (stats.timed_runs) with the last one's result
  --timed-against=ALGO   benchmarks, with --timed-runs=N (N > 1): time N explorations of ALGO too, taking
                         turns in blocks in this process, and report their median (stats.timed_against)
  --nondet=LIST          values of __VERIFIER_nondet_* (default 0,1); e.g. 0,1,2 or -2..3
  --stop-on-first        stop at the first error
  --max-errors=N         distinct errors to report (default 32)
  --no-race-detection    do not report data races

output:
  --json                 the whole result as JSON on stdout (docs/json-output.md)
  --sarif FILE           SARIF 2.1.0 report
  --dot FILE             the first counterexample's partial order, for Graphviz

compiler:
  -DNAME[=V] -UNAME -IDIR -std=...   passed to Clang; so is everything after `--`

exit codes: 0 no error (exhaustive), 1 error found, 2 inconclusive (a bound or budget was hit),
            3 bad input (compile error, unsupported construct, bad options)
)";

template <class T> bool parseNumber(const std::string& s, T& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

bool parseDomain(const std::string& s, std::vector<int64_t>& out) {
    out.clear();
    if (auto dots = s.find(".."); dots != std::string::npos) {
        int64_t lo, hi;
        if (!parseNumber(s.substr(0, dots), lo) || !parseNumber(s.substr(dots + 2), hi) || hi < lo || hi - lo > 1000)
            return false;
        for (int64_t v = lo; v <= hi; ++v) out.push_back(v);
        return true;
    }
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        int64_t v;
        if (!parseNumber(part, v)) return false;
        out.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return !out.empty();
}

// Shows a progress line on a terminal once a check runs past a second.
class ProgressLine : public explore::Observer {
public:
    ProgressLine() : tty_(isatty(2)) {}
    ~ProgressLine() override {
        if (shown_) std::cerr << "\r\033[K" << std::flush;
    }
    void onProgress(const report::Stats& s) override {
        if (!tty_ || s.elapsedMs < 1000) return;
        shown_ = true;
        std::cerr << "\r\033[K[skein] " << s.executions << " executions, " << s.blocked << " blocked, " << s.events
                  << " events, " << uint64_t(s.elapsedMs / 1000) << " s" << std::flush;
    }

private:
    bool tty_;
    bool shown_ = false;
};

std::string explorerNames() { // " dfs qpor vhb"
    std::string names;
    for (const auto& e : explore::explorers()) names += " " + e.name;
    return names;
}

} // namespace

std::optional<std::string> parseCheckArgs(const std::vector<std::string>& args, CheckArgs& out) {
    CheckRequest& req = out.request;
    auto value = [](const std::string& a) { return a.substr(a.find('=') + 1); };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto numberOpt = [&](auto& field) -> bool { return parseNumber(value(a), field); };
        if (a == "--") {
            req.clangFlags.insert(req.clangFlags.end(), args.begin() + long(i) + 1, args.end());
            break;
        } else if (a == "--help" || a == "-h") {
            return "help";
        } else if (a.rfind("--algo=", 0) == 0) {
            req.algorithm = value(a);
            req.fallbackToDfs = false; // chosen explicitly: report its limits rather than switch
            if (!explore::findExplorer(req.algorithm))
                return "unknown algorithm `" + req.algorithm + "` (available:" + explorerNames() + ")";
        } else if (a.rfind("--alt=", 0) == 0) {
            req.options.alt = value(a);
            if (!explore::unfolding::parseAltMode(req.options.alt))
                return "bad value in " + a + " (expected sdpor, k1, k2, ..., or optimal)";
        } else if (a.rfind("--vhb-final-states=", 0) == 0) {
            std::string v = value(a);
            if (v != "on" && v != "off") return "bad value in " + a + " (expected on or off)";
            req.options.vhbFinalStates = v == "on";
        } else if (a.rfind("--vhb-equivalence=", 0) == 0) {
            std::string v = value(a);
            if (v != "values" && v != "paper") return "bad value in " + a + " (expected values or paper)";
            req.options.vhbPaper = v == "paper";
        } else if (a.rfind("--vhb-root=", 0) == 0) {
            uint32_t root = 0;
            if (!numberOpt(root)) return "bad value in " + a;
            req.options.vhbRoot = root;
        } else if (a.rfind("--qpor-resources=", 0) == 0) {
            std::string v = value(a);
            if (v != "segments" && v != "words") return "bad value in " + a + " (expected segments or words)";
            req.options.qporSegments = v == "segments";
        } else if (a.rfind("--skip-step=", 0) == 0) {
            if (!numberOpt(req.options.skipStep) || req.options.skipStep < 2) return "bad value in " + a;
        } else if (a.rfind("--unroll=", 0) == 0) {
            if (!numberOpt(req.options.exec.unroll)) return "bad value in " + a;
        } else if (a.rfind("--max-steps=", 0) == 0) {
            if (!numberOpt(req.options.exec.maxStepsPerThread)) return "bad value in " + a;
        } else if (a.rfind("--max-events=", 0) == 0) {
            if (!numberOpt(req.options.exec.maxEventsPerThread)) return "bad value in " + a;
        } else if (a.rfind("--max-threads=", 0) == 0) {
            if (!numberOpt(req.options.exec.maxThreads) || req.options.exec.maxThreads > 4000) return "bad value in " + a;
        } else if (a.rfind("--max-executions=", 0) == 0) {
            if (!numberOpt(req.options.maxExecutions)) return "bad value in " + a;
        } else if (a.rfind("--warm-runs=", 0) == 0) {
            if (!numberOpt(req.warmRuns) || req.warmRuns > 100000) return "bad value in " + a + " (0 to 100000)";
        } else if (a.rfind("--timed-runs=", 0) == 0) {
            if (!numberOpt(req.timedRuns) || req.timedRuns < 1 || req.timedRuns > 100000)
                return "bad value in " + a + " (1 to 100000)";
        } else if (a.rfind("--timed-against=", 0) == 0) {
            req.timedAgainst = value(a);
            if (!explore::findExplorer(req.timedAgainst))
                return "unknown algorithm `" + req.timedAgainst + "` in " + a + " (available:" + explorerNames() + ")";
        } else if (a.rfind("--max-errors=", 0) == 0) {
            if (!numberOpt(req.options.maxErrors) || req.options.maxErrors == 0) return "bad value in " + a;
        } else if (a.rfind("--time-limit=", 0) == 0) {
            char* end = nullptr;
            std::string v = value(a);
            req.options.timeLimitSeconds = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || req.options.timeLimitSeconds < 0) return "bad value in " + a;
        } else if (a.rfind("--nondet=", 0) == 0) {
            if (!parseDomain(value(a), req.options.exec.nondetDomain)) return "bad value in " + a + " (expected e.g. 0,1,2 or -2..3)";
        } else if (a == "--stop-on-first") {
            req.options.stopOnFirstError = true;
        } else if (a == "--no-race-detection") {
            req.options.detectRaces = false;
        } else if (a == "--json") {
            out.json = true;
        } else if (a == "--sarif" || a == "--dot") {
            if (i + 1 >= args.size()) return a + " needs a file name";
            (a == "--sarif" ? out.sarifPath : out.dotPath) = args[++i];
        } else if (a.rfind("--sarif=", 0) == 0) {
            out.sarifPath = value(a);
        } else if (a.rfind("--dot=", 0) == 0) {
            out.dotPath = value(a);
        } else if (a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0 || a.rfind("-I", 0) == 0 || a.rfind("-std=", 0) == 0) {
            req.clangFlags.push_back(a);
            if (a.size() == 2 && i + 1 < args.size()) req.clangFlags.push_back(args[++i]);
        } else if (!a.empty() && a[0] == '-') {
            return "unknown option `" + a + "` (see skein check --help)";
        } else if (req.path.empty()) {
            req.path = a;
        } else {
            return "more than one input file (`" + req.path + "`, `" + a + "`)";
        }
    }
    if (!req.timedAgainst.empty() && req.timedRuns < 2) return "--timed-against needs --timed-runs=N with N > 1";
    return std::nullopt;
}

int runCheck(const std::vector<std::string>& args) {
    CheckArgs parsed;
    if (auto err = parseCheckArgs(args, parsed)) {
        if (*err == "help") {
            std::cout << kHelp;
            return 0;
        }
        std::cerr << "skein check: " << *err << "\n";
        return kBadInput;
    }
    if (parsed.request.path.empty()) {
        std::cerr << kHelp;
        return kBadInput;
    }
    CheckRequest& req = parsed.request;
    bool json = parsed.json;
    const std::string& sarifPath = parsed.sarifPath;
    const std::string& dotPath = parsed.dotPath;

    ProgressLine progress;
    req.options.freeAtEnd = false; // the process exits after printing: no need to free the explorer's structures
    auto result = check(req, &progress);
    if (!result) {
        if (json) {
            nlohmann::json diags = nlohmann::json::array();
            for (auto& d : result.error().diagnostics) diags.push_back(protocol::toJSON(d));
            std::cout << nlohmann::json{{"verdict", "bad_input"}, {"file", req.path}, {"diagnostics", diags}}.dump(2) << "\n";
        }
        printDiagnostics(std::cerr, result.error().diagnostics);
        return kBadInput;
    }
    const report::CheckResult& r = *result;
    if (json) std::cout << protocol::toJSON(r).dump(2) << "\n";
    else printText(std::cout, r);
    if (!sarifPath.empty()) {
        std::ofstream out(sarifPath);
        if (!out) {
            std::cerr << "skein check: cannot write " << sarifPath << "\n";
            return kBadInput;
        }
        writeSarif(out, r);
    }
    if (!dotPath.empty()) {
        std::ofstream out(dotPath);
        if (!out) {
            std::cerr << "skein check: cannot write " << dotPath << "\n";
            return kBadInput;
        }
        writeDot(out, r);
    }
    for (const report::ErrorReport& e : r.errors)
        if (e.kind == report::ErrorKind::Unsupported) {
            std::cerr << report::formatLocation(e.location) << ": " << e.message << "\n";
            return kBadInput;
        }
    switch (r.verdict) {
    case report::Verdict::Error: return kErrorFound;
    case report::Verdict::Bounded: return kInconclusive;
    case report::Verdict::Safe: return kSafe;
    }
    return kSafe;
}

} // namespace skein::cli
