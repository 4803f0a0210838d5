// Concurrency semantics of the executor (issue 2, "Executor"): pthreads, mutexes, condition variables,
// thread-locals, semaphores, and how the program ends while threads run. Atomics and SV-COMP atomic sections:
// ExecutorAtomicsTest.cpp.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

TEST(ExecThreads, CreateJoinArgumentsAndReturnValues) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdio.h>
        void *twice(void *a) { return (void *)((long)a * 2); }
        void *leave(void *a) { pthread_exit((void *)((long)a + 100)); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, NULL, twice, (void *)21);
            pthread_create(&t2, NULL, leave, (void *)5);
            void *r1, *r2;
            pthread_join(t1, &r1);
            pthread_join(t2, &r2);
            printf("%ld %ld\n", (long)r1, (long)r2);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(output(r), "42 105\n");
    // The workers have no visible event of their own (returning is not one): main's events are all there is.
    EXPECT_EQ(r.stats.executions, 1u);
}

TEST(ExecThreads, SelfAndEqual) {
    EXPECT_EQ(safeOutput(R"(
        #include <pthread.h>
        #include <stdio.h>
        pthread_t seen;
        void *who(void *a) { seen = pthread_self(); return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, NULL, who, NULL);
            pthread_join(t, NULL);
            printf("%d %d %d\n", pthread_equal(t, seen) != 0, pthread_equal(pthread_self(), seen) != 0,
                   pthread_equal(pthread_self(), pthread_self()) != 0);
            return 0;
        })"),
              "1 0 1\n");
}

// Mutexes of every storage kind protect a counter: no race, no assertion failure. One program per kind
// (-DKIND=k) keeps the unreduced dfs small.
// A mutex attribute's type, as settype writes it and gettype reads it back (glibc's values: 0 normal, 1 recursive,
// 2 error-checking).
TEST(ExecThreads, MutexAttributeTypeReadsBack) {
    const char* src = R"(
        #define _GNU_SOURCE
        #include <pthread.h>
        #include <stdio.h>
        int main() {
            pthread_mutexattr_t a;
            int fresh = -1, recursive = -1, checking = -1;
            pthread_mutexattr_init(&a);
            pthread_mutexattr_gettype(&a, &fresh);
            pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
            pthread_mutexattr_gettype(&a, &recursive);
            pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
            pthread_mutexattr_gettype(&a, &checking);
            printf("%d %d %d\n", fresh, recursive, checking);
            return 0;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(output(r), "0 1 2\n");
}

TEST(ExecThreads, MutexesOfEveryKind) {
    const char* src = R"(
        #include <pthread.h>
        #include <stdlib.h>
        #include <assert.h>
        pthread_mutex_t stat = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_t zero;
        struct Acc { int pad; pthread_mutex_t m; int v; } acc;
        pthread_mutex_t locks[3];
        pthread_mutex_t *heap;
        pthread_mutex_t *pick(void) {
            switch (KIND) {
            case 0: return &stat;
            case 1: return &zero;
            case 2: return &acc.m;
            case 3: return &locks[2];
            default: return heap;
            }
        }
        int c;
        #ifdef NOLOCK
        #define pthread_mutex_lock(m) 0
        #define pthread_mutex_unlock(m) 0
        #endif
        void *work(void *arg) { pthread_mutex_t *m = pick(); pthread_mutex_lock(m); c++; pthread_mutex_unlock(m); return 0; }
        int main() {
            heap = malloc(sizeof *heap);
            pthread_mutex_init(heap, NULL);
            for (int i = 0; i < 3; i++) pthread_mutex_init(&locks[i], NULL);
            pthread_t t1, t2;
            pthread_create(&t1, NULL, work, NULL);
            pthread_create(&t2, NULL, work, NULL);
            pthread_join(t1, NULL);
            pthread_join(t2, NULL);
            assert(c == 2);
            pthread_mutex_destroy(heap);
            free(heap);
            return 0;
        })";
    for (int kind = 0; kind < 5; ++kind) {
        Options o;
        o.flags = {"-DKIND=" + std::to_string(kind)};
        auto r = checkSource(src, o);
        EXPECT_EQ(r.verdict, Verdict::Safe) << "kind " << kind;
        EXPECT_TRUE(r.errors.empty()) << "kind " << kind << ": " << (r.errors.empty() ? "" : r.errors[0].message);
        EXPECT_EQ(*r.stats.mazurkiewiczTraces, 2u) << "kind " << kind; // the two orders of the critical sections
    }
    // Without the lock the same program races.
    Options o;
    o.flags = {"-DKIND=0", "-DNOLOCK"};
    auto racy = checkSource(src, o);
    EXPECT_NE(findError(racy, ErrorKind::DataRace), nullptr);
}

