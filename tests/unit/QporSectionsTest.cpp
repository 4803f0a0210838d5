// SV-COMP atomic sections under qpor: a section is one action; its events carry their own run's accesses where the
// site's runs differ, and otherwise its site's footprint, the union of the accesses of its runs
// (core/explore/unfolding/DESIGN.md). Where an event has more than its run touched (a site whose runs block, or leave
// a mutex alone), the independence is coarser than dfs's and qpor reports it (`sections_widened`): optimal then
// explores at least one execution per Mazurkiewicz trace rather than exactly one (tests/unit/DifferentialTest.cpp
// relies on the flag).
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"

#include "tests/unit/RandomPrograms.h"
#include "tests/unit/TestSupport.h"

using skein::test::checkSource;
using skein::testing::errorSet; // "kind@line"

namespace {
// t0's section reads and writes hp[0]; t1 frees the buffer in one section and reads hp[0] in another. Sections run
// whole, and a thread stops at its memory error while the others go on. By hand, with dfs's events (the failing
// access included, as the executor records it): t0 first — A, F, then R fails: one trace; F first — then A fails
// at its read of hp[0] and R fails at its read, two reads that commute: one trace. 2 traces, errors at lines 7
// (A) and 13 (R).
//
// In the second trace t0's section read hp[0] and failed before writing it. While its event carried the footprint of
// the run that writes, qpor ordered it against R's read both ways and explored that trace twice (sections_widened
// said so — found by the long differential run, seed 92659 and others: optimal 5 executions against 4 traces with
// the flag 0, until the flag compared modes as well as resources). Since the seventeenth session a site whose runs
// touch the same resources, one run per history, gives each event its own run's accesses (SectionSite::runAccesses):
// the failed run is a read, and optimal explores each trace once.
const char* const kFailingSectionThatWritesElsewhere = R"(#include <pthread.h>
#include <stdlib.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);
int *hp;
void *t0(void *arg) {
  (void)arg;
  __VERIFIER_atomic_begin(); hp[0] = hp[0] + 1; __VERIFIER_atomic_end();
  return 0;
}
void *t1(void *arg) {
  (void)arg;
  __VERIFIER_atomic_begin(); free(hp); __VERIFIER_atomic_end();
  __VERIFIER_atomic_begin(); int r1 = hp[0]; __VERIFIER_atomic_end();
  (void)r1;
  return 0;
}
int main(void) {
  pthread_t h[2];
  hp = calloc(2, sizeof(int));
  pthread_create(&h[0], 0, t0, 0);
  pthread_create(&h[1], 0, t1, 0);
  pthread_join(h[0], 0);
  pthread_join(h[1], 0);
  return 0;
})";
} // namespace

TEST(QporSections, AFailedRunThatWritesLessReadsOnly) {
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(kFailingSectionThatWritesElsewhere, o);
    ASSERT_EQ(dfs.stats.mazurkiewiczTraces, 2u);
    ASSERT_EQ(errorSet(dfs), (std::set<std::string>{"memory@7", "memory@13"}));
    o.algorithm = "qpor";
    const auto q = checkSource(kFailingSectionThatWritesElsewhere, o);
    EXPECT_EQ(errorSet(q), errorSet(dfs));
    ASSERT_TRUE(q.stats.extra.count("sections_widened"));
    EXPECT_EQ(q.stats.extra.at("sections_widened"), 0.0);
    EXPECT_EQ(q.stats.executions + q.stats.blocked, 2u); // one per trace (3 with the footprint's write: above)
    EXPECT_EQ(q.stats.ssb, 0u);
}

