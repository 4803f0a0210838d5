// Differential test of the vhb explorer (issue 4) against the dfs oracle on random small programs: the same
// errors, the same final states, and never more classes than dfs counts Mazurkiewicz traces (a class is a set
// of executions whose threads observe the same values, a union of Mazurkiewicz traces). The programs are those
// of DifferentialTest.cpp (atomic sections included) and, in a second test, the same family with condition
// variables and a heap object that threads may free. SKEIN_VHB_DIFF_PROGRAMS=N runs N programs per test
// (defaults 1000 and 400); SKEIN_VHB_DIFF_SEED picks the first seed.
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "core/explore/vhb/Vhb.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"
#include "tests/unit/RandomPrograms.h"

namespace {

using skein::testing::errorSet;
using skein::testing::Generator;
using skein::testing::envNumber;
using skein::testing::forEachSmallProgram;
using skein::testing::GeneratorFlags;

// Runs `programs` random programs made with `flags` under dfs and vhb and compares them.
void agreeWithDfs(GeneratorFlags flags, int programs, const char* what) {
    programs = int(envNumber("SKEIN_VHB_DIFF_PROGRAMS", programs));
    uint64_t classes = 0, traces = 0, strictlyFewer = 0, handedOver = 0;
    const int checked = forEachSmallProgram(
        flags, programs, uint32_t(envNumber("SKEIN_VHB_DIFF_SEED", 1)), 4000,
        [&](uint32_t, const std::string&, const skein::program::Program& prog, const skein::explore::ExploreOptions& o,
            const skein::report::CheckResult& dfs) {
            auto v = skein::explore::findExplorer("vhb")->run(prog, o, nullptr);
            // Two threads joining one thread (GeneratorFlags::threadApi): vhb does not order joins and hands the
            // program over (Executor::twoJoiners). Counted, not compared.
            if (v.explorerLimit && v.explorerLimit->find("join the same thread") != std::string::npos) {
                ++handedOver;
                return;
            }
            ASSERT_FALSE(v.explorerLimit) << *v.explorerLimit;
            ASSERT_FALSE(v.stoppedEarly);
            ASSERT_EQ(errorSet(v), errorSet(dfs));
            ASSERT_EQ(v.stats.finalStates, dfs.stats.finalStates);
            uint64_t c = uint64_t(v.stats.extra.at("classes"));
            ASSERT_LE(c, *dfs.stats.mazurkiewiczTraces);
            classes += c;
            traces += *dfs.stats.mazurkiewiczTraces;
            strictlyFewer += c < *dfs.stats.mazurkiewiczTraces;
        });
    std::printf("vhb differential (%s): %d programs checked; %llu classes against %llu Mazurkiewicz traces; fewer on "
                "%llu programs; %llu handed over (two joiners)\n",
                what, checked, (unsigned long long)classes, (unsigned long long)traces,
                (unsigned long long)strictlyFewer, (unsigned long long)handedOver);
    // A guard against a generator whose programs outgrow the oracle: a third at least (the thread API's programs,
    // with their children, are about half small enough, and a long run at another seed may dip under a half).
    EXPECT_GT(checked, programs / 3) << "a good part of the random programs must be small enough for the oracle";
    EXPECT_LT(handedOver, uint64_t(checked) / 4) << "most programs must be explored by vhb itself";
}

TEST(VhbDifferential, AgreesWithDfsOnRandomPrograms) {
    agreeWithDfs(GeneratorFlags{}, 1000, "atomic sections included"); // everything the default generator makes
}

// Library and mixed-size accesses (DESIGN.md "Multi-location accesses"): memcpy/memset of a struct and an array,
// strcpy/strcmp/strlen on a char buffer, char/short/int/long long accesses of one union, a byte written through a
// pointer cast into an int.
TEST(VhbDifferential, AgreesWithDfsWithCopiesAndMixedSizes) {
    GeneratorFlags flags;
    flags.memory = true;
    agreeWithDfs(flags, 400, "memcpy, memset, strcpy, strcmp, strlen, mixed sizes");
}

TEST(VhbDifferential, AgreesWithDfsWithConditionVariablesAndFree) {
    GeneratorFlags flags;
    flags.condVars = true;
    flags.heap = true;
    agreeWithDfs(flags, 400, "condition variables, heap, free");
}

// The same constructs inside SV-COMP atomic sections (DESIGN.md "Atomic sections"): the section is expanded on
// executor copies, each condition operation forced to every waiter set the node allows, each heap access or free
// to an object found alive or freed.
TEST(VhbDifferential, AgreesWithDfsWithConditionVariablesAndFreeInSections) {
    GeneratorFlags flags;
    flags.condVars = true;
    flags.heap = true;
    flags.syncInSections = true;
    agreeWithDfs(flags, 400, "condition variables, heap, free, inside atomic sections");
}

// Threads cut by an assume or a spin-assume on what they read: a node whose thread is cut by an event that
// only observed is a leaf (DESIGN.md "Cut threads end a node").
TEST(VhbDifferential, AgreesWithDfsWithAssumesAndSpins) {
    GeneratorFlags flags;
    flags.cuts = true;
    agreeWithDfs(flags, 600, "assumes and spin loops");
}

// Workers that call exit() (Skein ends only the calling thread; a join of it blocks for good), and main ending with
// exit(). vhb once took such a thread as finished for a join, and stopped with "a realisation did not replay".
TEST(VhbDifferential, AgreesWithDfsWithExits) {
    GeneratorFlags flags;
    flags.exits = true;
    agreeWithDfs(flags, 300, "exit() in workers and main");
}

// The rest of the thread API (GeneratorFlags::threadApi): trylocks, workers that create a child thread (joined or
// left running), pthread_exit() with or without a mutex held.
TEST(VhbDifferential, AgreesWithDfsWithTrylocksChildThreadsAndPthreadExit) {
    GeneratorFlags flags;
    flags.threadApi = true;
    agreeWithDfs(flags, 300, "trylocks, child threads, pthread_exit");
}

// Spin loops whose iterations try to change memory and may fail (trylock, exchange, compare-exchange): an iteration
// that changed nothing is cut, one that changed something is not.
TEST(VhbDifferential, AgreesWithDfsWithSpinLoopsOfFailedAttempts) {
    GeneratorFlags flags;
    flags.atomicSections = false;
    flags.cuts = true;
    flags.cas = true;
    flags.spinAttempts = true;
    agreeWithDfs(flags, 300, "trylock, exchange and compare-exchange spins");
}

TEST(VhbDifferential, AgreesWithDfsWithRecursiveAndErrorCheckingMutexes) {
    GeneratorFlags flags;
    flags.condVars = true;
    flags.threadApi = true;
    flags.mutexTypes = true;
    agreeWithDfs(flags, 300, "recursive and error-checking mutexes");
}

// The first pass alone (DESIGN.md "Critical sections run alone": reads inside a critical section that its own
// accesses decide are not choices): on a program without a data race it finds what dfs finds; on one with a race
// it finds a race (any: the full exploration then runs).
void firstPassAgreesWithDfs(GeneratorFlags flags, int programs, const char* what) {
    programs = int(envNumber("SKEIN_VHB_DIFF_PROGRAMS", programs));
    int racy = 0;
    auto hasRace = [](const skein::report::CheckResult& r) {
        for (auto& e : r.errors)
            if (e.kind == skein::report::ErrorKind::DataRace) return true;
        return false;
    };
    const int checked = forEachSmallProgram(
        flags, programs, uint32_t(envNumber("SKEIN_VHB_DIFF_SEED", 1)), 4000,
        [&](uint32_t, const std::string&, const skein::program::Program& prog, const skein::explore::ExploreOptions& o,
            const skein::report::CheckResult& dfs) {
            auto v = skein::explore::vhb::exploreSpans(prog, o, nullptr);
            ASSERT_FALSE(v.explorerLimit) << *v.explorerLimit;
            ASSERT_EQ(hasRace(v), hasRace(dfs));
            if (hasRace(dfs)) {
                ++racy;
                return;
            }
            ASSERT_EQ(errorSet(v), errorSet(dfs));
            ASSERT_EQ(v.stats.finalStates, dfs.stats.finalStates);
        });
    std::printf("vhb first pass (%s): %d programs checked, %d with a race\n", what, checked, racy);
    EXPECT_GT(checked, programs / 2);
}

TEST(VhbDifferential, FirstPassAgreesWithDfsOnRandomPrograms) {
    firstPassAgreesWithDfs(GeneratorFlags{}, 1000, "atomic sections included");
}

TEST(VhbDifferential, FirstPassAgreesWithDfsOnRaceFreePrograms) {
    GeneratorFlags flags;
    flags.locked = true;
    flags.atomicSections = false;
    firstPassAgreesWithDfs(flags, 400, "race free: every shared int under m0");
}

TEST(VhbDifferential, FirstPassAgreesWithDfsWithConditionVariablesCutsAndFree) {
    GeneratorFlags flags;
    flags.condVars = true;
    flags.heap = true;
    flags.cuts = true;
    firstPassAgreesWithDfs(flags, 400, "condition variables, heap, free, assumes, spin loops");
}

TEST(VhbDifferential, FirstPassAgreesWithDfsWithTimedConditionWaits) {
    GeneratorFlags flags;
    flags.condVars = true;
    flags.timedWaits = true;
    firstPassAgreesWithDfs(flags, 200, "condition variables with timed waits");
}

TEST(VhbDifferential, FirstPassAgreesWithDfsWithKeyDestructors) {
    GeneratorFlags flags;
    flags.keys = true;
    firstPassAgreesWithDfs(flags, 200, "thread-specific data with a destructor");
}

// A race no execution runs back to back (core/explore/vhb/DESIGN.md "Data races"): here (the random program of seed
// 555791) t1's section at line 24 writes x0 only when it reads x2 != 1, i.e. after t0 wrote x2 at line 15 — after
// t0's racing write of x0 at line 13. No synchronisation orders line 13 before line 24 (x2 is a plain int), so
// dfs's detector reports the race; vhb's first race search (the pair adjacent) cannot, its search with
// happens-before tracked must.
TEST(VhbDifferential, FindsARaceWhoseFirstThreadMustRunOn) {
    const std::string src = R"(#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);
int x0;
int x1;
int x2;
atomic_int a0, a1;
pthread_mutex_t m0 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
void *t0(void *arg) {
  x0 = 1;
  pthread_mutex_lock(&m0);
  x2 = x0 + 1;
  int r0 = __VERIFIER_nondet_int(); if (r0) x0 = 1;
  pthread_mutex_unlock(&m0);
  x2 = x0 + 1;
  return 0;
}
void *t1(void *arg) {
  __VERIFIER_atomic_begin(); x0 = x1 + 1; __VERIFIER_atomic_end();
  x2 = 1;
  __VERIFIER_atomic_begin(); if (x2 == 1) x1 = 2; else x0 = 3; __VERIFIER_atomic_end();
  return 0;
}
int main() {
  pthread_t h[2];
  pthread_create(&h[0], 0, t0, 0);
  pthread_create(&h[1], 0, t1, 0);
  pthread_join(h[0], 0);
  __VERIFIER_atomic_begin(); pthread_join(h[1], 0); x0 = x1 + 1; __VERIFIER_atomic_end();
  return 0;
}
)";
    auto compiled = skein::frontend::compile({"random.c", src, {}});
    ASSERT_TRUE(compiled);
    auto prog = skein::program::lower(*compiled);
    ASSERT_TRUE(prog);
    skein::explore::ExploreOptions o;
    auto dfs = skein::explore::findExplorer("dfs")->run(*prog, o, nullptr);
    auto v = skein::explore::findExplorer("vhb")->run(*prog, o, nullptr);
    ASSERT_FALSE(dfs.stoppedEarly);
    ASSERT_FALSE(v.stoppedEarly);
    ASSERT_EQ(errorSet(dfs).count("race@13-24"), 1u) << "the race dfs reports";
    EXPECT_EQ(errorSet(v), errorSet(dfs));
    EXPECT_GE(v.stats.extra.at("race_taint_searches"), 1.0);
    EXPECT_EQ(v.stats.finalStates, dfs.stats.finalStates);
}

} // namespace