TEST(ExecThreads, TrylockReturnsBusyWhenHeld) {
    EXPECT_EQ(safeOutput(R"(
        #include <pthread.h>
        #include <errno.h>
        #include <stdio.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int main() {
            int r0 = pthread_mutex_trylock(&m);
            int r1 = pthread_mutex_trylock(&m); // a default mutex held by the caller: EBUSY, as glibc
            pthread_mutex_unlock(&m);
            int r2 = pthread_mutex_trylock(&m);
            pthread_mutex_unlock(&m);
            pthread_mutex_destroy(&m);
            printf("%d %d %d\n", r0, r1 == EBUSY, r2);
            return 0;
        })"),
              "0 1 0\n");
}

TEST(ExecThreads, TrylockAcrossThreads) {
    // Whether the worker gets the lock depends on the interleaving: both outcomes are explored.
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int got;
        void *t(void *a) { if (pthread_mutex_trylock(&m) == 0) { got = 1; pthread_mutex_unlock(&m); } return 0; }
        int main() {
            pthread_t x;
            pthread_create(&x, 0, t, 0);
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
            pthread_join(x, 0);
            assert(got == 1);
            return 0;
        })");
    ASSERT_NE(findError(r, ErrorKind::Assertion), nullptr);
    EXPECT_EQ(findError(r, ErrorKind::DataRace), nullptr);
}

TEST(ExecThreads, ProducerConsumerWithConditionVariables) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t notEmpty = PTHREAD_COND_INITIALIZER, notFull;
        int buf, full, consumed;
        void *producer(void *a) {
            for (int i = 1; i <= 2; i++) {
                pthread_mutex_lock(&m);
                while (full) pthread_cond_wait(&notFull, &m);
                buf = i; full = 1;
                pthread_cond_signal(&notEmpty);
                pthread_mutex_unlock(&m);
            }
            return 0;
        }
        void *consumer(void *a) {
            for (int i = 1; i <= 2; i++) {
                pthread_mutex_lock(&m);
                while (!full) pthread_cond_wait(&notEmpty, &m);
                consumed += buf; full = 0;
                pthread_cond_signal(&notFull);
                pthread_mutex_unlock(&m);
            }
            return 0;
        }
        int main() {
            pthread_cond_init(&notFull, NULL);
            pthread_t p, c;
            pthread_create(&p, 0, producer, 0);
            pthread_create(&c, 0, consumer, 0);
            pthread_join(p, 0);
            pthread_join(c, 0);
            assert(consumed == 3);
            pthread_cond_destroy(&notFull);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_GT(r.stats.executions, 1u);
}

TEST(ExecThreads, LostWakeupIsADeadlock) {
    // `if` instead of a flag re-check: the signal can come before the wait, which then waits forever.
    const std::string src = R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        void *waiter(void *a) {
            pthread_mutex_lock(&m);
            pthread_cond_wait(&cv, &m);
            pthread_mutex_unlock(&m);
            return 0;
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, waiter, 0);
            pthread_mutex_lock(&m);
            pthread_cond_signal(&cv);
            pthread_mutex_unlock(&m);
            pthread_join(t, 0); // L:join
            return 0;
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Deadlock, lineOf(src, "L:join"));
    ASSERT_NE(e, nullptr);
    EXPECT_NE(e->message.find("condition variable `cv`"), std::string::npos) << e->message;
    EXPECT_NE(e->message.find("join thread 1"), std::string::npos) << e->message;
}

TEST(ExecThreads, BroadcastWakesEveryWaiter) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int go, woke;
        void *waiter(void *a) {
            pthread_mutex_lock(&m);
            while (!go) pthread_cond_wait(&cv, &m);
            woke++;
            pthread_mutex_unlock(&m);
            return 0;
        }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, waiter, 0);
            pthread_create(&t2, 0, waiter, 0);
            pthread_mutex_lock(&m);
            go = 1;
            pthread_cond_broadcast(&cv);
            pthread_mutex_unlock(&m);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(woke == 2);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
}

