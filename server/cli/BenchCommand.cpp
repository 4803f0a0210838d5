// `skein bench ROWS`: runs each row (program, clang flags, explorer options) as a child `skein check --json`,
// measures wall time and the child's own peak RSS (wait4), takes the median of --runs runs, and prints a table
// and, with --csv FILE, a CSV. Row file format: see bench/README.md.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "server/cli/Commands.h"

namespace skein::cli {
namespace {

struct Row {
    std::string program;
    std::vector<std::string> args; // flags and options for `skein check`
    std::string label;             // the row's parameters as written
};

struct Measurement {
    double wallMs = 0;
    double cpuMs = 0; // the child's user + system CPU time: comparable with GenMC's CPU seconds on a loaded machine
    uint64_t peakRssKb = 0;
    nlohmann::json result;
    int exitCode = 0;
};

std::vector<std::string> split(const std::string& s) {
    std::istringstream is(s);
    std::vector<std::string> out;
    for (std::string w; is >> w;) out.push_back(w);
    return out;
}

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::optional<Measurement> runOnce(const std::string& self, const Row& row, double timeout) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return std::nullopt;
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid < 0) return std::nullopt;
    if (pid == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        close(pipefd[1]);
        std::vector<std::string> argv = {self, "check", "--json"};
        if (timeout > 0) argv.push_back("--time-limit=" + std::to_string(timeout));
        argv.insert(argv.end(), row.args.begin(), row.args.end());
        argv.push_back(row.program);
        std::vector<char*> cargv;
        for (auto& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execv(self.c_str(), cargv.data());
        _exit(127);
    }
    close(pipefd[1]);
    std::string out;
    char buf[65536];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    close(pipefd[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    Measurement m;
    m.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m.peakRssKb = uint64_t(ru.ru_maxrss);
    m.cpuMs = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
              double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0;
    m.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    try {
        m.result = nlohmann::json::parse(out);
    } catch (...) {
        return std::nullopt;
    }
    return m;
}

} // namespace

int runBench(const std::vector<std::string>& args) {
    std::string rowsPath, csvPath;
    int runs = 3;
    double timeout = 120;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto bad = [&]() {
            std::cerr << "skein bench: bad value in " << a << "\n";
            return int(kBadInput);
        };
        if (a.rfind("--runs=", 0) == 0) {
            std::string v = a.substr(7);
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), runs);
            if (ec != std::errc() || p != v.data() + v.size() || runs < 1) return bad();
        } else if (a.rfind("--csv=", 0) == 0) {
            csvPath = a.substr(6);
        } else if (a.rfind("--timeout=", 0) == 0) {
            std::string v = a.substr(10);
            char* end = nullptr;
            timeout = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || timeout < 0) return bad();
        }
        else if (a[0] != '-') rowsPath = a;
        else {
            std::cerr << "skein bench: unknown option " << a << "\n";
            return kBadInput;
        }
    }
    if (rowsPath.empty()) {
        std::cerr << "usage: skein bench [--runs=N] [--timeout=SECONDS] [--csv=FILE] ROWS\n";
        return kBadInput;
    }
    std::ifstream in(rowsPath);
    if (!in) {
        std::cerr << "skein bench: cannot read " << rowsPath << "\n";
        return kBadInput;
    }
    // Paths in the row file are relative to the file's folder.
    std::string base = rowsPath.find('/') == std::string::npos ? "." : rowsPath.substr(0, rowsPath.rfind('/'));
    std::vector<Row> rows;
    for (std::string line; std::getline(in, line);) {
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        // program | flags and options
        auto bar = line.find('|');
        Row r;
        r.program = trim(line.substr(0, bar));
        if (r.program[0] != '/') r.program = base + "/" + r.program;
        if (bar != std::string::npos) {
            r.label = trim(line.substr(bar + 1));
            r.args = split(r.label);
        }
        rows.push_back(std::move(r));
    }
    char selfBuf[4096];
    ssize_t n = readlink("/proc/self/exe", selfBuf, sizeof selfBuf - 1);
    if (n <= 0) return kBadInput;
    std::string self(selfBuf, size_t(n));

    std::ofstream csv;
    if (!csvPath.empty()) {
        csv.open(csvPath);
        csv << "program,params,algorithm,verdict,executions,blocked,bounded,ssb,events,wall_ms,cpu_ms,peak_rss_kb,exec_per_s,events_per_s,counters\n";
    }
    std::cout << std::left << std::setw(18) << "program" << std::setw(34) << "params" << std::setw(7) << "algo"
              << std::setw(9) << "verdict" << std::right << std::setw(10) << "execs" << std::setw(9) << "blocked"
              << std::setw(8) << "bounded" << std::setw(7) << "ssb" << std::setw(11) << "events" << std::setw(10)
              << "wall ms" << std::setw(9) << "CPU ms" << std::setw(9) << "RSS MB" << std::setw(11) << "execs/s" << std::setw(12) << "events/s"
              << "\n";
    int failures = 0;
    for (const Row& row : rows) {
        std::vector<Measurement> ms;
        for (int k = 0; k < runs; ++k)
            if (auto m = runOnce(self, row, timeout)) ms.push_back(std::move(*m));
        std::string name = row.program.substr(row.program.rfind('/') + 1);
        if (ms.empty()) {
            std::cout << std::left << std::setw(18) << name << std::setw(34) << row.label << "failed to run\n";
            ++failures;
            continue;
        }
        std::sort(ms.begin(), ms.end(), [](auto& a, auto& b) { return a.wallMs < b.wallMs; });
        const Measurement& med = ms[ms.size() / 2];
        const auto& j = med.result;
        if (!j.contains("stats")) {
            std::cout << std::left << std::setw(18) << name << std::setw(34) << row.label << "bad input\n";
            ++failures;
            continue;
        }
        const auto& s = j["stats"];
        uint64_t execs = s.value("executions", 0ull), blocked = s.value("blocked", 0ull), bounded = s.value("bounded", 0ull);
        uint64_t events = s.value("events", 0ull);
        double secs = med.wallMs / 1000.0;
        double eps = secs > 0 ? double(execs + blocked + bounded) / secs : 0, evps = secs > 0 ? double(events) / secs : 0;
        std::string algo = j.value("algorithm", "?"), verdict = j.value("verdict", "?");
        std::cout << std::left << std::setw(18) << name << std::setw(34) << row.label.substr(0, 33) << std::setw(7) << algo
                  << std::setw(9) << verdict << std::right << std::setw(10) << execs << std::setw(9) << blocked
                  << std::setw(8) << bounded << std::setw(7) << s.value("ssb", 0ull) << std::setw(11) << events
                  << std::setw(10) << std::fixed << std::setprecision(0) << med.wallMs << std::setw(9) << med.cpuMs
                  << std::setw(9) << med.peakRssKb / 1024 << std::setw(11) << uint64_t(eps) << std::setw(12) << uint64_t(evps) << "\n";
        // The explorer's own counters (qpor: U, alternatives, comb sizes, time per phase) under the row.
        std::string counters;
        if (s.contains("algorithm_counters")) {
            const auto& c = s["algorithm_counters"];
            auto num = [&](const char* k) { return c.value(k, 0.0); };
            if (c.contains("u_peak")) {
                double ms = s.value("elapsed_ms", 0.0);
                auto pct = [&](const char* k) { return ms > 0 ? int(100.0 * num(k) / ms + 0.5) : 0; };
                std::ostringstream line;
                line << "U peak " << uint64_t(num("u_peak")) << ", alternatives " << uint64_t(num("alternatives")) << " ("
                     << uint64_t(num("alternatives_none")) << " none), comb spike events "
                     << uint64_t(num("comb_spike_events")) << "; time: execute " << pct("ms_execute") << " %, en(C) "
                     << pct("ms_extensions") << " %, comb " << pct("ms_comb") << " %, cex " << pct("ms_cex") << " %, other "
                     << pct("ms_other") << " %";
                if (num("ms_restarted") > 0) line << ", restarted " << pct("ms_restarted") << " %";
                counters = line.str();
                std::cout << std::string(18, ' ') << counters << "\n";
            } else if (c.contains("classes")) {
                // vhb: classes (maximal traces), non-maximal nodes, closure calls and the time per phase.
                double ms = s.value("elapsed_ms", 0.0);
                auto pct = [&](const char* k) { return ms > 0 ? int(100.0 * num(k) / ms + 0.5) : 0; };
                std::ostringstream line;
                line << "classes " << uint64_t(num("classes")) << ", non-maximal " << uint64_t(num("non_maximal"))
                     << ", closure calls " << uint64_t(num("closure_calls")) << " (" << uint64_t(num("infeasible_extensions"))
                     << " infeasible); time: closure " << pct("closure_ms") << " %, realize " << pct("realize_ms")
                     << " %, final-state monitor " << pct("monitor_ms") << " %";
                counters = line.str();
                std::cout << std::string(18, ' ') << counters << "\n";
            }
        }
        if (csv)
            csv << name << ",\"" << row.label << "\"," << algo << "," << verdict << "," << execs << "," << blocked << ","
                << bounded << "," << s.value("ssb", 0ull) << "," << events << "," << med.wallMs << "," << med.cpuMs << "," << med.peakRssKb
                << "," << eps << "," << evps << ",\"" << counters << "\"\n";
    }
    return failures ? kInconclusive : kSafe;
}

} // namespace skein::cli
