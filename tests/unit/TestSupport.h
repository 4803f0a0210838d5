#pragma once
// Helpers for in-process tests: check a C program given as text.
#include <string>
#include <vector>

#include "core/Check.h"

namespace skein::test {

struct Options {
    std::string algorithm = "dfs";
    std::vector<std::string> flags;
    explore::ExploreOptions explore;
};
// The options with this explorer and nothing else changed.
inline Options withAlgorithm(std::string algorithm) {
    Options o;
    o.algorithm = std::move(algorithm);
    return o;
}

// The options with this compiler flag (a -D selecting a variant of a test's program) and this explorer.
inline Options withFlag(std::string flag, std::string algorithm = "dfs") {
    Options o = withAlgorithm(std::move(algorithm));
    o.flags = {std::move(flag)};
    return o;
}

// Compiles and explores `source` (named test.c). Fails the current test if it does not compile.
report::CheckResult checkSource(const std::string& source, const Options& o = {});
// The compile/lower failure for a source that must not compile.
CheckFailure failSource(const std::string& source, const Options& o = {});
// The error kinds found, sorted, e.g. {"assertion", "data_race"}.
std::vector<std::string> errorKinds(const report::CheckResult& r);
// Expects an exploration that ran to its end (not stopped early, no bound hit, nothing blocked) with this verdict,
// these error kinds (errorKinds), executions and final states: the hand-derived counts of a test.
void expectCompleteExploration(const report::CheckResult& r, report::Verdict verdict,
                               const std::vector<std::string>& kinds, uint64_t executions, uint64_t finalStates);
// Concatenated program output of the first complete execution.
std::string output(const report::CheckResult& r);
// The text of a file of the source tree, e.g. "examples/buffer_workers.c"; empty when it cannot be read.
std::string sourceFile(const std::string& relativePath);
// One thread memsets a heap buffer of SIZE bytes (a -D flag) while another memcpys it elsewhere; main memsets it
// before both creates and frees both buffers after both joins (the large-object tests of qpor and vhb).
extern const char* const kMemsetMemcpyProgram;

} // namespace skein::test
