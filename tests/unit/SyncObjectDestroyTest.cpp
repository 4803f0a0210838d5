// sem_destroy, pthread_rwlock_destroy and pthread_barrier_destroy (Events.def, SyncDestroy; SyncBuiltins.cpp). While
// a thread the caller has not joined exists, a destroy is an event dependent with every operation on the object, as a
// mutex's (MutexDestroyTest.cpp). Destroying a semaphore a thread waits on, a held reader-writer lock, a barrier a
// thread waits at, or an object destroyed already is a misuse, and so is any operation on a destroyed object until an
// init (POSIX leaves all of them undefined). Before, the three functions did nothing: a program that destroys a
// semaphore its worker still posts was called safe. qpor and vhb hand such a program to dfs (qpor derives these
// objects' states from their initialisations and operations).
#include <gtest/gtest.h>

#include "core/model/Event.h"
#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

uint64_t traces(const skein::report::CheckResult& r) {
    EXPECT_TRUE(r.stats.mazurkiewiczTraces);
    return r.stats.mazurkiewiczTraces.value_or(0);
}

constexpr const char* kQporNote = "destroyed while threads that may use it run";

// Hand-derived: the destroy is dependent with the worker's post alone, so it comes before it (the post fails: a
// misuse that stops the worker) or after it (no error): 2 traces.
const char* const kSemaphorePostedAfterDestroy = R"(
    #include <pthread.h>
    #include <semaphore.h>
    sem_t s;
    void *worker(void *a) {
        (void)a;
        sem_post(&s); // L:post
        return 0;
    }
    int main(void) {
        pthread_t t;
        sem_init(&s, 0, 0);
        pthread_create(&t, 0, worker, 0);
        sem_destroy(&s);
        pthread_join(t, 0);
        return 0;
    })";

TEST(SyncObjectDestroy, ASemaphoreDestroyedBeforeTheJoinIsOrderedWithTheWorkersPost) {
    const auto r = checkSource(kSemaphorePostedAfterDestroy);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_EQ(r.errors.size(), 1u);
    const auto* e = expectMisuseAt(r, kSemaphorePostedAfterDestroy, "L:post", "sem_post of a destroyed semaphore `s`");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(operations(*e), (std::vector<std::string>{"create", "sem_destroy", "error"}));
    EXPECT_EQ(traces(r), 2u);
    EXPECT_EQ(r.stats.finalStates, 1u); // the post first: the program ends
    expectHandedToDfs(kSemaphorePostedAfterDestroy, "qpor", kQporNote, r);
    expectHandedToDfs(kSemaphorePostedAfterDestroy, "vhb", "semaphore", r);
}

// The worker waits on the semaphore (its count is 0) when main destroys it: the destroy fails, 1 trace. (Local steps
// are no events: the worker is at its wait as soon as it exists.)
TEST(SyncObjectDestroy, DestroyingASemaphoreAThreadWaitsOnIsAMisuse) {
    const char* const src = R"(
        #include <pthread.h>
        #include <semaphore.h>
        sem_t s;
        void *worker(void *a) { sem_wait(&s); return a; }
        int main(void) {
            pthread_t t;
            sem_init(&s, 0, 0);
            pthread_create(&t, 0, worker, 0);
            sem_destroy(&s); // L:destroy
            pthread_join(t, 0);
            return 0;
        })";
    const auto r = checkSource(src);
    EXPECT_EQ(r.errors.size(), 1u);
    ASSERT_NE(expectMisuseAt(r, src, "L:destroy", "sem_destroy of a semaphore threads wait on `s`"), nullptr);
    EXPECT_EQ(traces(r), 1u);
}

// Hand-derived: the destroy is dependent with the worker's read lock and unlock: before the lock (the lock fails),
// between them (the destroy of a held lock fails), after both (no error): 3 traces.
TEST(SyncObjectDestroy, AReaderWriterLockDestroyedBeforeTheJoinIsOrderedWithTheWorkersLockAndUnlock) {
    const char* const src = R"(
        #include <pthread.h>
        pthread_rwlock_t l;
        int x;
        void *worker(void *a) {
            pthread_rwlock_rdlock(&l); // L:lock
            x = x + 0;
            pthread_rwlock_unlock(&l);
            return a;
        }
        int main(void) {
            pthread_t t;
            pthread_rwlock_init(&l, 0);
            pthread_create(&t, 0, worker, 0);
            pthread_rwlock_destroy(&l); // L:destroy
            pthread_join(t, 0);
            return 0;
        })";
    const auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_EQ(r.errors.size(), 2u);
    const auto* lock = expectMisuseAt(r, src, "L:lock", "pthread_rwlock_rdlock of a destroyed reader-writer lock `l`");
    ASSERT_NE(lock, nullptr);
    EXPECT_EQ(operations(*lock), (std::vector<std::string>{"create", "rwlock_destroy", "error"}));
    const auto* held = expectMisuseAt(r, src, "L:destroy", "pthread_rwlock_destroy of a held reader-writer lock `l`");
    ASSERT_NE(held, nullptr);
    EXPECT_EQ(operations(*held), (std::vector<std::string>{"create", "rwlock", "error"}));
    EXPECT_EQ(traces(r), 3u);
    expectHandedToDfs(src, "qpor", kQporNote, r);
}

