// How qpor learns an SV-COMP atomic section's runs without running it at every start (core/explore/unfolding/
// DESIGN.md, "Learning a section's runs cheaply"): the inputs its runs are kept by — values read, a mutex's state, a
// join's, an object's a run frees — counted by hand, each with the wrong result it gave while left out; and what a
// section event's siblings need placing after a new event of C beside it (QporExplorer::siblingsAfterNewAccess).
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

using skein::test::checkSource;

// A section's mutex operations answer from the mutex's state, an input of its runs like a value read
// (Executor::mutexInput): runs probed where the mutex was free are not taken where another thread holds it.
// `sect`'s section stores w, then locks m and reads x; `plain` writes x under m and then z. At the root the section
// runs (m free, x == 0); after plain's lock, with x still 0 and the section's first step enabled, it blocks midway.
// traces (derived): the section before plain's critical section (y == 1) or after it (y == 2) — w's and z's writes
// commute with the rest — 2, as dfs counts; the assertion holds in both (y == 1, or z == 1 once main has joined
// plain). With the mutex's state left out of the inputs, the root's runs were taken where m is held, and qpor
// explored no complete execution (verdict bounded). A section waiting in a cond_wait blocks
// whatever other threads do (none runs while it waits inside it): section_blocks_after_exit.c's waiter, probed at the
// root, is taken from probeCache_ at the next C (it was probed again there, its inputs unknown, until the fortieth
// session).
TEST(QporSections, AMutexIsAnInputOfTheRunsThatUseIt) {
    const char* src = R"(
#include <pthread.h>
#include <assert.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x, y, z, w;
void *plain(void *arg) {
  pthread_mutex_lock(&m);
  x = 1;
  pthread_mutex_unlock(&m);
  z = 1;
  return 0;
}
void *sect(void *arg) {
  __VERIFIER_atomic_begin();
  w = 1;
  pthread_mutex_lock(&m);
  y = x + 1;
  pthread_mutex_unlock(&m);
  __VERIFIER_atomic_end();
  return 0;
}
int main() {
  pthread_t p, s;
  pthread_create(&p, 0, plain, 0);
  pthread_create(&s, 0, sect, 0);
  pthread_join(p, 0);
  pthread_join(s, 0);
  assert(y == 1 || z == 1);
  return 0;
}
)";
    skein::test::Options o;
    o.explore.detectRaces = false;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    EXPECT_EQ(dfs.verdict, skein::report::Verdict::Safe);
    EXPECT_EQ(dfs.stats.mazurkiewiczTraces, 2u);
    o.algorithm = "qpor";
    const auto q = checkSource(src, o);
    EXPECT_EQ(q.verdict, skein::report::Verdict::Safe);
    EXPECT_EQ(q.stats.executions, 2u);
    EXPECT_EQ(q.stats.ssb, 0u);
    EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
    EXPECT_GT(q.stats.extra.at("section_runs_cached"), 0.0); // the cache is in play: its key must tell m's state
    const auto waiter = checkSource(skein::test::sourceFile("tests/corpus/svcomp/section_blocks_after_exit.c"), o);
    EXPECT_EQ(waiter.stats.executions, 1u);
    EXPECT_EQ(waiter.stats.finalStates, 1u);
    EXPECT_EQ(waiter.stats.extra.at("section_runs_cached"), 1.0);
}

// A run that waits in a join inside a section waits for the joined thread's end, which only the state it started in
// tells (inside a section no other thread runs): Executor::joinState is an input of its runs, as a mutex's state is.
// join_in_section.c's main draws n, then joins c inside its section: at every C before c ends its runs wait, and they
// are taken from probeCache_ rather than probed again (section_runs_cached 13; 3 before the forty-first session,
// when a run waiting for a thread left its inputs unknown). With the join's state left out of the inputs (every
// state alike), the waiting runs were taken after c's end too, and qpor explored no execution where main's section
// completes: no error, verdict bounded.
TEST(QporSections, AJoinARunWaitsInIsAnInputOfItsRuns) {
    skein::test::Options o;
    o.explore.detectRaces = false;
    o.algorithm = "qpor";
    const auto q = checkSource(skein::test::sourceFile("tests/corpus/svcomp/join_in_section.c"), o);
    EXPECT_EQ(q.verdict, skein::report::Verdict::Error);
    EXPECT_EQ(q.stats.executions, 6u); // dfs's 6 traces
    EXPECT_EQ(q.stats.ssb, 0u);
    EXPECT_EQ(q.stats.finalStates, 2u);
    EXPECT_GE(q.stats.extra.at("section_runs_cached"), 10.0);
}