// A section whose runs touch different words: by a nondet value (two runs at one history) or by what it reads (one
// run at a history). Each event has only its own run's words (SectionSite::runAccesses); the run that writes x0
// placed after t1's read of x0 (final state x0 = 2, x1 = 0) is made by no walk of the other run's event, which
// touches x1 only and has no place on x0's chain — that final state was missed once (a first version of
// runAccesses; the differential run with assumes, seed 37) — but by placing that event's siblings after t1's read,
// an event beside it on a word its site touches (QporExplorer::siblingsAfterNewAccess). By hand, with dfs's events:
// the section before t1's write, between its write and read (the assume fails: blocked), after its read; or writing
// x1 before or after t1's read of x1 — 3 final states, 3 complete executions (dfs counts no trace for the blocked
// ones), none widened.
TEST(QporSections, RunsThatTouchDifferentWordsMissNoFinalState) {
    const std::string head = R"(#include <pthread.h>
void __VERIFIER_assume(int); void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);
int __VERIFIER_nondet_int(void);
int x0, x1, x2;
void *t1(void *arg) {
  x0 = x1 + 1;
  __VERIFIER_assume(x0 != 2);
  return 0;
}
void *t2(void *arg) {
  x2 = 1;
  return 0;
}
)";
    const std::string tail = R"(
int main(void) {
  pthread_t h[3];
  pthread_create(&h[0], 0, t0, 0);
  pthread_create(&h[1], 0, t1, 0);
  pthread_create(&h[2], 0, t2, 0);
  pthread_join(h[0], 0);
  pthread_join(h[1], 0);
  pthread_join(h[2], 0);
  return 0;
})";
    for (const char* cond : {"__VERIFIER_nondet_int()", "x2"}) {
        SCOPED_TRACE(cond);
        const std::string src = head + "void *t0(void *arg) {\n  __VERIFIER_atomic_begin(); if (" + cond +
                                ") x1 = x1 + 1; else x0 = 2; __VERIFIER_atomic_end();\n  return 0;\n}" + tail;
        skein::test::Options o;
        o.algorithm = "dfs";
        const auto dfs = checkSource(src, o);
        ASSERT_EQ(dfs.stats.finalStates, 3u);
        o.algorithm = "qpor";
        const auto q = checkSource(src, o);
        EXPECT_EQ(errorSet(q), errorSet(dfs));
        EXPECT_EQ(q.stats.finalStates, 3u);
        ASSERT_TRUE(q.stats.extra.count("sections_widened"));
        EXPECT_EQ(q.stats.extra.at("sections_widened"), 0.0);
        EXPECT_EQ(q.stats.executions, *dfs.stats.mazurkiewiczTraces);
        EXPECT_EQ(q.stats.ssb, 0u);
    }
}

namespace {
// `src` under dfs has `traces` Mazurkiewicz traces and `finals` final states, none blocked; under qpor in every mode
// of `modes` it has dfs's errors and final states, one complete execution per trace, none blocked or widened, and no
// SSB in `optimal` (in every mode when `ssbFreeInEveryMode`).
void expectOneExecutionPerTrace(const std::string& src, uint64_t traces, uint64_t finals,
                                std::initializer_list<const char*> modes, bool ssbFreeInEveryMode) {
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, traces);
    ASSERT_EQ(dfs.stats.finalStates, finals);
    o.algorithm = "qpor";
    for (const char* mode : modes) {
        SCOPED_TRACE(mode);
        o.explore.alt = mode;
        const auto q = checkSource(src, o);
        EXPECT_EQ(errorSet(q), errorSet(dfs));
        EXPECT_EQ(q.stats.finalStates, finals);
        EXPECT_EQ(q.stats.executions, traces); // each maximal configuration once: redundancy shows only as SSBs
        EXPECT_EQ(q.stats.blocked, 0u);
        EXPECT_EQ(q.stats.extra.at("sections_widened"), 0.0);
        if (ssbFreeInEveryMode || std::string(mode) == "optimal") {
            EXPECT_EQ(q.stats.ssb, 0u);
        }
    }
}

