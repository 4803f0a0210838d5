#pragma once
// The whole pipeline, file → verdict: compile (core/frontend), lower (core/program), explore (core/explore).
// Used by `skein check` and by the language server (server/lsp), which keeps the lowered program (below).
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/explore/Explorer.h"
#include "core/report/Result.h"

namespace skein {

struct CheckRequest {
    std::string path;
    std::optional<std::string> contents; // unsaved text
    std::vector<std::string> clangFlags;
    std::string algorithm = "qpor";
    // When the algorithm was not chosen explicitly: if qpor cannot handle the program (CheckResult::explorerLimit),
    // explore it with dfs instead and say so in the result's notes.
    bool fallbackToDfs = true;
    explore::ExploreOptions options;
    // Explore this many times first, without an observer, and discard the results: the reported run's elapsed
    // time is then that of a warm process (caches, branch predictors, the allocator's pages). For benchmarks.
    uint32_t warmRuns = 0;
    // Then time this many explorations (≥ 1) and report the median of their elapsed times, with the last one's
    // result: a single run of a few dozen microseconds swings 2–3× on a busy machine. For benchmarks.
    uint32_t timedRuns = 1;
    // With timedRuns > 1: the timed explorations take turns, in blocks, with as many of this explorer's
    // (stats.timedAgainst), so that both are timed in the same process and the same stretch of the host's speed.
    // For benchmarks (bench/qpor_vs_dfs.py); empty: none.
    std::string timedAgainst;
    // The escape analysis of locals (program::LowerOptions); off only to hold it to the reference, in tests.
    bool escapeAnalysis = true;
};

struct CheckFailure {
    std::vector<report::Diagnostic> diagnostics; // compile errors, or the reason the program cannot be checked
};

std::expected<report::CheckResult, CheckFailure> check(const CheckRequest& req, explore::Observer* obs = nullptr);

// The pipeline in two halves, for callers that keep the lowered program between checks (the language server:
// fingerprints, replaying a counterexample's schedule, mapping locations after an edit).
// check(req) == prepare(req) then exploreProgram(*prepared.program, req).
struct PreparedProgram {
    std::shared_ptr<const program::Program> program; // immutable once lowered; shared with the caller
    double compileMs = 0;
};
std::expected<PreparedProgram, CheckFailure> prepare(const CheckRequest& req);
// Explores a prepared program with req's algorithm (and the dfs fallback); `req.path` names the result's file.
std::expected<report::CheckResult, CheckFailure> exploreProgram(const program::Program& program,
                                                                const CheckRequest& req,
                                                                explore::Observer* obs = nullptr);

// Runs one execution that follows `schedule` as long as its decisions apply to `program` (a counterexample's
// schedule, perhaps from an earlier version of the program), then completes it by always running the lowest
// enabled thread. Reports the errors that execution ends with (with traces and schedules), as an explorer would.
struct ReplayResult {
    std::vector<report::ErrorReport> errors;
    size_t followed = 0;   // decisions of `schedule` that applied
    bool diverged = false; // some decision did not apply (the thread was not enabled, or the choice out of range)
    double elapsedMs = 0;
};
ReplayResult replay(const program::Program& program, const std::vector<report::Decision>& schedule,
                    const explore::ExploreOptions& options);

} // namespace skein