// How a section's runs are learned (DESIGN.md "Learning a section's runs cheaply"), counted by hand.
// cas_in_section.c -DWINS: each of the three workers' section is a compare-exchange of x expecting 0 (it wins and
// writes won[id]) in one of two states — x == 0 or x == 1 — and its thread's state is the same wherever it starts
// (its first event): 3 threads × 2 values = 6 probes; every other start of a section is known by the value of x
// there (a cached start) — also the starts the look ahead at the site's first start probes (lookAheadOfSite: the
// other two workers at the root, and thread 1 after thread 2's section, where x == 1). That look ahead shows the
// site its failed runs and the other workers' words won[id] before any event is made with it: no restart (until the
// thirty-ninth session, the first failed run started the exploration over).
TEST(QporSections, ARunIsProbedOncePerThreadStateAndValuesRead) {
    skein::test::Options o = skein::test::withFlag("-DWINS", "qpor");
    const auto wins = checkSource(skein::test::sourceFile("tests/corpus/svcomp/cas_in_section.c"), o);
    EXPECT_EQ(wins.stats.executions, 3u);
    EXPECT_EQ(wins.stats.ssb, 0u);
    EXPECT_EQ(wins.stats.extra.at("section_runs"), 6.0);
    EXPECT_GT(wins.stats.extra.at("section_runs_cached"), 0.0);
    EXPECT_EQ(wins.stats.extra.at("section_restarts"), 0.0);
    EXPECT_EQ(wins.stats.extra.at("section_lookaheads"), 1.0); // (the other two at the root: kept for en(C))
    // section_snapshot.c: the writer's 24 sections each store one word and read nothing, so its thread learns
    // nothing and its state at each section is fixed by the section's position: one probe per position, 24,
    // whichever of its events (one per place of main's reading section among its writes) comes before. Main's
    // section reads the twelve words: one probe per snapshot it can see, 25. Its site learns a word per iteration
    // without starting over (its runs read nothing: each event has its own run's accesses wherever it is).
    o = skein::test::withAlgorithm("qpor");
    const auto snapshot = checkSource(skein::test::sourceFile("tests/corpus/svcomp/section_snapshot.c"), o);
    EXPECT_EQ(snapshot.stats.executions, 25u);
    EXPECT_EQ(snapshot.stats.ssb, 0u);
    EXPECT_EQ(snapshot.stats.extra.at("section_runs"), 24.0 + 25.0);
    EXPECT_EQ(snapshot.stats.extra.at("section_restarts"), 0.0);
    // join_in_section.c: main's section joins c; its runs are kept with c's return value as an input (a join that
    // completes), so a start where c has finished with the same result takes them without a probe (before the
    // thirty-ninth session a join left the inputs unknown: nothing was kept, 16 probes).
    o.explore.detectRaces = false;
    const auto join = checkSource(skein::test::sourceFile("tests/corpus/svcomp/join_in_section.c"), o);
    EXPECT_EQ(join.stats.executions, 6u);
    EXPECT_EQ(join.stats.ssb, 0u);
    EXPECT_GT(join.stats.extra.at("section_runs_cached"), 0.0);
    EXPECT_LT(join.stats.extra.at("section_runs"), 16.0);
}

