// vhb on lock-heavy programs with many threads (core/explore/vhb/DESIGN.md "Span reads first"): the first pass
// extended every thread at every node, so it visited every realisable combination of the threads' positions
// (a ring of T mutexes, T threads: 39,886 nodes for 63 classes at T = 6, T = 8 unfinished after 30 s, where qpor
// explores its 255 executions in 0.07 s). A node whose thread is inside a critical section, before a read of a word
// the section has not accessed, now extends that thread alone. These tests check the answers, not the time: the
// classes derived by hand and counted by qpor and dfs, and the first pass with and without the restriction giving
// the same classes, errors and final states on random programs.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "core/explore/vhb/Vhb.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"
#include "tests/unit/RandomPrograms.h"
#include "tests/unit/TestSupport.h"

using skein::test::checkSource;
using skein::testing::envNumber;
using skein::testing::errorSet;
using skein::testing::forEachSmallProgram;
using skein::testing::GeneratorFlags;

namespace {

// Thread i increments x[i] under m[i], then x[i+1] under m[i+1] (indices mod T); main creates and joins them.
const char* const kRing = R"(#include <pthread.h>
#ifndef T
#define T 6
#endif
pthread_mutex_t m[T];
int x[T];
void *w(void *a) { long i = (long)a; pthread_mutex_lock(&m[i]); x[i]++; pthread_mutex_unlock(&m[i]); pthread_mutex_lock(&m[(i+1)%T]); x[(i+1)%T]++; pthread_mutex_unlock(&m[(i+1)%T]); return 0; }
int main(void) { pthread_t t[T]; for (int i = 0; i < T; i++) pthread_mutex_init(&m[i], 0); for (long i = 0; i < T; i++) pthread_create(&t[i], 0, w, (void *)i); for (int i = 0; i < T; i++) pthread_join(t[i], 0); return 0; }
)";

skein::test::Options options(const std::string& algorithm, int threads) {
    skein::test::Options o;
    o.algorithm = algorithm;
    o.flags = {"-DT=" + std::to_string(threads)};
    return o;
}

// By hand: mutex m[i] has two critical sections, thread i's first and thread i-1's second; which comes first decides
// which of them reads x[i] == 0 (the other reads 1), so the classes are the orientations of the T mutexes that some
// execution has: all 2^T but one — thread i-1's second section before thread i's first for every i is a cycle (each
// thread's first section precedes its second). Every execution ends with x[i] == 2 for all i: one final state, no
// error, no race (every access is under its mutex). A Mazurkiewicz trace is the same orientation (the locks of a
// mutex are ordered only by it), so qpor's executions and dfs's traces count the same.
uint64_t ringClasses(int threads) { return (uint64_t(1) << threads) - 1; }

void expectRing(const skein::report::CheckResult& r, int threads) {
    skein::test::expectCompleteExploration(r, skein::report::Verdict::Safe, {}, ringClasses(threads), 1);
}

} // namespace

// (dfs runs every interleaving: T = 2 only, T = 3 takes over a minute.)
TEST(VhbLocks, RingOfMutexesAgreesWithDfs) {
    const auto dfs = checkSource(kRing, options("dfs", 2));
    ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
    EXPECT_EQ(*dfs.stats.mazurkiewiczTraces, ringClasses(2));
    const auto v = checkSource(kRing, options("vhb", 2));
    expectRing(v, 2);
    EXPECT_EQ(v.verdict, dfs.verdict);
    EXPECT_EQ(errorSet(v), errorSet(dfs));
    EXPECT_EQ(v.stats.finalStates, dfs.stats.finalStates);
    EXPECT_EQ(v.stats.executions, *dfs.stats.mazurkiewiczTraces);
    EXPECT_EQ(v.stats.extra.at("classes"), double(ringClasses(2)));
}

