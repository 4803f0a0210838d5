// qpor's fast paths against the rules they restate (ExploreOptions::qporCrossCheck): QporExplorer::treeMaxIn's walk
// down C's chain against EventStructure::treeMaxOf, and onlyItsOwnPlacement against the walk of earlierPlacements —
// checked wherever they decide, on the differential tests' random programs, with and without pruning. The explorer
// counts the checks and the disagreements (algorithm_counters cross_checks_tree_max, cross_checks_own_placement,
// cross_check_failures), and the checking itself must change nothing: the same result as without it.
// SKEIN_DIFF_PROGRAMS=N checks N programs per test and SKEIN_DIFF_SEED picks the first seed, as in
// DifferentialTest.cpp.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "tests/unit/RandomPrograms.h"

namespace {

using skein::testing::envNumber;
using skein::testing::errorSet;
using skein::testing::forEachSmallProgram;
using skein::testing::GeneratorFlags;

double counter(const skein::report::CheckResult& r, const char* name) {
    auto it = r.stats.extra.find(name);
    return it == r.stats.extra.end() ? -1 : it->second;
}

void fastPathsAgree(GeneratorFlags flags, int programs) {
    double treeMax = 0, ownPlacement = 0;
    const int checked = forEachSmallProgram(
        flags, int(envNumber("SKEIN_DIFF_PROGRAMS", programs)), uint32_t(envNumber("SKEIN_DIFF_SEED", 1)), 20000,
        [&](uint32_t seed, const std::string&, const skein::program::Program& prog,
            const skein::explore::ExploreOptions& options, const skein::report::CheckResult&) {
            for (const char* mode : {"optimal", "k2"}) {
                SCOPED_TRACE(std::string("--alt=") + mode);
                skein::explore::ExploreOptions o = options;
                o.alt = mode;
                o.qporPruneThreshold = seed % 2 ? 0 : 4096; // with pruning at every return, and without
                const auto& qpor = *skein::explore::findExplorer("qpor");
                const skein::report::CheckResult plain = qpor.run(prog, o, nullptr);
                o.qporCrossCheck = true;
                const skein::report::CheckResult crossed = qpor.run(prog, o, nullptr);
                EXPECT_EQ(counter(plain, "cross_check_failures"), -1); // only when asked for
                if (crossed.explorerLimit) continue; // a construct handed to dfs (DifferentialTest.cpp)
                ASSERT_EQ(counter(crossed, "cross_check_failures"), 0);
                treeMax += counter(crossed, "cross_checks_tree_max");
                ownPlacement += counter(crossed, "cross_checks_own_placement");
                ASSERT_EQ(errorSet(crossed), errorSet(plain));
                ASSERT_EQ(crossed.stats.executions, plain.stats.executions);
                ASSERT_EQ(crossed.stats.blocked, plain.stats.blocked);
                ASSERT_EQ(crossed.stats.ssb, plain.stats.ssb);
                ASSERT_EQ(crossed.stats.finalStates, plain.stats.finalStates);
            }
        });
    std::printf("fast paths: %d programs; cross-checks: treeMaxIn %.0f, onlyItsOwnPlacement %.0f\n", checked, treeMax,
                ownPlacement);
    // Both fast paths decide often on these programs: a check that never ran could not fail.
    EXPECT_GT(treeMax, 10.0 * checked);
    EXPECT_GT(ownPlacement, 10.0 * checked);
}

TEST(QporFastPaths, AgreeWithTheirRulesOnRandomPrograms) { fastPathsAgree(GeneratorFlags{}, 200); }

TEST(QporFastPaths, AgreeWithTheirRulesWithConditionVariablesAndFree) {
    fastPathsAgree({.condVars = true, .heap = true}, 100);
}

TEST(QporFastPaths, AgreeWithTheirRulesWithCopiesAndCompareExchanges) {
    fastPathsAgree({.memory = true, .cas = true}, 100);
}

} // namespace