// main destroys the barrier of two without waiting at it: before the worker arrives (its arrival fails) or while
// the worker waits there, its round incomplete (the destroy fails): 2 traces, an error in each. -DWAIT: main waits
// too, then destroys it — the common idiom, allowed once the round is complete even if the worker has not left yet
// (POSIX: undefined only while a thread is blocked on it). Hand-derived: the two arrivals are dependent (2 orders);
// main's destroy follows its own departure, hence both arrivals, and is dependent with the worker's departure
// (before or after it): 2 · 2 = 4 traces, safe.
const char* const kBarrierDestroyed = R"(
    #include <pthread.h>
    pthread_barrier_t b;
    void *worker(void *a) {
        pthread_barrier_wait(&b); // L:wait
        return a;
    }
    int main(void) {
        pthread_t t;
        pthread_barrier_init(&b, 0, 2);
        pthread_create(&t, 0, worker, 0);
    #ifdef WAIT
        pthread_barrier_wait(&b);
    #endif
        pthread_barrier_destroy(&b); // L:destroy
        pthread_join(t, 0);
        return 0;
    })";

TEST(SyncObjectDestroy, DestroyingABarrierAThreadWaitsAtIsAMisuse) {
    const auto r = checkSource(kBarrierDestroyed);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_EQ(r.errors.size(), 2u);
    const auto* waiting =
        expectMisuseAt(r, kBarrierDestroyed, "L:destroy",
                       "pthread_barrier_destroy of a barrier threads wait at `b`");
    ASSERT_NE(waiting, nullptr);
    const auto* late =
        expectMisuseAt(r, kBarrierDestroyed, "L:wait",
                       "pthread_barrier_wait of a destroyed barrier `b`");
    ASSERT_NE(late, nullptr);
    EXPECT_EQ(operations(*late), (std::vector<std::string>{"create", "barrier_destroy", "error"}));
    EXPECT_EQ(traces(r), 2u);
    expectHandedToDfs(kBarrierDestroyed, "qpor", kQporNote, r);
}

TEST(SyncObjectDestroy, DestroyingABarrierOnceItsRoundIsCompleteIsAllowed) {
    const auto r = checkSource(kBarrierDestroyed, withFlag("-DWAIT"));
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(traces(r), 4u);
    EXPECT_EQ(r.stats.finalStates, 1u);
}

// After the joins the destroys are steps (no other thread can see them): qpor explores such a program itself. What
// follows a destroy is checked all the same, and a thread created after it is handed to dfs by qpor (its operations
// on the object would follow a destroy qpor has no event of).
const char* const kAfterTheJoins = R"(
    #include <pthread.h>
    #include <semaphore.h>
    #include <time.h>
    sem_t s;
    pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
    pthread_barrier_t b;
    void *worker(void *a) {
        sem_post(&s); // L:post
        pthread_rwlock_wrlock(&l);
        pthread_rwlock_unlock(&l);
        return a;
    }
    int main(void) {
        pthread_t t;
        sem_init(&s, 0, 0);
        pthread_barrier_init(&b, 0, 1);
        pthread_create(&t, 0, worker, 0);
        sem_wait(&s);
        pthread_join(t, 0);
        sem_destroy(&s);
        pthread_rwlock_destroy(&l);
        pthread_barrier_destroy(&b);
    #if defined(AGAIN)
        pthread_rwlock_destroy(&l); // L:again
    #elif defined(WAIT)
        sem_wait(&s); // L:wait
    #elif defined(TIMED)
        struct timespec ts = {0, 0};
        sem_timedwait(&s, &ts); // L:timed
    #elif defined(RWLOCK)
        pthread_rwlock_wrlock(&l); // L:rwlock
    #elif defined(BARRIER)
        pthread_barrier_wait(&b); // L:barrier
    #elif defined(REINIT)
        pthread_barrier_init(&b, 0, 1);
        pthread_barrier_wait(&b);
    #elif defined(LATER)
        pthread_create(&t, 0, worker, 0);
        pthread_join(t, 0);
    #endif
        return 0;
    })";