namespace {

// --vhb-equivalence=paper against dfs and against the values mode on the same random programs (without SV-COMP
// atomic sections, which the paper mode refuses): the same errors and final states as dfs, and
// classes(values) ≤ classes(paper) ≤ Mazurkiewicz traces — the values equivalence is coarser than VHB, which is
// coarser than HB (Theorem 3.1). App. D optimisation 2 only skips classes whose events and values an explored
// one has, so the left inequality still holds. SKEIN_VHB_PAPER_DIFF_PROGRAMS=N (default 1000) and
// SKEIN_VHB_DIFF_SEED as above.
TEST(VhbDifferential, PaperModeAgreesWithDfsOnRandomPrograms) {
    const int programs = int(envNumber("SKEIN_VHB_PAPER_DIFF_PROGRAMS", 1000));
    GeneratorFlags flags;
    flags.atomicSections = false;
    uint64_t paperClasses = 0, valueClasses = 0, traces = 0;
    const int checked = forEachSmallProgram(
        flags, programs, uint32_t(envNumber("SKEIN_VHB_DIFF_SEED", 1)), 4000,
        [&](uint32_t, const std::string&, const skein::program::Program& prog, const skein::explore::ExploreOptions& o,
            const skein::report::CheckResult& dfs) {
            auto values = skein::explore::findExplorer("vhb")->run(prog, o, nullptr);
            ASSERT_FALSE(values.explorerLimit) << *values.explorerLimit;
            skein::explore::ExploreOptions po = o;
            po.vhbPaper = true;
            auto paper = skein::explore::findExplorer("vhb")->run(prog, po, nullptr);
            ASSERT_FALSE(paper.explorerLimit) << *paper.explorerLimit;
            ASSERT_FALSE(paper.stoppedEarly);
            ASSERT_EQ(errorSet(paper), errorSet(dfs));
            ASSERT_EQ(paper.stats.finalStates, dfs.stats.finalStates);
            const uint64_t p = uint64_t(paper.stats.extra.at("classes")), v = uint64_t(values.stats.extra.at("classes"));
            ASSERT_LE(p, *dfs.stats.mazurkiewiczTraces);
            ASSERT_LE(v, p);
            paperClasses += p;
            valueClasses += v;
            traces += *dfs.stats.mazurkiewiczTraces;
        });
    std::printf("vhb paper differential: %d programs checked; classes: %llu (values) <= %llu (paper) <= %llu "
                "(Mazurkiewicz traces)\n",
                checked, (unsigned long long)valueClasses, (unsigned long long)paperClasses,
                (unsigned long long)traces);
    EXPECT_GT(checked, programs / 2);
}

} // namespace
