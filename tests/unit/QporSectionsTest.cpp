// SV-COMP atomic sections under qpor: a section is one action whose event carries its site's footprint, the union
// of the accesses of its runs (core/explore/unfolding/DESIGN.md). Where that union is more than a run touched, the
// independence is coarser than dfs's and qpor reports it (`sections_widened`): optimal then explores at least one
// execution per Mazurkiewicz trace rather than exactly one (tests/unit/DifferentialTest.cpp relies on the flag).
#include <set>
#include <string>

#include <gtest/gtest.h>

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
// In the second trace t0's section read hp[0] and failed before writing it, but its event carries the footprint of
// the run that writes: so qpor orders it against R's read both ways, and explores that trace twice. Found by the
// long differential run (seed 92659 and others: optimal 5 executions against 4 traces, the flag 0). Before the flag
// compared modes, it compared only how many resources a run touched.
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

TEST(QporSections, AFailedRunThatWritesLessIsAWidenedSection) {
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(kFailingSectionThatWritesElsewhere, o);
    ASSERT_EQ(dfs.stats.mazurkiewiczTraces, 2u);
    ASSERT_EQ(errorSet(dfs), (std::set<std::string>{"memory@7", "memory@13"}));
    o.algorithm = "qpor";
    const auto q = checkSource(kFailingSectionThatWritesElsewhere, o);
    EXPECT_EQ(errorSet(q), errorSet(dfs));
    ASSERT_TRUE(q.stats.extra.count("sections_widened"));
    EXPECT_EQ(q.stats.extra.at("sections_widened"), 1.0);
    EXPECT_EQ(q.stats.executions + q.stats.blocked, 3u); // the second trace twice, as above
    EXPECT_EQ(q.stats.ssb, 0u);
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