TEST(ExecThreads, SignalWakesOnlyOneWaiter) {
    // Two waiters, one signal: the other waits forever, whichever is woken.
    auto r = checkSource(R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int go;
        void *waiter(void *a) {
            pthread_mutex_lock(&m);
            while (!go) pthread_cond_wait(&cv, &m);
            go = 0;
            pthread_mutex_unlock(&m);
            return 0;
        }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, waiter, 0);
            pthread_create(&t2, 0, waiter, 0);
            pthread_mutex_lock(&m);
            go = 1;
            pthread_cond_signal(&cv);
            pthread_mutex_unlock(&m);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            return 0;
        })");
    EXPECT_NE(findError(r, ErrorKind::Deadlock), nullptr);
}

TEST(ExecThreads, ThreadLocalVariables) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdio.h>
        #include <assert.h>
        __thread int tls = 5;
        __thread int arr[2];
        void *bump(void *a) {
            for (int i = 0; i < 3; i++) tls++;
            arr[1] = (int)(long)a;
            assert(tls == 8 && arr[1] == (int)(long)a && arr[0] == 0);
            return (void *)(long)tls;
        }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, bump, (void *)1);
            pthread_create(&t2, 0, bump, (void *)2);
            void *r1, *r2;
            pthread_join(t1, &r1);
            pthread_join(t2, &r2);
            printf("%d %d %ld %ld\n", tls, arr[1], (long)r1, (long)r2);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(output(r), "5 0 8 8\n");
    // Thread-local accesses are not visible events: the only interleavings are those of create/join/exit.
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
}

TEST(ExecThreads, ExitWhileThreadsRun) {
    // exit() from main ends the program although a worker is blocked forever: no deadlock.
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdlib.h>
        #include <stdio.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        void *stuck(void *a) { pthread_mutex_lock(&m); return 0; }
        int main() {
            pthread_mutex_lock(&m);
            pthread_t t;
            pthread_create(&t, 0, stuck, 0);
            printf("leaving\n");
            exit(0);
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(output(r), "leaving\n");
}

TEST(ExecThreads, ExitFromAWorkerEndsTheProgram) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdlib.h>
        #include <assert.h>
        int x;
        void *quit(void *a) { exit(1); }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, quit, 0);
            pthread_join(t, 0);
            assert(0); // unreachable: the worker's exit ends main too
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
}

TEST(ExecThreads, MainReturningEndsUnjoinedThreads) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdio.h>
        int x;
        void *w(void *a) { x = 1; return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_detach(t);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
    // The worker's write may run before main's exit or never: two executions.
    EXPECT_EQ(r.stats.executions, 2u);
}

TEST(ExecThreads, MainCallingPthreadExitLetsOthersFinish) {
    // pthread_exit in main: the process lives until the last thread ends.
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdio.h>
        void *w(void *a) { printf("worker\n"); return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_exit(0);
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(output(r), "worker\n");
    EXPECT_GE(r.stats.executions, 1u);
    EXPECT_EQ(r.stats.blocked, 0u);
}

TEST(ExecThreads, ThreadsCreatedInALoop) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        int slot[3];
        void *w(void *a) { long i = (long)a; slot[i] = (int)i + 1; return 0; }
        int main() {
            pthread_t t[3];
            for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, w, (void *)i);
            for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
            assert(slot[0] + slot[1] + slot[2] == 6);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
}