// Three threads: `setter` runs first, then the section, then `reader` — so that the section's first event sees what
// the setter wrote and the reader reads after it. Every mode explores one execution per trace (3, by hand below)
// and finds dfs's 3 final states, none widened.
void expectSectionAfterSetterBeforeReader(const std::string& globals, const std::string& section,
                                          const std::string& setter, const std::string& reader) {
    const std::string src = "#include <pthread.h>\n"
                            "void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);\n" +
                            globals +
                            "\nvoid *sec(void *arg) { __VERIFIER_atomic_begin(); " + section +
                            " __VERIFIER_atomic_end(); return 0; }\n"
                            "void *set(void *arg) { " + setter + " return 0; }\n"
                            "void *get(void *arg) { " + reader + " return 0; }\n"
                            "int main(void) {\n  pthread_t h[3];\n  pthread_create(&h[0], 0, set, 0);\n"
                            "  pthread_create(&h[1], 0, sec, 0);\n  pthread_create(&h[2], 0, get, 0);\n"
                            "  for (int i = 0; i < 3; i++) pthread_join(h[i], 0);\n  return 0;\n}\n";
    expectOneExecutionPerTrace(src, 3, 3, {"optimal", "k1", "sdpor"}, /*ssbFreeInEveryMode=*/true);
}
} // namespace

// A section whose run reads a word in one history and writes it in another, by what it reads elsewhere (y), gives
// each event its own run's accesses (SectionSite::runAccesses). The setter sets y first, so the section's first
// event only reads x, and the reader reads x after it: the section's sibling that writes x after that read (y still
// 0: final x = 1, y = 1, r2 = 0) was made by no walk — the section's walk was made before the read existed — until
// a new read of a word such an event reads placed that event's action again (siblingsAfterNewAccess).
// By hand, with dfs's events: the section before the setter's write, writing x, before or after the read; or after
// it, reading x: 3 traces, 3 final states.
TEST(QporSections, ASectionThatWritesOnlySometimesIsPlacedAfterALaterRead) {
    expectSectionAfterSetterBeforeReader("int x, y, r2 = -1;", "int t = x; if (y == 0) x = t + 1;", "y = 1;",
                                         "r2 = x;");
}

// A section whose runs read a word another run writes (x1) gives each event its run's accesses, and a run that leaves
// a word of the footprint alone (x0, when x2 is set) has no access to it (QporExplorer::runAccessesOf): the setter
// sets x2 first, so the section's first event writes x1 only, and the reader reads x0 after it; the section's
// sibling that writes x0 after that read (x2 still 0: final g = 0, x0 = 1) follows a read of x0 made after the event,
// which the event runs beside — placed when that read joins C (siblingsAfterNewAccess; before, the event read x0 to
// be found through x0's readers, which ordered it against x0's writes: sections_widened). By hand, with dfs's events:
// the section before the setter's write, writing x0 before or after the read; or after it, writing x1: 3 traces.
TEST(QporSections, ARunLeavesAWordAloneAndReadsIt) {
    expectSectionAfterSetterBeforeReader("int x0, x1, x2, g = -1;", "if (x2) x1 = 5; else x0 = x1 + 1;", "x2 = 1;",
                                         "g = x0;");
}

// A section that takes a mutex and releases it (t2's first) is one event whose label is its first action, the lock.
// The placements of an acquire after it were skipped as if the section left the mutex held, and the deadlock below —
// t2 runs through before t1 takes the mutex, sets `ready` back to 0, and t1 waits for a signal that never comes
// while main waits to join it — was found by no mode of qpor (the long differential run, seed 57142 at --alt=k1;
// reduced, optimal missed it too). By hand, with dfs's events: 6 traces.
TEST(QporSections, AnAcquireIsPlacedAfterASectionThatReleasesItsMutex) {
    const std::string src = R"(#include <pthread.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);
int x0, x1;
pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;
void *t1(void *arg) {
  pthread_mutex_lock(&cm); if (ready == 0) pthread_cond_wait(&cv, &cm); pthread_mutex_unlock(&cm);
  return 0;
}
void *t2(void *arg) {
  __VERIFIER_atomic_begin(); pthread_mutex_lock(&cm); ready = 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&cm); __VERIFIER_atomic_end();
  __VERIFIER_atomic_begin(); if (x0 == 1) x1 = 2; else x0 = 3; __VERIFIER_atomic_end();
  pthread_mutex_lock(&cm); while (ready == 0) pthread_cond_wait(&cv, &cm); ready = 0; pthread_mutex_unlock(&cm);
  return 0;
}
int main(void) {
  pthread_t h[3];
  pthread_create(&h[1], 0, t1, 0);
  pthread_create(&h[2], 0, t2, 0);
  __VERIFIER_atomic_begin(); pthread_join(h[1], 0); x0 = x0 + 1; __VERIFIER_atomic_end();
  return 0;
})";
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(dfs.stats.mazurkiewiczTraces, 6u);
    ASSERT_EQ(errorSet(dfs), (std::set<std::string>{"deadlock@20"}));
    o.algorithm = "qpor";
    for (const char* alt : {"optimal", "k1", "k2", "sdpor"}) {
        SCOPED_TRACE(alt);
        o.explore.alt = alt;
        const auto q = checkSource(src, o);
        EXPECT_EQ(errorSet(q), errorSet(dfs));
        if (std::string(alt) == "optimal") {
            EXPECT_EQ(q.stats.executions + q.stats.blocked, 6u);
            EXPECT_EQ(q.stats.ssb, 0u);
        }
    }
}

