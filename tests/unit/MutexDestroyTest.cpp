// pthread_mutex_destroy and pthread_cond_destroy (Events.def, SyncDestroy): while another thread may still run — one
// the caller has not joined — a destroy is an event, dependent with every operation on the mutex (the condition
// variable), so that the explorers order it with the other threads' operations. Destroying a locked mutex or one
// destroyed already, and locking, trying or unlocking a destroyed one, are misuses (POSIX leaves them undefined), as
// are destroying a condition variable a thread waits on and waiting on or signalling a destroyed one; an init makes
// either usable again. Before, the destroy ran inside its thread's step: a worker's lock (wait) was never placed after
// it, and a program that destroys a mutex its worker still locks was called safe. pthread_cond_init once a thread
// exists is an event too (CondInit below).
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// main destroys the mutex without joining the worker first. Hand-derived: the destroy is dependent with the worker's
// lock and unlock (and nothing else of the worker's is), so its place among them makes the traces: before the lock
// (the lock fails: a misuse that stops the worker), between the lock and the unlock (the destroy of a locked mutex
// fails: a misuse that stops main), after the unlock (no error): 3 traces. -DJOINED joins first: the destroy is
// no event then (every other thread is joined by main), 1 trace, safe.
const char* const kDestroyBeforeJoin = R"(
    #include <pthread.h>
    pthread_mutex_t m;
    int x;
    void *worker(void *a) {
        (void)a;
        pthread_mutex_lock(&m); // L:lock
        x++;
        pthread_mutex_unlock(&m);
        return 0;
    }
    int main(void) {
        pthread_t t;
        pthread_mutex_init(&m, 0);
        pthread_create(&t, 0, worker, 0);
    #ifdef JOINED
        pthread_join(t, 0);
    #endif
        pthread_mutex_destroy(&m); // L:destroy
    #ifndef JOINED
        pthread_join(t, 0);
    #endif
        return 0;
    })";

TEST(MutexDestroy, DestroyBeforeTheJoinIsOrderedWithTheWorkersLockAndUnlock) {
    const auto r = checkSource(kDestroyBeforeJoin);
    EXPECT_EQ(r.verdict, Verdict::Error);
    const auto* useAfter =
        expectMisuseAt(r, kDestroyBeforeJoin, "L:lock",
                       "pthread_mutex_lock of a destroyed mutex `m`");
    ASSERT_NE(useAfter, nullptr);
    // Its counterexample: main's create, its destroy, then the worker's lock fails.
    EXPECT_EQ(operations(*useAfter), (std::vector<std::string>{"create", "mutex_destroy", "error"}));
    const auto* whileHeld =
        expectMisuseAt(r, kDestroyBeforeJoin, "L:destroy",
                       "pthread_mutex_destroy of a locked mutex `m`");
    ASSERT_NE(whileHeld, nullptr);
    EXPECT_EQ(operations(*whileHeld), (std::vector<std::string>{"create", "lock", "error"}));
    EXPECT_EQ(r.errors.size(), 2u);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 3u);
    // qpor explores the destroy as a node of the mutex's tree, free after it: one execution per trace.
    expectQporAgreesWithDfs(kDestroyBeforeJoin, r, 3);
    // vhb stops with its limit and hands the program to dfs.
    expectHandedToDfs(kDestroyBeforeJoin, "vhb", "mutex destroyed once other threads exist", r);
}

TEST(MutexDestroy, DestroyAfterJoiningEveryWorkerIsNoEvent) {
    const Options o = withFlag("-DJOINED");
    const auto r = checkSource(kDestroyBeforeJoin, o);
    expectCompleteExploration(r, Verdict::Safe, {}, 1, 1);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
    // The same events as without the destroy.
    std::string without = kDestroyBeforeJoin;
    without.replace(without.find("pthread_mutex_destroy(&m);"), std::string("pthread_mutex_destroy(&m);").size(), "");
    EXPECT_EQ(r.stats.events, checkSource(without, o).stats.events);
    // vhb explores it itself (no event it hands over).
    const auto v = checkSource(kDestroyBeforeJoin, withFlag("-DJOINED", "vhb"));
    EXPECT_EQ(v.algorithm, "vhb");
    EXPECT_EQ(v.verdict, Verdict::Safe);
}