// POSIX semaphores (explored by dfs and qpor; vhb hands them over). A semaphore of 2 lets both workers in at once
// and a third wait finds it empty; one of 1 is a mutex: the workers' critical sections exclude each other.
TEST(ExecThreads, SemaphoresCountAndBlock) {
    const std::string src = R"(
        #include <pthread.h>
        #include <semaphore.h>
        #include <stdio.h>
        #include <assert.h>
        #ifndef LIMIT
        #define LIMIT UNITS
        #endif
        sem_t s;
        int inside;
        void *worker(void *a) {
            sem_wait(&s);
            int n = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
            assert(n <= LIMIT); // L:assert
            __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
            sem_post(&s);
            return 0;
        }
        int main() {
            sem_init(&s, 0, UNITS);
            pthread_t t[2];
            for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
            for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
            int took = sem_trywait(&s) == 0, second = sem_trywait(&s) == 0, third = sem_trywait(&s) == 0;
            printf("%d%d%d\n", took, second, third);
            return 0;
        })";
    Options one;
    one.flags = {"-DUNITS=1"};
    auto r1 = checkSource(src, one);
    EXPECT_EQ(r1.verdict, Verdict::Safe) << (r1.errors.empty() ? "" : r1.errors[0].message);
    EXPECT_EQ(output(r1), "100\n");
    // Each worker's three events on `inside` come between its wait and its post: the semaphore orders the two
    // sections, 2 traces (which goes first).
    EXPECT_EQ(*r1.stats.mazurkiewiczTraces, 2u);
    Options two;
    two.flags = {"-DUNITS=2"};
    auto r2 = checkSource(src, two);
    EXPECT_EQ(r2.verdict, Verdict::Safe) << (r2.errors.empty() ? "" : r2.errors[0].message);
    EXPECT_EQ(output(r2), "110\n");
    Options both; // a semaphore of 2 where only one may be inside: both are in at once in some run
    both.flags = {"-DUNITS=2", "-DLIMIT=1"};
    auto r3 = checkSource(src, both);
    const auto* a = findError(r3, ErrorKind::Assertion);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->location.line, lineOf(src, "// L:assert"));
}

// Every thread waits on a semaphore nobody will post: a deadlock, each wait named in the report; and a
// sem_trywait spin that can never take a unit spins for good — reported at the attempt.
TEST(ExecThreads, SemaphoreDeadlocksAreReported) {
    const std::string src = R"(
        #include <pthread.h>
        #include <semaphore.h>
        sem_t a, b;
        void *t1(void *x) { sem_wait(&a); sem_post(&b); return 0; } // L:t1
        int main() {
            sem_init(&a, 0, 0);
            sem_init(&b, 0, 0);
            pthread_t t;
            pthread_create(&t, NULL, t1, NULL);
        #ifdef SPIN
            while (sem_trywait(&b) != 0) // L:spin
                ;
        #else
            sem_wait(&b); // L:main
        #endif
            sem_post(&a);
            pthread_join(t, NULL);
            return 0;
        })";
    auto r = checkSource(src);
    const auto* d = findError(r, ErrorKind::Deadlock);
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("thread 1 waits on semaphore `a` (its count is 0)"), std::string::npos) << d->message;
    EXPECT_NE(d->message.find("thread 0 waits on semaphore `b` (its count is 0)"), std::string::npos) << d->message;
    auto spin = checkSource(src, withFlag("-DSPIN"));
    const auto* ds = findError(spin, ErrorKind::Deadlock);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(ds->location.line, lineOf(src, "// L:spin"));
    EXPECT_NE(ds->message.find("spins forever"), std::string::npos) << ds->message;
    EXPECT_NE(ds->message.find("on `b`"), std::string::npos) << ds->message;
}

// qpor and vhb hand a program with semaphores to dfs and say so in a note (`skein check` without --algo; with an
// explicit --algo the limit is the verdict instead: tests/corpus/threads/semaphore_buffer.c).
// A safe program that qpor explores itself (no fallback to dfs, so no note) in `executions` executions.
void expectQporExploresSafe(const char* src, uint64_t executions) {
    auto q = checkSource(src, withAlgorithm("qpor"));
    EXPECT_EQ(q.algorithm, "qpor");
    EXPECT_TRUE(q.notes.empty()) << q.notes[0];
    EXPECT_EQ(q.verdict, Verdict::Safe) << (q.errors.empty() ? "" : q.errors[0].message);
    EXPECT_EQ(q.stats.executions, executions);
}

