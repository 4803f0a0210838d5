// A semaphore, reader-writer lock, barrier or mutex initialised once another thread exists (Events.def, SyncInit): the
// initialisation is an event, dependent with every operation on its object, so that the explorers order it with
// the other threads' operations. Before, it ran inside its thread's step, right after the thread's previous event:
// a post (a lock, an arrival) of another thread could never come before it, and the executions where the
// initialisation overwrites what that operation did were missed — dfs called a program that deadlocks safe.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// main creates a worker that posts, then initialises the semaphore to 0 and waits on it (the corpus program, whose
// header derives the counts): the post before the initialisation loses its unit and the wait blocks for good; 2
// Mazurkiewicz traces, one complete, one blocked. -DFIXED initialises it before the create.
const std::string kLateSemaphore = sourceFile("tests/corpus/threads/late_sem_init.c");

TEST(LateInit, SemaphoreInitialisedAfterCreateIsOrderedWithAPost) {
    const auto r = checkSource(kLateSemaphore);
    ASSERT_EQ(r.verdict, Verdict::Error);
    const auto* d = expectError(r, ErrorKind::Deadlock, lineOf(kLateSemaphore, "sem_wait(&ready)"));
    ASSERT_NE(d, nullptr);
    // The counterexample: the post, then the initialisation that loses its unit, then the wait that blocks.
    const std::vector<std::string> ops = operations(*d);
    const auto post = std::find(ops.begin(), ops.end(), "sem_post");
    const auto init = std::find(ops.begin(), ops.end(), "sem_init");
    ASSERT_NE(post, ops.end());
    ASSERT_NE(init, ops.end());
    EXPECT_LT(post, init);
    const uint32_t lateInitLine = lineOf(kLateSemaphore, "#ifndef FIXED\n    sem_init") + 1; // (the second sem_init)
    EXPECT_EQ(d->trace[size_t(init - ops.begin())].location.line, lateInitLine);
    EXPECT_EQ(d->trace[size_t(init - ops.begin())].detail, "count 0");
    EXPECT_EQ(r.stats.executions, 1u);
    EXPECT_EQ(r.stats.blocked, 1u);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 2u);
}

TEST(LateInit, SemaphoreInitialisedBeforeAnyThreadIsNoEvent) {
    // Before the create no other thread can see the initialisation: no event, one trace (post before the wait).
    const auto r = checkSource(kLateSemaphore, withFlag("-DFIXED"));
    expectCompleteExploration(r, Verdict::Safe, {}, 1, 1);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
}

TEST(LateInit, QporHandsALateInitialisationToDfsWithTheSameVerdict) {
    const auto r = checkSource(kLateSemaphore, withAlgorithm("qpor"));
    EXPECT_EQ(r.algorithm, "dfs");
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("initialised after the first thread"), std::string::npos) << r.notes[0];
    EXPECT_EQ(r.verdict, Verdict::Error);
    EXPECT_NE(findError(r, ErrorKind::Deadlock), nullptr);
    // vhb does not model semaphores: it stops with its limit, no verdict of its own.
    const auto v = checkSource(kLateSemaphore, withAlgorithm("vhb"));
    EXPECT_NE(v.verdict, Verdict::Safe);
}

TEST(LateInit, ReaderWriterLockInitialisedWhileHeldIsAMisuse) {
    // The writer may take the lock before main initialises it: re-initialising a lock someone holds is undefined
    // (POSIX), and was a reader count below 0 once the holder unlocked. Initialised first, the lock orders the two
    // critical sections: no race, and no other error.
    const char* src = R"(
        #include <pthread.h>
        pthread_rwlock_t l;
        int x;
        void *writer(void *a) {
            pthread_rwlock_wrlock(&l);
            x = 1;
            pthread_rwlock_unlock(&l);
            return 0;
        }
        int main(void) {
            pthread_t t;
            pthread_create(&t, 0, writer, 0);
            pthread_rwlock_init(&l, 0); // L:init
            pthread_rwlock_rdlock(&l);
            int v = x;
            pthread_rwlock_unlock(&l);
            pthread_join(t, 0);
            return v;
        })";
    const auto r = checkSource(src);
    const auto* misuse = expectError(r, ErrorKind::PthreadMisuse, lineOf(src, "L:init"));
    ASSERT_NE(misuse, nullptr);
    EXPECT_NE(misuse->message.find("while it is held"), std::string::npos) << misuse->message;
    EXPECT_EQ(findError(r, ErrorKind::DataRace), nullptr); // the write section before the init stays ordered
    const std::vector<std::string> ops = operations(*misuse);
    EXPECT_NE(std::find(ops.begin(), ops.end(), "rwlock"), ops.end()); // the writer's lock came first
    // 4 traces (hand-derived): the initialisation before the writer's lock, then the read section before or after
    // the write section; between the writer's lock and unlock (the misuse: main stops there); after the unlock,
    // then main's read section.
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 4u);
}

