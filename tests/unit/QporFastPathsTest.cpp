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
#include "tests/unit/TestSupport.h"

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
    double treeMax = 0, ownPlacement = 0, readCut = 0, singleWriter = 0, siblings = 0, siblingWalk = 0;
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
                readCut += counter(crossed, "cross_checks_read_cut");
                singleWriter += counter(crossed, "cross_checks_single_writer");
                siblings += counter(crossed, "cross_checks_siblings");
                siblingWalk += counter(crossed, "cross_checks_sibling_walk");
                ASSERT_EQ(errorSet(crossed), errorSet(plain));
                ASSERT_EQ(crossed.stats.executions, plain.stats.executions);
                ASSERT_EQ(crossed.stats.blocked, plain.stats.blocked);
                ASSERT_EQ(crossed.stats.ssb, plain.stats.ssb);
                ASSERT_EQ(crossed.stats.finalStates, plain.stats.finalStates);
            }
        });
    std::printf("fast paths: %d programs; cross-checks: treeMaxIn %.0f, onlyItsOwnPlacement %.0f, read cut %.0f, "
                "single writer %.0f, siblings %.0f, sibling walk %.0f\n",
                checked, treeMax, ownPlacement, readCut, singleWriter, siblings, siblingWalk);
    // Both fast paths decide often on these programs: a check that never ran could not fail.
    EXPECT_GT(treeMax, 10.0 * checked);
    EXPECT_GT(ownPlacement, 10.0 * checked);
}

// The multi-word read's walk skips the combinations a placed placement's walk made (earlierPlacements): a copy of a
// buffer another thread fills word by word, placed at every snapshot by each of its 17 executions. Cross-checked,
// nothing is skipped and every combination it would skip must find its event made already.
TEST(QporFastPaths, AMultiWordReadSkipsWhatAPlacedPlacementMade) {
    skein::test::Options o;
    o.algorithm = "qpor";
    const auto plain = skein::test::checkSource(skein::test::sourceFile("tests/corpus/strings/snapshot_memcpy.c"), o);
    EXPECT_EQ(plain.stats.executions, 17u); // dfs's traces: the 8 words' snapshots of two rounds of writes, 2·8 + 1
    EXPECT_EQ(plain.stats.ssb, 0u);
    EXPECT_GT(counter(plain, "placements_cut"), 0);
    o.explore.qporCrossCheck = true;
    const auto crossed = skein::test::checkSource(skein::test::sourceFile("tests/corpus/strings/snapshot_memcpy.c"), o);
    EXPECT_GT(counter(crossed, "cross_checks_read_cut"), 0);
    EXPECT_EQ(counter(crossed, "cross_check_failures"), 0);
    EXPECT_EQ(crossed.stats.executions, plain.stats.executions);
    EXPECT_EQ(counter(crossed, "u_events"), counter(plain, "u_events"));
    EXPECT_EQ(errorSet(crossed), errorSet(plain));
    // The string functions' reads, cross-checked the same way, and an atomic section of twelve reads placed as a
    // plain event (section_snapshot.c: 25 snapshots). Where every option past the history all placements keep is a
    // write of one thread (strlen_growing.c, section_snapshot.c, snapshot_memcpy.c), the combinations are enumerated
    // one per write of that thread instead of walked (singleWriterPlacements): cross-checked, the walk runs first and
    // the enumeration must name exactly the events it made, making none.
    EXPECT_GT(counter(crossed, "cross_checks_single_writer"), 0);
    double checks = 0, singleWriter = 0;
    for (const char* file : {"tests/corpus/strings/strlen_growing.c", "tests/corpus/library/variadic_logger.c",
                             "examples/vhb/copies.c", "tests/corpus/svcomp/section_snapshot.c"}) {
        SCOPED_TRACE(file);
        skein::test::Options q;
        q.algorithm = "qpor";
        const auto base = skein::test::checkSource(skein::test::sourceFile(file), q);
        // (Main's reading section is placed as a plain event: the cut applies to it, 24 times.)
        if (std::string(file).find("section_snapshot") != std::string::npos) {
            EXPECT_GT(counter(base, "placements_cut"), 0);
        }
        q.explore.qporCrossCheck = true;
        const auto checked = skein::test::checkSource(skein::test::sourceFile(file), q);
        checks += counter(checked, "cross_checks_read_cut");
        singleWriter += counter(checked, "cross_checks_single_writer");
        if (std::string(file).find("strlen_growing") != std::string::npos ||
            std::string(file).find("section_snapshot") != std::string::npos) {
            EXPECT_GT(counter(checked, "cross_checks_single_writer"), 0);
        }
        EXPECT_EQ(counter(checked, "cross_check_failures"), 0);
        EXPECT_EQ(checked.stats.executions, base.stats.executions);
        EXPECT_EQ(counter(checked, "u_events"), counter(base, "u_events"));
        EXPECT_EQ(errorSet(checked), errorSet(base));
    }
    EXPECT_GT(checks, 0);
    EXPECT_GT(singleWriter, 0);
}

// The walk that places a section event's siblings after a new event n of C (siblingsAfterNewAccess) makes only the
// placements whose history holds n — with the readers a write's placement may follow (makeEvent's optional ones),
// not its anchors alone: join_in_section.c's main section, placed after the other thread's read of x, has a sibling
// whose anchors hold only the child's write of x and whose history takes that read in as a reader before the
// section's write (with anchors alone checked, 5 executions for 6 traces). Cross-checked, every placement it leaves
// out is made and must make no event nor bring one back into U.
TEST(QporFastPaths, ASiblingWalkMakesOnlyThePlacementsAfterTheNewEvent) {
    const struct {
        const char* file;
        uint64_t executions;
    } rows[] = {{"tests/corpus/svcomp/join_in_section.c", 6}, {"tests/corpus/svcomp/nondet_section_loop.c", 63}};
    for (const auto& row : rows) {
        SCOPED_TRACE(row.file);
        skein::test::Options o;
        o.algorithm = "qpor";
        o.explore.detectRaces = false;
        const auto plain = skein::test::checkSource(skein::test::sourceFile(row.file), o);
        EXPECT_EQ(plain.stats.executions, row.executions);
        EXPECT_EQ(plain.stats.ssb, 0u);
        o.explore.qporCrossCheck = true;
        const auto crossed = skein::test::checkSource(skein::test::sourceFile(row.file), o);
        EXPECT_GT(counter(crossed, "cross_checks_sibling_walk"), 0);
        EXPECT_EQ(counter(crossed, "cross_check_failures"), 0);
        EXPECT_EQ(crossed.stats.executions, row.executions);
        EXPECT_EQ(counter(crossed, "u_events"), counter(plain, "u_events"));
        EXPECT_EQ(errorSet(crossed), errorSet(plain));
    }
}

TEST(QporFastPaths, AgreeWithTheirRulesOnRandomPrograms) { fastPathsAgree(GeneratorFlags{}, 200); }

TEST(QporFastPaths, AgreeWithTheirRulesWithConditionVariablesAndFree) {
    fastPathsAgree({.condVars = true, .heap = true}, 100);
}

TEST(QporFastPaths, AgreeWithTheirRulesWithCopiesAndCompareExchanges) {
    fastPathsAgree({.memory = true, .cas = true}, 100);
}

TEST(QporFastPaths, AgreeWithTheirRulesWithCompareExchangesInSections) {
    fastPathsAgree({.atomicSections = false, .cas = true, .wideCas = true, .casInSections = true}, 100);
}

} // namespace
