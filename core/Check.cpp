#include "core/Check.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/explore/RaceDetector.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"

namespace skein {

std::expected<PreparedProgram, CheckFailure> prepare(const CheckRequest& req) {
    auto t0 = std::chrono::steady_clock::now();
    auto compiled = frontend::compile({req.path, req.contents, req.clangFlags});
    if (!compiled) return std::unexpected(CheckFailure{std::move(compiled.error().diagnostics)});
    auto program = program::lower(*compiled, {.escapeAnalysis = req.escapeAnalysis});
    if (!program) {
        report::Diagnostic d;
        d.location = program.error().location;
        if (d.location.file.empty()) d.location.file = req.path;
        d.message = program.error().message;
        return std::unexpected(CheckFailure{{d}});
    }
    PreparedProgram out;
    out.program = std::make_shared<const program::Program>(std::move(*program));
    out.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

std::expected<report::CheckResult, CheckFailure> exploreProgram(const program::Program& program,
                                                                const CheckRequest& req, explore::Observer* obs) {
    const explore::ExplorerInfo* explorer = explore::findExplorer(req.algorithm);
    if (!explorer) {
        report::Diagnostic d;
        d.message = "unknown algorithm `" + req.algorithm + "`";
        return std::unexpected(CheckFailure{{d}});
    }
    // Cancellation reaches into long executions too (polled by the interpreter).
    explore::ExploreOptions options = req.options;
    if (options.cancelled && !options.exec.cancelled) options.exec.cancelled = options.cancelled;
    if (req.warmRuns > 0) {
        // The warm-up runs free what they allocate (whatever the measured run does), so that it finds the
        // allocator's pages warm too rather than fresh ones.
        explore::ExploreOptions warm = options;
        warm.freeAtEnd = true;
        for (uint32_t i = 0; i < req.warmRuns; ++i)
            if (explorer->run(program, warm, nullptr).explorerLimit) break; // the measured run falls back below
    }
    std::vector<double> times;
    if (req.timedRuns > 1) {
        explore::ExploreOptions timed = options;
        timed.freeAtEnd = true; // as for the warm-up runs
        for (uint32_t i = 1; i < req.timedRuns; ++i) {
            report::CheckResult t = explorer->run(program, timed, nullptr);
            if (t.explorerLimit) break;
            times.push_back(t.stats.elapsedMs);
        }
    }
    report::CheckResult r = explorer->run(program, options, obs);
    r.stats.warmRuns = req.warmRuns;
    if (!times.empty() && !r.explorerLimit) {
        times.push_back(r.stats.elapsedMs);
        std::sort(times.begin(), times.end());
        size_t n = times.size();
        r.stats.elapsedMs = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
        r.stats.timedRuns = uint32_t(n);
    }
    if (r.explorerLimit && req.fallbackToDfs && req.algorithm != "dfs") {
        std::string why = *r.explorerLimit;
        r = explore::findExplorer("dfs")->run(program, options, obs);
        r.notes.push_back(req.algorithm + " cannot explore this program (" + why + "); dfs was used instead");
    }
    r.file = req.path;
    return r;
}

std::expected<report::CheckResult, CheckFailure> check(const CheckRequest& req, explore::Observer* obs) {
    if (!explore::findExplorer(req.algorithm)) {
        report::Diagnostic d;
        d.message = "unknown algorithm `" + req.algorithm + "`";
        return std::unexpected(CheckFailure{{d}});
    }
    auto prepared = prepare(req);
    if (!prepared) return std::unexpected(std::move(prepared.error()));
    auto r = exploreProgram(*prepared->program, req, obs);
    if (r) r->stats.compileMs = prepared->compileMs;
    return r;
}

ReplayResult replay(const program::Program& program, const std::vector<report::Decision>& schedule,
                    const explore::ExploreOptions& options) {
    auto t0 = std::chrono::steady_clock::now();
    ReplayResult out;
    exec::ExecOptions execOptions = options.exec;
    if (options.cancelled && !execOptions.cancelled) execOptions.cancelled = options.cancelled;
    exec::Executor ex(program, execOptions);
    std::vector<report::Decision> taken;
    auto enabledOf = [&](uint32_t t) { return t < ex.numThreads() && ex.enabled(t); };
    for (const report::Decision& d : schedule) {
        if (ex.status() != exec::ExecStatus::Running) break;
        if (!enabledOf(d.thread) || d.choice >= ex.thread(d.thread).choices ||
            (ex.exclusiveThread() != model::kNoThread && ex.exclusiveThread() != d.thread)) {
            out.diverged = true;
            break;
        }
        ex.step(d.thread, d.choice);
        taken.push_back(d);
        ++out.followed;
    }
    // Complete the execution deterministically; the step bounds of ExecOptions keep it finite.
    while (ex.status() == exec::ExecStatus::Running) {
        uint32_t next = model::kNoThread;
        if (ex.exclusiveThread() != model::kNoThread && enabledOf(ex.exclusiveThread()))
            next = ex.exclusiveThread();
        for (uint32_t t = 0; next == model::kNoThread && t < ex.numThreads(); ++t)
            if (ex.enabled(t)) next = t;
        if (next == model::kNoThread) break;
        if (options.cancelled && options.cancelled()) break;
        ex.step(next, 0);
        taken.push_back({next, 0});
    }
    explore::ExploreOptions collectOptions;
    collectOptions.maxErrors = options.maxErrors;
    collectOptions.detectRaces = options.detectRaces;
    explore::ErrorCollector errors(collectOptions, nullptr);
    explore::RaceDetector races;
    explore::collectErrors(errors, options.detectRaces ? &races : nullptr, ex, taken);
    out.errors = errors.take();
    out.elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace skein