// A nondet value inside a section: the run that draws 0 writes x0 only, the other reads x1 as well. Each run's event
// has its own accesses — once, every event of a site with several runs at one history carried the footprint, and
// the run that leaves x1 alone was ordered against the setter's write of x1 all the same (4 executions; 39 of the
// 831 programs of the default differential run explored more executions than dfs counts traces, most of them so).
// Whichever runs first, the sibling that reads x1 after the setter's write is placed when the later of the two joins
// C (siblingsAfterNewAccess). By hand, with dfs's events: the run that draws 0 commutes with the setter, 1 trace; the
// other reads x1 before or after its write, 2 — 3 traces, final x0 = 2, 3 or 4.
TEST(QporSections, ANondetRunThatLeavesAWordAloneCommutesWithItsWrites) {
    for (const char* first : {"set", "sec"}) {
        SCOPED_TRACE(std::string(first) + " created first");
        const std::string other = std::string(first) == "set" ? "sec" : "set";
        const std::string src = R"(#include <pthread.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);
int x0, x1;
void *sec(void *arg) {
  __VERIFIER_atomic_begin(); int r = __VERIFIER_nondet_int(); if (r) x0 = x1 + 3; else x0 = 2; __VERIFIER_atomic_end();
  return 0;
}
void *set(void *arg) { x1 = 1; return 0; }
int main(void) {
  pthread_t h[2];
  pthread_create(&h[0], 0, )" + std::string(first) + R"(, 0);
  pthread_create(&h[1], 0, )" + other + R"(, 0);
  pthread_join(h[0], 0);
  pthread_join(h[1], 0);
  return 0;
})";
        expectOneExecutionPerTrace(src, 3, 3, {"optimal", "k1", "sdpor"}, /*ssbFreeInEveryMode=*/false);
    }
}

// A compare-exchange whose parent is a section's event reads what the section's run left in the word: after the
// section (x = 5) both compare-exchanges fail and commute, as two reads. Until the eighteenth session a section's
// event told no value (only its first action is its label), so each compare-exchange after it was a write and
// optimal ordered the two both ways (6 executions, cas_unknown set). By hand, with dfs's events: the section first,
// then both fail and commute: 1; c2 first, winning, then c3 fails reading c2's value before the section or the
// section's after it: 2; c3 first: 2 — 5 traces, final (r2, r3) = (0, 0), (1, 0), (0, 1).
TEST(QporSections, ACompareExchangeReadsTheValueASectionLeft) {
    const std::string src = R"(#include <pthread.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);
int x, y, r2, r3;
void *sec(void *arg) { __VERIFIER_atomic_begin(); y = 1; x = 5; __VERIFIER_atomic_end(); return 0; }
void *c2(void *arg) { r2 = __sync_bool_compare_and_swap(&x, 0, 1); return 0; }
void *c3(void *arg) { r3 = __sync_bool_compare_and_swap(&x, 0, 2); return 0; }
int main(void) {
  pthread_t h[3];
  pthread_create(&h[0], 0, sec, 0);
  pthread_create(&h[1], 0, c2, 0);
  pthread_create(&h[2], 0, c3, 0);
  for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
  return 0;
})";
    skein::test::Options o;
    o.algorithm = "dfs";
    o.explore.detectRaces = false;
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, 5u);
    ASSERT_EQ(dfs.stats.finalStates, 3u);
    o.algorithm = "qpor";
    const auto q = checkSource(src, o);
    EXPECT_EQ(q.stats.executions, 5u);
    EXPECT_EQ(q.stats.finalStates, 3u);
    EXPECT_EQ(q.stats.ssb, 0u);
    EXPECT_EQ(q.stats.extra.at("cas_unknown"), 0.0);
}