// A new event n of C that reads a word a section event a of C beside it reads, from the same write, has a's siblings
// placed after it (siblingsAfterNewAccess) — unless the runs at a's history read nothing but such words and none of
// them writes one (siblingsFixedBy): every sibling whose history holds n is then one of those runs with n in neither
// its parents nor its causes, an event made before. cas_in_section.c -DWINS: the second loser's compare-exchange
// reads x as the first's did, and every run from there reads only x and fails: three walks spared, each of which,
// made under the cross-check, makes no event. A section that reads x in one run and writes it in another (a nondet
// choice, so both at every history) has its writing sibling placed after the reader: with that sibling spared, qpor
// found 2 of the 3 final states (traces by hand: the write before or after the read, or the run that reads).
TEST(QporSections, SiblingsAfterAReadOfWhatTheSectionReadArePlacedWhenARunCanDiffer) {
    skein::test::Options o = skein::test::withFlag("-DWINS", "qpor");
    const auto wins = checkSource(skein::test::sourceFile("tests/corpus/svcomp/cas_in_section.c"), o);
    EXPECT_EQ(wins.stats.executions, 3u);
    EXPECT_EQ(wins.stats.extra.at("sibling_walks_skipped"), 3.0);
    o.explore.qporCrossCheck = true;
    const auto checked = checkSource(skein::test::sourceFile("tests/corpus/svcomp/cas_in_section.c"), o);
    EXPECT_EQ(checked.stats.executions, 3u);
    EXPECT_EQ(checked.stats.extra.at("cross_checks_siblings"), 3.0);
    EXPECT_EQ(checked.stats.extra.at("cross_check_failures"), 0.0);
    const std::string src = R"(#include <pthread.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);
int x, g = -1, r = -1;
void *sec(void *arg) {
  __VERIFIER_atomic_begin(); if (__VERIFIER_nondet_int()) x = 1; else g = x; __VERIFIER_atomic_end(); return 0;
}
void *get(void *arg) { r = x; return 0; }
int main(void) {
  pthread_t a, b; pthread_create(&a, 0, sec, 0); pthread_create(&b, 0, get, 0);
  pthread_join(a, 0); pthread_join(b, 0); return 0;
}
)";
    o = skein::test::withAlgorithm("dfs");
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, 3u);
    ASSERT_EQ(*dfs.stats.finalStates, 3u);
    o.algorithm = "qpor";
    const auto q = checkSource(src, o);
    EXPECT_EQ(q.stats.executions, 3u);
    EXPECT_EQ(*q.stats.finalStates, 3u);
    EXPECT_EQ(q.stats.extra.at("sibling_walks_skipped"), 0.0);
}

// A free() inside a section answers from the state of the object it frees (Executor::objectState): whether it is
// alive, its size — an input of its runs like a value read, so that runs probed where the object was alive are not
// taken where it is freed (before the forty-second session a free left the inputs unknown, and every start of such
// a section was probed). Two threads each free p in a section and then set x; a third reads x. Each freer's section
// reads p, frees it and writes x where the object is alive, and stops at the double free where it is not: its
// thread's state is the same at both starts, and so is p's value. traces (dfs): 4. With the object's liveness left
// out of its state, the first free's run was taken for the second: 6 executions. free_race_in_section.c (the same
// with a reader whose section reads p[0]) probes 9 starts of 17 (16 of 16 before).
TEST(QporSections, AnObjectAFreeInsideFreesIsAnInputOfItsRuns) {
    const std::string src = R"(#include <pthread.h>
#include <stdlib.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void);
int *p;
int x, r = -1;
void *f(void *a) { __VERIFIER_atomic_begin(); free(p); x = 1; __VERIFIER_atomic_end(); return 0; }
void *g(void *a) { r = x; return 0; }
int main() {
  pthread_t a, b, c;
  p = malloc(sizeof(int));
  pthread_create(&a, 0, f, 0); pthread_create(&b, 0, f, 0); pthread_create(&c, 0, g, 0);
  pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0);
  return 0;
}
)";
    skein::test::Options o;
    o.explore.detectRaces = false;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(dfs.stats.mazurkiewiczTraces, 4u);
    o.algorithm = "qpor";
    const auto q = checkSource(src, o);
    EXPECT_EQ(q.verdict, dfs.verdict);
    ASSERT_EQ(q.errors.size(), 1u); // the double free
    EXPECT_EQ(q.errors[0].kind, skein::report::ErrorKind::Memory);
    EXPECT_EQ(q.stats.executions, 4u);
    EXPECT_EQ(q.stats.ssb, 0u);
    EXPECT_GT(q.stats.extra.at("section_runs_cached"), 0.0); // the cache is in play: its key must tell p's state
    const auto race = checkSource(skein::test::sourceFile("tests/corpus/svcomp/free_race_in_section.c"),
                                  skein::test::withAlgorithm("qpor"));
    EXPECT_EQ(race.stats.executions, 6u);
    EXPECT_EQ(race.stats.extra.at("section_runs"), 9.0);
    EXPECT_EQ(race.stats.extra.at("section_runs_cached"), 8.0);
}