// Three workers created after the destroy lock the destroyed mutex: each lock fails (a misuse), leaving the mutex as
// it was — destroyed and free — so any lock can come after any other: the three locks are dependent, 3! = 6 traces
// (derived).
TEST(MutexDestroy, ALockThatFailedLeavesTheMutexFreeForTheNext) {
    const char* const src = R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        void *idle(void *a) { return a; }
        void *worker(void *a) { pthread_mutex_lock(&m); return a; } // L:lock
        int main(void) {
            pthread_t i, a, b, c;
            pthread_create(&i, 0, idle, 0);
            pthread_mutex_destroy(&m); // an event: i is not joined
            pthread_create(&a, 0, worker, 0);
            pthread_create(&b, 0, worker, 0);
            pthread_create(&c, 0, worker, 0);
            pthread_join(i, 0);
            return 0;
        })";
    const auto r = checkSource(src);
    ASSERT_NE(expectMisuseAt(r, src, "L:lock", "pthread_mutex_lock of a destroyed mutex `m`"), nullptr);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 6u);
    expectQporAgreesWithDfs(src, r, 6, {"optimal", "sdpor"});
}

// The random program where qpor missed 2 of dfs's 12 traces (the long differential run, seed 2400730): t0's lock
// may come after main's late init and destroy and fail; qpor took the mutex as held after that failed lock, so t2's
// and t1's locks (which fail too) were never placed after it. A failed operation leaves the state as it was
// (Event::failed, QporExplorer::mutexFreeAfter).
const char* const kSeed2400730 = R"(
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);
int x0;
atomic_int a0, a1;
pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;
pthread_mutex_t m0 = PTHREAD_MUTEX_INITIALIZER;
void *t0(void *arg) {
  pthread_mutex_lock(&m0);
  int r0 = atomic_load(&a0);
  x0 = x0 + 1;
  pthread_mutex_unlock(&m0);
  x0 = x0 + 1;
  if (r0 == 1) x0 = 2;
  return 0;
}
void *t1(void *arg) {
  pthread_mutex_lock(&m0);
  int r0 = atomic_load(&a1);
  pthread_mutex_unlock(&m0);
  int r1 = atomic_load(&a1);
  pthread_mutex_lock(&m0);
  pthread_mutex_lock(&m0);
  x0 = 0;
  pthread_mutex_unlock(&m0);
  atomic_fetch_add(&a1, 1);
  pthread_mutex_unlock(&m0);
  return 0;
}
void *t2(void *arg) {
  atomic_fetch_add(&a1, 1);
  pthread_mutex_lock(&m0);
  pthread_mutex_lock(&cm); ready = 1; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&cm);
  pthread_mutex_unlock(&m0);
  int r0 = __VERIFIER_nondet_int(); if (r0) x0 = 1;
  return 0;
}
int main() {
  pthread_t h[3];
  pthread_create(&h[0], 0, t0, 0);
  pthread_mutex_init(&m0, 0);
  pthread_mutex_destroy(&m0);
  pthread_create(&h[1], 0, t1, 0);
  pthread_create(&h[2], 0, t2, 0);
  pthread_join(h[0], 0);
  pthread_join(h[1], 0);
  pthread_join(h[2], 0);
  assert(x0 != 3);
  pthread_cond_destroy(&cv);
  return 0;
}
)";

TEST(MutexDestroy, QporTakesTheStateAfterAFailedLockAsTheStateBeforeIt) {
    const auto r = checkSource(kSeed2400730);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 12u);
    expectQporAgreesWithDfs(kSeed2400730, r, 12, {"optimal"});
}