// A section with many runs at one history: six nondet bits drawn inside it, 64 runs, each writing x its value; a
// second thread's section reads x. By hand, with dfs's events: the reader after the writer, 64 traces (y = x = v);
// before it, 64 (y = 0, x = v) — 128 traces, 127 final states ((0, 0) is both). The 64 runs are siblings, each an
// explored maximal configuration: where each sibling had the section's runs executed again — to make en(C) at every
// choice of the node, and to place the reader before it — qpor executed 257 × 64 runs (quadratic: eight bits took
// 0.5 s where dfs takes 24 ms, ten bits minutes). Now a node's en(C) is reused while the sections' sites know the
// same, and a placement's runs are executed once at its history: five times the runs.
TEST(QporSections, ASectionsRunsAreExecutedOncePerHistory) {
    const std::string src = R"(#include <pthread.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); _Bool __VERIFIER_nondet_bool(void);
int x, y;
void *writer(void *arg) {
  __VERIFIER_atomic_begin();
  int v = 0;
  for (int i = 0; i < 6; i++) v = 2 * v + __VERIFIER_nondet_bool();
  x = v;
  __VERIFIER_atomic_end();
  return 0;
}
void *reader(void *arg) { __VERIFIER_atomic_begin(); y = x; __VERIFIER_atomic_end(); return 0; }
int main(void) {
  pthread_t h[2];
  pthread_create(&h[0], 0, writer, 0);
  pthread_create(&h[1], 0, reader, 0);
  pthread_join(h[0], 0);
  pthread_join(h[1], 0);
  return 0;
})";
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    skein::test::expectCompleteExploration(dfs, skein::report::Verdict::Safe, {}, dfs.stats.executions, 127);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, 128u);
    o.algorithm = "qpor";
    const auto q = checkSource(src, o);
    skein::test::expectCompleteExploration(q, skein::report::Verdict::Safe, {}, 128, 127);
    EXPECT_EQ(q.stats.ssb, 0u);
    EXPECT_LE(q.stats.extra.at("section_runs"), 8.0 * 64); // 5 × 64 + 1 now; 257 × 64 before
    EXPECT_GE(q.stats.extra.at("section_runs"), 2.0 * 64); // at least both orders' en(C) ran them all
    // The next run is the alternative after each one explored, without the comb (Alternatives.cpp), whose spike of
    // a run held all 64 of them: 64 × 64 spike events before, 1 now.
    EXPECT_LE(q.stats.extra.at("comb_spike_events"), 64.0);
}

