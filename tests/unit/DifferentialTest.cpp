// Differential tests (issue 3): random small concurrent programs, every qpor mode against the dfs oracle.
// Same errors and final states; `optimal` explores exactly one execution per Mazurkiewicz trace with no
// sleep-set blocked run. The second test adds condition variables and a heap object that threads may free.
// SKEIN_DIFF_PROGRAMS=N runs N programs per test (defaults 1000 and 300; the long mode uses more);
// SKEIN_DIFF_SEED picks the first seed. A failure prints the program.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"
#include "tests/unit/RandomPrograms.h"

namespace {

using skein::testing::errorSet;
using skein::testing::Generator;
using skein::testing::GeneratorFlags;

void qporAgreesWithDfs(GeneratorFlags flags, int programs) {
    if (const char* n = std::getenv("SKEIN_DIFF_PROGRAMS")) programs = std::atoi(n);
    uint32_t seed0 = 1;
    if (const char* s = std::getenv("SKEIN_DIFF_SEED")) seed0 = uint32_t(std::atoi(s));
    int checked = 0;
    std::map<std::string, uint64_t> ssb, traces, limited, widenedPrograms;
    for (int i = 0; i < programs; ++i) {
        uint32_t seed = seed0 + uint32_t(i);
        std::string src = Generator(seed, flags).program();
        auto compiled = skein::frontend::compile({"random.c", src, {}});
        ASSERT_TRUE(compiled) << src;
        auto prog = skein::program::lower(*compiled);
        ASSERT_TRUE(prog) << src;
        skein::explore::ExploreOptions o;
        o.maxExecutions = 20000;
        auto dfs = skein::explore::findExplorer("dfs")->run(*prog, o, nullptr);
        if (dfs.stoppedEarly) continue; // too big for the oracle
        ++checked;
        for (const char* mode : {"optimal", "k1", "k2", "sdpor"}) {
            o.alt = mode;
            // Half of the programs prune U at every return of Explore (Alg. 1, line 13): pruning must lose no
            // configuration. (By default qpor prunes only when U is large, which these programs never are.)
            o.qporPruneThreshold = seed % 2 ? 0 : 4096;
            auto q = skein::explore::findExplorer("qpor")->run(*prog, o, nullptr);
            if (q.explorerLimit) {
                // A construct qpor hands over to dfs (check() then falls back): thread creation, join or a
                // condition wait inside an atomic section (the generator makes none). Counted, not compared.
                EXPECT_NE(q.explorerLimit->find("atomic section"), std::string::npos) << *q.explorerLimit << "\n" << src;
                ++limited[mode];
                continue;
            }
            ssb[mode] += q.stats.ssb;
            traces[mode] += q.stats.executions + q.stats.blocked;
            SCOPED_TRACE(std::string("seed ") + std::to_string(seed) + " --alt=" + mode + "\n" + src);
            ASSERT_EQ(errorSet(q), errorSet(dfs));
            ASSERT_EQ(q.stats.finalStates, dfs.stats.finalStates);
            // A section whose accesses depend on what it reads is one action with the union of its runs' accesses
            // (a coarser independence than dfs's): then at least one execution per Mazurkiewicz trace.
            bool widened = q.stats.extra.count("sections_widened") && q.stats.extra.at("sections_widened") > 0;
            if (widened) ++widenedPrograms[mode];
            if (widened) ASSERT_GE(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
            // Every maximal configuration is explored exactly once; redundancy shows only as SSBs.
            else ASSERT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
            if (std::string(mode) == "optimal") ASSERT_EQ(q.stats.ssb, 0u);
        }
    }
    for (auto& [mode, n] : ssb)
        std::printf("differential: %d programs checked; --alt=%s: %llu maximal configurations, %llu SSB, %llu handed "
                    "to dfs, %llu with widened sections\n",
                    checked, mode.c_str(), (unsigned long long)traces[mode], (unsigned long long)n,
                    (unsigned long long)limited[mode], (unsigned long long)widenedPrograms[mode]);
    EXPECT_GT(checked, programs / 2) << "most random programs must be small enough for the oracle";
    EXPECT_LT(limited["optimal"], uint64_t(checked) / 4) << "most programs must be explored by qpor itself";
}

TEST(Differential, QporModesAgreeWithDfsOnRandomPrograms) { qporAgreesWithDfs(GeneratorFlags{}, 1000); }

TEST(Differential, QporModesAgreeWithDfsWithConditionVariablesAndFree) {
    GeneratorFlags flags;
    flags.condVars = true;
    flags.heap = true;
    qporAgreesWithDfs(flags, 300);
}

} // namespace

// Library and mixed-size accesses (RandomPrograms.h GeneratorFlags::memory).
TEST(Differential, QporModesAgreeWithDfsWithCopiesAndMixedSizes) {
    GeneratorFlags flags;
    flags.memory = true;
    qporAgreesWithDfs(flags, 300);
}