TEST(MutexDestroy, UsesOfADestroyedMutexAreMisusesUntilAnInit) {
    // One thread: the destroy is a step, and what follows it is checked all the same.
    const char* const src = R"(
        #include <pthread.h>
        #include <threads.h>
        #include <time.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int main(void) {
            pthread_mutex_destroy(&m);
        #if defined(LOCK)
            pthread_mutex_lock(&m); // L:LOCK
        #elif defined(TRY)
            pthread_mutex_trylock(&m); // L:TRY
        #elif defined(UNLOCK)
            pthread_mutex_unlock(&m); // L:UNLOCK
        #elif defined(TWICE)
            pthread_mutex_destroy(&m); // L:TWICE
        #elif defined(TIMED)
            struct timespec ts = {0, 0};
            pthread_mutex_timedlock(&m, &ts); // L:TIMED
        #elif defined(C11)
            mtx_lock((mtx_t *)&m); // L:C11
        #else
            pthread_mutex_init(&m, 0);
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
        #endif
            return 0;
        })";
    const std::vector<std::pair<std::string, std::string>> uses = {
        {"LOCK", "pthread_mutex_lock of a destroyed mutex `m`"},
        {"TRY", "pthread_mutex_trylock of a destroyed mutex `m`"},
        {"UNLOCK", "pthread_mutex_unlock of a destroyed mutex `m`"},
        {"TWICE", "pthread_mutex_destroy of a mutex destroyed already `m`"},
        // Named as called (program::callName): the timed form of a try, C11's form of a lock.
        {"TIMED", "pthread_mutex_timedlock of a destroyed mutex `m`"},
        {"C11", "mtx_lock of a destroyed mutex `m`"},
    };
    for (const auto& [flag, message] : uses) {
        SCOPED_TRACE(flag);
        expectMisuseAt(checkSource(src, withFlag("-D" + flag)), src, "L:" + flag, message);
    }
    // Initialised again, it is a mutex like any other.
    expectCompleteExploration(checkSource(src), Verdict::Safe, {}, 1, 1);
}

} // namespace

namespace {

// A condition variable destroyed while a worker may wait on it (pthread_cond_destroy, SyncDestroy of kCond): the
// destroy is ordered with the worker's wait. Where the worker waits, destroying is a misuse (it stops main); where
// the destroy comes first, the worker's wait is one; main's own signal after its destroy is one in every run it
// reaches. -DFIXED signals before destroying: no thread is blocked then (the signal woke it), safe.
const char* const kCondDestroyedEarly = R"(
    #include <pthread.h>
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    int ready;
    void *worker(void *a) {
        (void)a;
        pthread_mutex_lock(&m);
        while (!ready) pthread_cond_wait(&c, &m); // L:wait
        pthread_mutex_unlock(&m);
        return 0;
    }
    int main(void) {
        pthread_t t;
        pthread_create(&t, 0, worker, 0);
    #ifndef FIXED
        pthread_cond_destroy(&c); // L:destroy
    #endif
        pthread_mutex_lock(&m);
        ready = 1;
        pthread_cond_signal(&c); // L:signal
        pthread_mutex_unlock(&m);
    #ifdef FIXED
        pthread_cond_destroy(&c);
    #endif
        pthread_join(t, 0);
        return 0;
    })";

TEST(CondDestroy, DestroyWhileAWorkerMayWaitIsOrderedWithTheWait) {
    const auto r = checkSource(kCondDestroyedEarly);
    EXPECT_EQ(r.verdict, Verdict::Error);
    const auto* waitedOn =
        expectMisuseAt(r, kCondDestroyedEarly, "L:destroy",
                       "pthread_cond_destroy of a condition variable threads wait on `c`");
    ASSERT_NE(waitedOn, nullptr);
    const auto* waitAfter =
        expectMisuseAt(r, kCondDestroyedEarly, "L:wait",
                       "pthread_cond_wait on a destroyed condition variable `c`");
    ASSERT_NE(waitAfter, nullptr);
    const auto* signalAfter =
        expectMisuseAt(r, kCondDestroyedEarly, "L:signal",
                       "pthread_cond_signal on a destroyed condition variable `c`");
    ASSERT_NE(signalAfter, nullptr);
    const std::vector<std::string> ops = operations(*waitAfter);
    EXPECT_NE(std::find(ops.begin(), ops.end(), "cond_destroy"), ops.end());
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    // qpor: the destroy is a node of the condition variable's tree; one execution per trace, the same errors.
    expectQporAgreesWithDfs(kCondDestroyedEarly, r, *r.stats.mazurkiewiczTraces, {"optimal"});
    EXPECT_EQ(checkSource(kCondDestroyedEarly, withFlag("-DFIXED")).verdict, Verdict::Safe);
}