// qpor models semaphores (core/explore/unfolding/DESIGN.md, "Semaphores, reader-writer locks and barriers"); vhb
// does not, and hands the program over to dfs with a note.
TEST(ExecThreads, SemaphoresAreExploredByQporAndHandedByVhbToDfs) {
    const char* src = R"(
        #include <pthread.h>
        #include <semaphore.h>
        sem_t s;
        int x;
        void *t1(void *a) { x = 1; sem_post(&s); return 0; }
        int main() {
            sem_init(&s, 0, 0);
            pthread_t t;
            pthread_create(&t, NULL, t1, NULL);
            sem_wait(&s);
            x = 2;
            pthread_join(t, NULL);
            return 0;
        })";
    expectQporExploresSafe(src, 1); // the post orders the two writes
    Options o;
    o.algorithm = "vhb";
    auto v = checkSource(src, o);
    EXPECT_EQ(v.algorithm, "dfs");
    ASSERT_EQ(v.notes.size(), 1u);
    EXPECT_NE(v.notes[0].find("semaphores"), std::string::npos) << v.notes[0];
    EXPECT_NE(v.notes[0].find("dfs was used instead"), std::string::npos) << v.notes[0];
    EXPECT_EQ(v.verdict, Verdict::Safe);
    auto r = checkSource(src); // dfs
    EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
}

// qpor takes a semaphore's count (a reader-writer lock's readers, a barrier's size) at a history from what the
// operations of the execution outside it did, which needs an initialisation every history holds
// (Executor::kSyncInitLate), and a barrier arrival's round from its thread's own arrivals (kBarrierRoundsVary: three
// threads at a barrier of two). Each is handed to dfs with a note saying why; objects initialised before the threads,
// with a barrier's threads meeting every round, are qpor's.
TEST(ExecThreads, QporHandsOverLateInitialisationsAndFloatingBarrierRounds) {
    const char* late = R"(
        #include <pthread.h>
        #include <semaphore.h>
        sem_t s;
        void *t1(void *a) { sem_init(&s, 0, 1); sem_wait(&s); return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, NULL, t1, NULL);
            pthread_join(t, NULL);
            return 0;
        })";
    const char* barrier = R"(
        #include <pthread.h>
        pthread_barrier_t b;
        void *t1(void *a) { pthread_barrier_wait(&b); return 0; }
        int main() {
            pthread_barrier_init(&b, NULL, 2);
            pthread_t t;
            pthread_create(&t, NULL, t1, NULL);
        #ifdef LATE // a third thread at the barrier of two: the first two to arrive make round 0, the last round 1
            pthread_t u;
            pthread_create(&u, NULL, t1, NULL);
            pthread_barrier_wait(&b);
            pthread_barrier_wait(&b);
            pthread_join(u, NULL);
        #else
            pthread_barrier_wait(&b);
        #endif
            pthread_join(t, NULL);
            return 0;
        })";
    const char* rwlock = R"(
        #include <pthread.h>
        pthread_rwlock_t l;
        void *t1(void *a) { pthread_rwlock_rdlock(&l); pthread_rwlock_unlock(&l); return 0; }
        int main() {
        #ifdef LATE
            pthread_t t;
            pthread_create(&t, NULL, t1, NULL);
            pthread_rwlock_init(&l, NULL);
        #else
            pthread_rwlock_init(&l, NULL);
            pthread_t t;
            pthread_create(&t, NULL, t1, NULL);
        #endif
            pthread_rwlock_wrlock(&l);
            pthread_rwlock_unlock(&l);
            pthread_join(t, NULL);
            return 0;
        })";
    expectQporExploresSafe(rwlock, 2); // the read section before the write section, or after it
    expectQporExploresSafe(barrier, 2); // which of the two arrivals completes the round
    // (With three threads at the barrier of two, main's two arrivals can make round 1 alone: it then waits there for
    // good, a deadlock dfs finds.)
    struct Case {
        const char* src;
        const char* why;
        Verdict verdict;
    };
    for (auto [src, why, verdict] : {Case{late, "initialised after the first thread", Verdict::Safe},
                                     Case{barrier, "met by more threads than its size", Verdict::Error},
                                     // (the reader may hold the lock when main initialises it: a misuse)
                                     Case{rwlock, "initialised after the first thread", Verdict::Error}}) {
        auto r = checkSource(src, withFlag("-DLATE", "qpor"));
        EXPECT_EQ(r.algorithm, "dfs") << why;
        ASSERT_EQ(r.notes.size(), 1u) << why;
        EXPECT_NE(r.notes[0].find(why), std::string::npos) << r.notes[0];
        EXPECT_NE(r.notes[0].find("dfs was used instead"), std::string::npos) << r.notes[0];
        EXPECT_EQ(r.verdict, verdict) << why << ": " << (r.errors.empty() ? "" : r.errors[0].message);
    }
}

} // namespace