// A section that reads, placed without replay (one run wherever it is, the same accesses), stores a value that depends
// on where it is placed: t1's `x1 = x0 + 1` stores 1 before main's section and 2 after it. Its placement before main's
// section once took over the values of the event it was placed from, and a compare-exchange of x1 placed after it was
// taken to fail where it succeeds — "internal: a compare-exchange taken to fail succeeded", the long differential run
// with everything in sections, seed 20262062. By hand, with dfs's events: t1's section before or after main's (2) times
// the order of x1's three accesses — t0's write, t1's section, t2's compare-exchange (6) — 12 traces; final
// (x1, r) = (2, 1), (3, 1), (1, 0), (2, 0), (3, 0): 5.
TEST(QporSections, APlacedSectionThatReadsStoresItsOwnValues) {
    const std::string src = R"(#include <pthread.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);
int x0, x1, r;
void *t0(void *arg) { x1 = 3; return 0; }
void *t1(void *arg) { __VERIFIER_atomic_begin(); x1 = x0 + 1; __VERIFIER_atomic_end(); return 0; }
void *t2(void *arg) { r = __sync_bool_compare_and_swap(&x1, 1, 2); return 0; }
int main(void) {
  pthread_t h[3];
  pthread_create(&h[0], 0, t0, 0);
  pthread_create(&h[1], 0, t1, 0);
  pthread_create(&h[2], 0, t2, 0);
  __VERIFIER_atomic_begin(); x0 = 1; __VERIFIER_atomic_end();
  for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
  return 0;
})";
    skein::test::Options o;
    o.explore.detectRaces = false;
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, 12u);
    ASSERT_EQ(dfs.stats.finalStates, 5u);
    o.algorithm = "qpor";
    for (const char* mode : {"optimal", "k2", "sdpor"}) {
        SCOPED_TRACE(mode);
        o.explore.alt = mode;
        const auto q = checkSource(src, o);
        ASSERT_FALSE(q.explorerLimit) << *q.explorerLimit;
        skein::test::expectCompleteExploration(q, skein::report::Verdict::Safe, {}, q.stats.executions, 5);
        EXPECT_GE(q.stats.executions, 12u);
        if (std::string(mode) == "optimal") {
            EXPECT_EQ(q.stats.executions, 12u);
        }
    }
}

// The time of attempts that were started over (a section site learned more after events were made with it) is its own
// figure, ms_restarted, out of the phases of the attempt that finished: the six add up to elapsed_ms.
// `late` writes x only after five other stores — past the look ahead's four actions — and the section, which wrote y
// where x == 0, writes z after it: the exploration starts over once. A program without sections never does, and its
// ms_restarted is 0.
TEST(QporSections, TheTimeOfAttemptsStartedOverIsReportedApart) {
    const char* src = R"(
#include <pthread.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int x, y, z, w;
void *sect(void *a) {
  __VERIFIER_atomic_begin();
  if (x == 0) y = 1; else z = 1;
  __VERIFIER_atomic_end();
  return 0;
}
void *late(void *a) {
  w = 1; w = 2; w = 3; w = 4; w = 5;
  x = 1;
  return 0;
}
int main() {
  pthread_t s, l;
  pthread_create(&s, 0, sect, 0);
  pthread_create(&l, 0, late, 0);
  pthread_join(s, 0);
  pthread_join(l, 0);
  return 0;
}
)";
    auto phases = [](const skein::report::CheckResult& r) {
        double sum = 0;
        for (const char* k : {"ms_restarted", "ms_execute", "ms_extensions", "ms_comb", "ms_cex", "ms_other"})
            sum += r.stats.extra.at(k);
        return sum;
    };
    skein::test::Options o;
    o.algorithm = "qpor";
    o.explore.detectRaces = false;
    const auto restarted = checkSource(src, o);
    EXPECT_EQ(restarted.stats.executions, 2u); // the section before or after x = 1
    EXPECT_EQ(restarted.stats.finalStates, 2u);
    EXPECT_EQ(restarted.stats.extra.at("section_restarts"), 1.0);
    EXPECT_GT(restarted.stats.extra.at("ms_restarted"), 0.0);
    EXPECT_LT(restarted.stats.extra.at("ms_restarted"), restarted.stats.elapsedMs);
    EXPECT_NEAR(phases(restarted), restarted.stats.elapsedMs, 1e-9 * restarted.stats.elapsedMs);
    const auto plain = checkSource(skein::test::sourceFile("examples/lost_update.c"), o);
    EXPECT_EQ(plain.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(plain.stats.extra.at("ms_restarted"), 0.0);
    EXPECT_NEAR(phases(plain), plain.stats.elapsedMs, 1e-9 * plain.stats.elapsedMs);
}