// pthread_cond_init once a thread exists (Events.def, SyncInit of Event::kCond): an event dependent with the
// condition variable's waits, signals, inits and destroys. Hand-derived: the worker's wait (ready is 0 until main's
// section) comes before the init — the init of a condition variable a thread waits on is a misuse — or after it,
// with main's section after the wait (the signal wakes it) or before the worker's section (no wait): 3 traces.
const char* const kCondInitLate = R"(
    #include <pthread.h>
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    int ready;
    void *worker(void *a) {
        pthread_mutex_lock(&m);
        while (!ready) pthread_cond_wait(&c, &m); // L:wait
        pthread_mutex_unlock(&m);
        return a;
    }
    int main(void) {
        pthread_t t;
    #ifdef EARLY
        pthread_cond_init(&c, 0);
    #endif
        pthread_create(&t, 0, worker, 0);
    #ifdef DESTROY
        pthread_cond_destroy(&c); // L:destroy
    #endif
    #ifndef EARLY
        pthread_cond_init(&c, 0); // L:init
    #endif
        pthread_mutex_lock(&m);
        ready = 1;
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        pthread_join(t, 0);
        return 0;
    })";

TEST(CondInit, OnceAThreadExistsItIsOrderedWithTheWaits) {
    const auto r = checkSource(kCondInitLate);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_EQ(r.errors.size(), 1u);
    const auto* e =
        expectMisuseAt(r, kCondInitLate, "L:init", "pthread_cond_init of a condition variable threads wait on `c`");
    ASSERT_NE(e, nullptr);
    const std::vector<std::string> ops = operations(*e);
    EXPECT_NE(std::find(ops.begin(), ops.end(), "cond_wait"), ops.end());
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 3u);
    EXPECT_EQ(r.stats.finalStates, 1u);
    expectQporAgreesWithDfs(kCondInitLate, r, 3);
    expectHandedToDfs(kCondInitLate, "vhb", "condition variable initialised once other threads exist", r);
    // Before the create it is a step: the two sections in either order, safe.
    const auto s = checkSource(kCondInitLate, withFlag("-DEARLY"));
    EXPECT_EQ(s.verdict, Verdict::Safe);
    ASSERT_TRUE(s.stats.mazurkiewiczTraces);
    EXPECT_EQ(*s.stats.mazurkiewiczTraces, 2u);
}

// -DDESTROY: main destroys the condition variable (an event: the worker is not joined), then initialises it again —
// a node of the condition variable's tree for qpor, as the destroy (before, the init was a step qpor's replay of the
// tree did not see, and qpor handed the program over).
TEST(CondDestroy, InitialisedAgainWhileThreadsExistIsANodeOfItsTreeForQpor) {
    const Options o = withFlag("-DDESTROY");
    const auto r = checkSource(kCondInitLate, o);
    // Where the worker waits at the destroy, main stops there; a wait between the destroy and the init is a misuse.
    ASSERT_NE(expectMisuseAt(r, kCondInitLate, "L:destroy",
                             "pthread_cond_destroy of a condition variable threads wait on `c`"),
              nullptr);
    ASSERT_NE(expectMisuseAt(r, kCondInitLate, "L:wait", "pthread_cond_wait on a destroyed condition variable `c`"),
              nullptr);
    ASSERT_TRUE(r.stats.mazurkiewiczTraces);
    expectQporAgreesWithDfs(kCondInitLate, r, *r.stats.mazurkiewiczTraces, {"optimal", "sdpor"}, o.flags);
}

} // namespace