TEST(SyncObjectDestroy, DestroysAfterTheJoinsAreStepsThatQporExploresItself) {
    const auto r = checkSource(kAfterTheJoins);
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(traces(r), 1u); // the worker's post before main's wait; its lock and unlock commute with the wait
    EXPECT_EQ(r.stats.finalStates, 1u);
    const auto q = checkSource(kAfterTheJoins, withAlgorithm("qpor"));
    EXPECT_EQ(q.algorithm, "qpor");
    EXPECT_EQ(q.verdict, Verdict::Safe);
    EXPECT_EQ(q.stats.executions, 1u);
    // A barrier initialised again is usable again (the init is a late one: qpor hands it over, as any such init).
    const auto reinit = checkSource(kAfterTheJoins, withFlag("-DREINIT"));
    EXPECT_EQ(reinit.verdict, Verdict::Safe);
}

TEST(SyncObjectDestroy, UsesOfADestroyedObjectAreMisusesUntilAnInit) {
    const struct {
        const char* flag;
        const char* marker;
        const char* message;
    } cases[] = {
        {"-DAGAIN", "L:again", "pthread_rwlock_destroy of a reader-writer lock destroyed already `l`"},
        {"-DWAIT", "L:wait", "sem_wait of a destroyed semaphore `s`"}, // (its count is 0: enabled all the same)
        {"-DTIMED", "L:timed", "sem_timedwait of a destroyed semaphore `s`"}, // (named as called: a try, timed)
        {"-DRWLOCK", "L:rwlock", "pthread_rwlock_wrlock of a destroyed reader-writer lock `l`"},
        {"-DBARRIER", "L:barrier", "pthread_barrier_wait of a destroyed barrier `b`"},
        {"-DLATER", "L:post", "sem_post of a destroyed semaphore `s`"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.flag);
        const auto r = checkSource(kAfterTheJoins, withFlag(c.flag));
        ASSERT_NE(expectMisuseAt(r, kAfterTheJoins, c.marker, c.message), nullptr);
        const auto q = checkSource(kAfterTheJoins, withFlag(c.flag, "qpor"));
        EXPECT_EQ(errorKinds(q), errorKinds(r));
        // The thread created after the destroy: handed over; the others qpor explores itself.
        EXPECT_EQ(q.algorithm, std::string(c.flag) == "-DLATER" ? "dfs" : "qpor");
    }
}

TEST(SyncObjectDestroy, ADestroyIsDependentWithTheOperationsOnItsObjectOnly) {
    using skein::model::Event;
    using skein::model::EventKind;
    auto ev = [](EventKind k, uint64_t addr, uint64_t value2 = 0) {
        Event e;
        e.kind = k;
        e.addr = addr;
        e.value2 = value2;
        return e;
    };
    const Event semDestroy = ev(EventKind::SyncDestroy, 64, Event::kSemaphore);
    EXPECT_TRUE(skein::model::dependent(semDestroy, ev(EventKind::SemPost, 64)));
    EXPECT_TRUE(skein::model::dependent(ev(EventKind::SemGetValue, 64), semDestroy));
    EXPECT_TRUE(skein::model::dependent(semDestroy, ev(EventKind::SyncInit, 64, Event::kSemaphore)));
    EXPECT_FALSE(skein::model::dependent(semDestroy, ev(EventKind::SemPost, 128)));
    EXPECT_FALSE(skein::model::dependent(semDestroy, ev(EventKind::Lock, 64)));
    const Event rwDestroy = ev(EventKind::SyncDestroy, 64, Event::kRwLock);
    EXPECT_TRUE(skein::model::dependent(rwDestroy, ev(EventKind::RwLock, 64, 0))); // a read lock too
    EXPECT_TRUE(skein::model::dependent(rwDestroy, ev(EventKind::RwUnlock, 64, 0)));
    const Event barrierDestroy = ev(EventKind::SyncDestroy, 64, Event::kBarrier);
    EXPECT_TRUE(skein::model::dependent(barrierDestroy, ev(EventKind::BarrierLeave, 64)));
    EXPECT_TRUE(skein::model::dependent(barrierDestroy, barrierDestroy));
    // A mutex's and a condition variable's keep their own rules (MutexDestroyTest.cpp).
    EXPECT_FALSE(skein::model::dependent(ev(EventKind::SyncDestroy, 64, Event::kMutex), ev(EventKind::SemPost, 64)));
    EXPECT_FALSE(skein::model::dependent(ev(EventKind::SyncDestroy, 64, Event::kCond), ev(EventKind::SemPost, 64)));
}

} // namespace