TEST(LateInit, BarrierOrderedWithTheArrivalsItWouldForget) {
    // The worker may arrive before main initialises the barrier: re-initialising a barrier a thread waits at is
    // reported (its arrival would be forgotten, and both would wait for good). Initialised first, the round
    // completes with both arrivals, and the write before the worker's arrival is seen after main's: safe.
    const char* src = R"(
        #include <pthread.h>
        #include <assert.h>
        pthread_barrier_t b;
        int x;
        void *worker(void *a) { x = 1; pthread_barrier_wait(&b); return 0; }
        int main(void) {
            pthread_t t;
        #ifdef EARLY
            pthread_barrier_init(&b, 0, 2);
        #endif
            pthread_create(&t, 0, worker, 0);
        #ifndef EARLY
            pthread_barrier_init(&b, 0, 2); // L:init
        #endif
            pthread_barrier_wait(&b);
            assert(x == 1);
            pthread_join(t, 0);
            return 0;
        })";
    const auto r = checkSource(src);
    const auto* misuse = expectError(r, ErrorKind::PthreadMisuse, lineOf(src, "L:init"));
    ASSERT_NE(misuse, nullptr);
    EXPECT_NE(misuse->message.find("while threads wait at it"), std::string::npos) << misuse->message;
    const std::vector<std::string> ops = operations(*misuse);
    EXPECT_NE(std::find(ops.begin(), ops.end(), "barrier_arrive"), ops.end());
    const auto s = checkSource(src, withFlag("-DEARLY"));
    EXPECT_EQ(s.verdict, Verdict::Safe) << (s.errors.empty() ? "" : s.errors[0].message);
}

// A mutex initialised after the worker that locks it was created. Hand-derived: the initialisation is dependent
// with the worker's lock and unlock; before the lock, main's critical section comes before or after the worker's
// (2 traces); between the lock and the unlock it is a misuse that stops main (1); after the unlock, main's section
// follows (1): 4 traces. The critical sections before an initialisation stay ordered before the lock after it (the
// race detector joins the clocks): no race in any of them.
const char* const kLateMutex = R"(
    #include <pthread.h>
    pthread_mutex_t m;
    int x;
    void *worker(void *a) { pthread_mutex_lock(&m); x++; pthread_mutex_unlock(&m); return 0; }
    int main(void) {
        pthread_t t;
        pthread_create(&t, 0, worker, 0);
        pthread_mutex_init(&m, 0); // L:init
        pthread_mutex_lock(&m);
        x++;
        pthread_mutex_unlock(&m);
        pthread_join(t, 0);
        return 0;
    })";

TEST(LateInit, MutexInitialisedWhileHeldIsAMisuseForDfsAndQpor) {
    const auto r = checkSource(kLateMutex);
    const auto* misuse = expectError(r, ErrorKind::PthreadMisuse, lineOf(kLateMutex, "L:init"));
    ASSERT_NE(misuse, nullptr);
    EXPECT_NE(misuse->message.find("pthread_mutex_init of a locked mutex"), std::string::npos) << misuse->message;
    EXPECT_EQ(findError(r, ErrorKind::DataRace), nullptr);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 4u);
    // qpor explores the mutex's initialisation as a node of its tree: one execution per trace, the same errors.
    expectQporAgreesWithDfs(kLateMutex, r, 4);
    // vhb stops with its limit (a class's values do not tell where the mutex was held) and hands over to dfs.
    expectHandedToDfs(kLateMutex, "vhb", "mutex initialised once other threads exist", r);
}

} // namespace