TEST(VhbLocks, RingOfMutexesHasTheClassesQporCounts) {
    for (int threads : {3, 4, 5, 6, 7}) {
        SCOPED_TRACE("T=" + std::to_string(threads));
        const auto q = checkSource(kRing, options("qpor", threads));
        EXPECT_EQ(q.stats.executions, ringClasses(threads));
        const auto v = checkSource(kRing, options("vhb", threads));
        expectRing(v, threads);
        EXPECT_EQ(v.verdict, q.verdict);
        EXPECT_EQ(v.stats.finalStates, q.stats.finalStates);
        EXPECT_EQ(v.stats.extra.at("classes"), double(ringClasses(threads)));
        EXPECT_EQ(v.stats.extra.at("span_pass"), 1.0); // no race: the first pass is the answer
    }
}

// One increment outside its mutex: a data race, so the first pass hands over to the full exploration (whose nodes
// extend every thread), which finds what dfs finds.
TEST(VhbLocks, RacyRingRunsTheSecondPass) {
    std::string racy = kRing;
    const std::string inc = "x[(i+1)%T]++; pthread_mutex_unlock(&m[(i+1)%T]);";
    const size_t at = racy.find(inc);
    ASSERT_NE(at, std::string::npos);
    racy.replace(at, inc.size(), "pthread_mutex_unlock(&m[(i+1)%T]); x[(i+1)%T]++;");
    const auto dfs = checkSource(racy, options("dfs", 2));
    const auto v = checkSource(racy, options("vhb", 2));
    EXPECT_EQ(v.verdict, skein::report::Verdict::Error);
    EXPECT_EQ(errorSet(v), errorSet(dfs));
    EXPECT_EQ(v.stats.finalStates, dfs.stats.finalStates);
    EXPECT_EQ(v.stats.extra.at("span_pass"), 2.0);
}

namespace {
// The first pass with a span's read first (the default) and with every thread extended at every node
// (SKEIN_VHB_SPAN_FIRST=0): the same classes, cut leaves, errors and final states.
void spanFirstKeepsTheAnswers(GeneratorFlags flags, int programs, const char* what) {
    programs = int(envNumber("SKEIN_VHB_DIFF_PROGRAMS", programs));
    const int checked = forEachSmallProgram(
        flags, programs, uint32_t(envNumber("SKEIN_VHB_DIFF_SEED", 1)), 4000,
        [&](uint32_t, const std::string&, const skein::program::Program& prog, const skein::explore::ExploreOptions& o,
            const skein::report::CheckResult&) {
            ::setenv("SKEIN_VHB_SPAN_FIRST", "0", 1);
            const auto all = skein::explore::vhb::exploreSpans(prog, o, nullptr);
            ::unsetenv("SKEIN_VHB_SPAN_FIRST");
            const auto first = skein::explore::vhb::exploreSpans(prog, o, nullptr);
            ASSERT_FALSE(first.explorerLimit) << *first.explorerLimit;
            ASSERT_EQ(first.verdict, all.verdict);
            ASSERT_EQ(errorSet(first), errorSet(all));
            ASSERT_EQ(first.stats.executions, all.stats.executions);
            ASSERT_EQ(first.stats.blocked, all.stats.blocked);
            ASSERT_EQ(first.stats.bounded, all.stats.bounded);
            ASSERT_EQ(first.stats.finalStates, all.stats.finalStates);
            ASSERT_EQ(first.stats.extra.at("classes"), all.stats.extra.at("classes"));
        });
    std::printf("vhb first pass, span reads first (%s): %d programs checked\n", what, checked);
    EXPECT_GT(checked, programs / 2);
}
} // namespace

TEST(VhbLocks, SpanReadsFirstKeepTheAnswersOnRaceFreePrograms) {
    GeneratorFlags flags;
    flags.locked = true;
    flags.atomicSections = false;
    spanFirstKeepsTheAnswers(flags, 400, "race free: every shared int under m0");
}

TEST(VhbLocks, SpanReadsFirstKeepTheAnswersOnRandomPrograms) {
    spanFirstKeepsTheAnswers(GeneratorFlags{}, 400, "atomic sections included");
}