// A site's first start looks ahead at the other threads' next actions that write what its runs touched
// (lookAheadOfSite): what a later start would teach it and start the exploration over for is learnt before any event
// is made. section_footprint.c: t1's section reads x == 0 and writes z at the root; t2's next action writes x, and
// the section after it writes y — learnt at the root, so the exploration does not start over (it did once), with the
// same 3 executions for dfs's 3 traces. assume_lock_nojoin.c: the other worker's acquire takes the assume-lock first,
// and this one's then blocks (the site may block). nondet_section_loop.c: b's section (`if (x > i) y = y + 1`) is
// probed after a's section along the run that increments x (a nondet value picks it), and learns y; its first run,
// which read x only, is then narrower than the footprint — so each event has its own run's accesses at once (it
// started over when such a run came again). free_in_section.c: the producer publishes its node in a section after
// a calloc and a store that touch nothing the consumer's section read (`ready`): the look ahead runs those and the
// section, and the consumer's section after them reads `head` and the node, writes `got` and frees (it started over
// once, until the fortieth session). The count is of probes made (a start kept already is not one).
TEST(QporSections, ASiteLooksAheadAtOtherThreadsBeforeItsFirstEvent) {
    skein::test::Options o;
    o.algorithm = "qpor";
    o.explore.detectRaces = false;
    const auto footprint = checkSource(skein::test::sourceFile("tests/corpus/svcomp/section_footprint.c"), o);
    EXPECT_EQ(footprint.stats.executions, 3u);
    EXPECT_EQ(footprint.stats.ssb, 0u);
    EXPECT_EQ(footprint.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(footprint.stats.extra.at("section_lookaheads"), 1.0);
    EXPECT_EQ(footprint.stats.extra.at("section_runs"), 2.0); // x == 0 (z) at the root, x == 1 (y) after t2
    const auto lock = checkSource(skein::test::sourceFile("tests/corpus/svcomp/assume_lock_nojoin.c"), o);
    EXPECT_EQ(lock.stats.executions, 2u);
    EXPECT_EQ(lock.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(lock.stats.extra.at("section_lookaheads"), 1.0);
    const auto loop = checkSource(skein::test::sourceFile("tests/corpus/svcomp/nondet_section_loop.c"), o);
    EXPECT_EQ(loop.stats.executions, 63u); // dfs's traces (its header)
    EXPECT_EQ(loop.stats.ssb, 0u);
    EXPECT_EQ(loop.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(loop.stats.extra.at("section_lookaheads"), 1.0);
    const auto later = checkSource(skein::test::sourceFile("tests/corpus/svcomp/free_in_section.c"), o);
    EXPECT_EQ(later.stats.executions, 2u); // dfs's traces (its header)
    EXPECT_EQ(later.stats.ssb, 0u);
    EXPECT_EQ(later.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(later.stats.extra.at("section_lookaheads"), 1.0);
    // A thread the look ahead's actions create that starts at the site too is probed there, and after the site's
    // first section: children_numbered_alike.c's second worker creates a child whose run, after the first worker's
    // child wrote x0, writes x1 (it started over, until the forty-first session).
    const auto child = checkSource(skein::test::sourceFile("tests/corpus/threads/children_numbered_alike.c"), o);
    EXPECT_EQ(child.stats.executions, 6u); // dfs's traces (its header)
    EXPECT_EQ(child.stats.ssb, 0u);
    EXPECT_EQ(child.stats.finalStates, 2u);
    EXPECT_EQ(child.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(child.stats.extra.at("section_lookaheads"), 2.0);
}


// At a maximal configuration, each thread still able to enter a section all of whose runs block goes into it until
// it blocks (blockedSectionFinals): every way in gives a final state where main has exited — here each waiter stores
// a nondet value before it waits, and the other never enters (a blocked section lets no other thread run): a ∈ {0, 1}
// with b == 5, or b ∈ {0, 1} with a == 5 — 4 final states, as dfs finds. The walk steps the executor itself for the
// last waiter and a copy for the first. The nondet domain is sampled, so the verdict is bounded, as dfs's (qpor said
// "safe" until the fortieth session: the walk's draws were not noted).
TEST(QporSections, EveryWayIntoABlockedSectionAfterMainsExitIsAFinalState) {
    const char* src = R"(
#include <pthread.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int __VERIFIER_nondet_int(void);
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready, a = 5, b = 5;
void *waiter(void *arg) {
  __VERIFIER_atomic_begin();
  *(int *)arg = __VERIFIER_nondet_int();
  pthread_mutex_lock(&m);
  while (ready == 0) pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  __VERIFIER_atomic_end();
  return 0;
}
int main() {
  pthread_t x, y;
  pthread_create(&x, 0, waiter, &a);
  pthread_create(&y, 0, waiter, &b);
  return 0;
}
)";
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    EXPECT_EQ(dfs.verdict, skein::report::Verdict::Bounded);
    EXPECT_EQ(dfs.stats.finalStates, 4u);
    o.algorithm = "qpor";
    const auto q = checkSource(src, o);
    EXPECT_EQ(q.verdict, skein::report::Verdict::Bounded);
    EXPECT_EQ(q.stats.executions, 1u); // one maximal configuration, complete once the waiters block
    EXPECT_EQ(q.stats.blocked, 0u);
    EXPECT_EQ(q.stats.finalStates, 4u);
}

// An attempt that is started over found real errors (each in an execution of the program): the next one meets them
// again without reporting them anew (QporExplorer::Carried). Here the consumer's first action is `racy = 2`, so its
// section first starts once the producer has run to its end (ready == 1: it reads head and *n, frees); its run at an
// earlier history, where it reads ready == 0 only, is learnt after the first attempt's first execution has found the
// race on `racy` — and the exploration starts over. traces (derived): the consumer's section before the producer's, or
// after it with `racy = 1` before or after `racy = 2` (the section's write-free run commutes with them): 3, each with
// the race. The observer hears of it once, and it counts the kept attempt's 3 executions. Before the thirty-ninth
// session every attempt had its own collector: the race was streamed twice.
TEST(QporSections, ARestartReportsTheErrorsFoundBeforeItOnce) {
    const char* src = R"(
#include <pthread.h>
#include <stdlib.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int *head;
_Bool ready;
int got = -1;
int racy;
void __VERIFIER_atomic_take(void) {
    if (ready) {
        int *n = head;
        got = *n;
        head = 0;
        ready = 0;
        free(n);
    }
}
void *producer(void *arg) {
    int *n = calloc(1, sizeof(int));
    *n = 7;
    __VERIFIER_atomic_begin();
    head = n;
    ready = 1;
    __VERIFIER_atomic_end();
    racy = 1;
    return 0;
}
void *consumer(void *arg) {
    racy = 2;
    __VERIFIER_atomic_take();
    return 0;
}
int main(void) {
    pthread_t p, c;
    pthread_create(&p, 0, producer, 0);
    pthread_create(&c, 0, consumer, 0);
    pthread_join(p, 0);
    pthread_join(c, 0);
    return 0;
}
)";
    struct Counting : skein::explore::Observer {
        size_t errors = 0;
        void onError(const skein::report::ErrorReport&) override { ++errors; }
    } observer;
    auto compiled = skein::frontend::compile({"restart.c", src, {}});
    ASSERT_TRUE(compiled);
    auto prog = skein::program::lower(*compiled);
    ASSERT_TRUE(prog);
    const skein::explore::ExploreOptions o;
    const auto r = skein::explore::findExplorer("qpor")->run(*prog, o, &observer);
    EXPECT_EQ(r.stats.extra.at("section_restarts"), 1.0);
    EXPECT_EQ(r.stats.executions, 3u);
    EXPECT_EQ(r.stats.ssb, 0u);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(observer.errors, 1u);
    EXPECT_EQ(r.errors[0].kind, skein::report::ErrorKind::DataRace);
    EXPECT_EQ(r.errors[0].occurrences, 3u); // the kept attempt's executions, each with the race
    EXPECT_FALSE(r.errors[0].trace.empty());
}
