#include "core/Check.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/explore/RaceDetector.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"

namespace skein {

namespace {
double medianOf(std::vector<double>& v) { // sorts v
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
} // namespace

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
    const explore::ExplorerInfo* against = nullptr; // --timed-against: timed in turns with this explorer
    if (!req.timedAgainst.empty() && req.timedRuns > 1) {
        against = explore::findExplorer(req.timedAgainst);
        if (!against) {
            report::Diagnostic d;
            d.message = "unknown algorithm `" + req.timedAgainst + "` in --timed-against";
            return std::unexpected(CheckFailure{{d}});
        }
    }
    // The warm-up and timed runs free what they allocate (whatever the measured run does), so that it finds the
    // allocator's pages warm too rather than fresh ones.
    explore::ExploreOptions quiet = options;
    quiet.freeAtEnd = true;
    for (const explore::ExplorerInfo* x : {explorer, against}) {
        if (!x) continue;
        for (uint32_t i = 0; i < req.warmRuns; ++i)
            if (x->run(program, quiet, nullptr).explorerLimit) break; // the measured run falls back below
    }
    std::vector<double> times, againstTimes, blockRatios;
    uint64_t againstRuns = 0;
    // With an explorer to time against, the two take turns in blocks of kBlock timed runs, each block after one
    // untimed run that brings the explorer's code and data back into the caches the other's block used: both are
    // then timed in the same process, and each pair of blocks within milliseconds — this host's speed changes from
    // one stretch to the next, by up to 2× (bench/README.md), and separate processes can catch different stretches.
    // blockRatios: the other's block median over this one's, per pair of blocks.
    constexpr uint32_t kBlock = 10;
    for (uint32_t done = 1; done < req.timedRuns;) {
        const uint32_t n = against ? std::min(kBlock, req.timedRuns - done) : req.timedRuns - done;
        if (against) explorer->run(program, quiet, nullptr); // the refill, after the other's block or warm-up
        std::vector<double> block, otherBlock;
        for (uint32_t i = 0; i < n; ++i) {
            report::CheckResult t = explorer->run(program, quiet, nullptr);
            if (t.explorerLimit) break;
            block.push_back(t.stats.elapsedMs);
        }
        times.insert(times.end(), block.begin(), block.end());
        if (block.size() < n) break; // the explorer hit a limit: the reported run below says which
        if (against) against->run(program, quiet, nullptr);
        for (uint32_t i = 0; against && i < n; ++i) {
            report::CheckResult t = against->run(program, quiet, nullptr);
            if (t.explorerLimit) {
                against = nullptr; // nothing to compare with
                break;
            }
            otherBlock.push_back(t.stats.elapsedMs);
            againstRuns = t.stats.executions + t.stats.blocked + t.stats.bounded;
        }
        if (against) {
            againstTimes.insert(againstTimes.end(), otherBlock.begin(), otherBlock.end());
            blockRatios.push_back(medianOf(otherBlock) / std::max(medianOf(block), 1e-12));
        }
        done += n;
    }
    if (against) explorer->run(program, quiet, nullptr); // the reported run, too, follows a refill
    report::CheckResult r = explorer->run(program, options, obs);
    r.stats.warmRuns = req.warmRuns;
    if (!times.empty() && !r.explorerLimit) {
        times.push_back(r.stats.elapsedMs);
        r.stats.elapsedMs = medianOf(times);
        r.stats.timedRuns = uint32_t(times.size());
        if (against && !againstTimes.empty())
            r.stats.timedAgainst = report::Stats::TimedAgainst{against->name, medianOf(againstTimes),
                                                               medianOf(blockRatios), againstRuns,
                                                               uint32_t(againstTimes.size())};
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
