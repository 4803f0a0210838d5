// Each thread's own data: errno (core/exec/Executor.h, errnoAddress), an int whose accesses are no events, which
// the semaphore builtins that answer -1 set as glibc's do; and thread-specific data (pthread_key_*, C11's tss_*:
// Builtins.cpp, KeyCreate), whose key is a write of its number into the key variable and whose values are each
// thread's own.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// Two threads write and read errno at once: no race (each has its own), and each reads what it wrote.
TEST(ExecErrno, EachThreadHasItsOwn) {
    const char* src = R"(
        #include <assert.h>
        #include <errno.h>
        #include <pthread.h>
        void *worker(void *a) {
            errno = 7;
            assert(errno == 7);
            return 0;
        }
        int main() {
            pthread_t t;
            errno = 0;
            pthread_create(&t, 0, worker, 0);
            errno = 5;
            int mine = errno;
            pthread_join(t, 0);
            assert(mine == 5 && errno == 5);
            return 0;
        })";
    expectSafeInEveryExplorer(src);
    // Nothing in errno is shared: the two threads' writes do not even order their executions (one trace).
    expectCompleteExploration(checkSource(src), Verdict::Safe, {}, 1, 1);
}

// sem_trywait on an empty semaphore answers -1 with EAGAIN, sem_timedwait with ETIMEDOUT, sem_init above
// SEM_VALUE_MAX with EINVAL; a call that succeeds leaves errno as it was.
TEST(ExecErrno, SemaphoresSetItWhenTheyFail) {
    EXPECT_EQ(safeOutput(R"(
        #include <errno.h>
        #include <semaphore.h>
        #include <stdio.h>
        #include <time.h>
        sem_t s, big;
        int main() {
            struct timespec ts = {1, 0};
            sem_init(&s, 0, 0);
            int a = sem_trywait(&s), ea = errno;
            int b = sem_timedwait(&s, &ts), eb = errno;
            errno = 0;
            sem_post(&s);
            int c = sem_trywait(&s), ec = errno;
            int d = sem_init(&big, 0, 0x80000000u), ed = errno;
            printf("%d %d %d %d %d %d %d %d\n", a, ea == EAGAIN, b, eb == ETIMEDOUT, c, ec, d, ed == EINVAL);
            return 0;
        })"),
              "-1 1 -1 1 0 0 -1 1\n");
}

// A thread's errno is no shared memory: its accesses are not steps of a trace (only the shared `x` is).
TEST(ExecErrno, ItsAccessesAreNoEvents) {
    const char* src = R"(
        #include <assert.h>
        #include <errno.h>
        #include <pthread.h>
        int x;
        void *worker(void *a) {
            errno = 1;
            x = errno;
            return 0;
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, worker, 0);
            pthread_join(t, 0);
            errno = 2;
            assert(x == errno); // L:assert
            return 0;
        })";
    const auto* e = expectError(checkSource(src), ErrorKind::Assertion, lineOf(src, "L:assert"));
    ASSERT_NE(e, nullptr);
    for (const auto& step : e->trace) EXPECT_NE(step.variable, "errno") << step.operation;
    bool wroteX = false;
    for (const auto& step : e->trace) wroteX = wroteX || (step.operation == "write" && step.variable == "x");
    EXPECT_TRUE(wroteX);
}

// Each thread has its own value for a key, NULL until it sets one; main's value survives the worker's.
TEST(ExecKeys, EachThreadHasItsOwnValue) {
    const char* src = R"(
        #include <assert.h>
        #include <pthread.h>
        pthread_key_t key;
        int a, b;
        void *worker(void *arg) {
            assert(pthread_getspecific(key) == 0);
            assert(pthread_setspecific(key, &b) == 0);
            assert(pthread_getspecific(key) == &b);
            return 0;
        }
        int main() {
            pthread_t t;
            assert(pthread_key_create(&key, 0) == 0);
            pthread_setspecific(key, &a);
            pthread_create(&t, 0, worker, 0);
            assert(pthread_getspecific(key) == &a);
            pthread_join(t, 0);
            assert(pthread_getspecific(key) == &a);
            pthread_key_delete(key);
            return 0;
        })";
    expectSafeInEveryExplorer(src);
}

// The key's number is written into the key variable as a store is: a worker that reads the variable while main
// creates the key races with it (and may read the key before it exists).
TEST(ExecKeys, CreatingAKeyWritesItsVariable) {
    const char* src = R"(
        #include <pthread.h>
        pthread_key_t key;
        int v;
        void *worker(void *arg) {
            pthread_setspecific(key, &v); // L:use
            return 0;
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, worker, 0);
            pthread_key_create(&key, 0); // L:create
            pthread_join(t, 0);
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        const auto* e = expectRaceBetween(checkSource(src, withAlgorithm(algo)), src, "L:use", "L:create");
        ASSERT_NE(e, nullptr);
        EXPECT_NE(e->message.find("`key`"), std::string::npos) << e->message;
    }
}

// C11's tss_* are the same.
TEST(ExecKeys, C11) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <threads.h>
        tss_t k1, k2;
        int x = 5, y = 6;
        int worker(void *arg) { return tss_get(k1) == 0 && tss_set(k1, &y) == thrd_success && tss_get(k1) == &y; }
        int main() {
            thrd_t t;
            int ok = 0;
            tss_create(&k1, 0);
            tss_create(&k2, 0);
            tss_set(k1, &x);
            thrd_create(&t, worker, 0);
            thrd_join(t, &ok);
            printf("%d %d %d %d\n", ok, *(int *)tss_get(k1), tss_get(k2) == 0, k1 != k2);
            tss_delete(k1);
            return 0;
        })"),
              "1 5 1 1\n");
}

// A key's destructor runs when a thread that holds a value for it returns from its start routine or calls
// pthread_exit — with the value, set to NULL first — and not when main returns (a program exit). A destructor that
// sets a value again runs again, at most four rounds (PTHREAD_DESTRUCTOR_ITERATIONS).
TEST(ExecKeys, DestructorsRunAtThreadExit) {
    EXPECT_EQ(safeOutput(R"(
        #include <pthread.h>
        #include <stdio.h>
        pthread_key_t key, again;
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int destroyed, rounds, one = 1, two = 2;
        void count(void *v) {
            printf("d");
            pthread_mutex_lock(&m);
            destroyed += *(int *)v + (pthread_getspecific(key) == 0 ? 10 : 100);
            pthread_mutex_unlock(&m);
        }
        void revive(void *v) { rounds++; pthread_setspecific(again, v); }
        void *returns(void *a) { pthread_setspecific(key, &one); return 0; }
        void *exits(void *a) { pthread_setspecific(key, &two); pthread_exit(0); }
        void *keeps(void *a) { pthread_setspecific(again, &one); return 0; }
        int main() {
            pthread_t t, u, w;
            pthread_key_create(&key, count);
            pthread_key_create(&again, revive);
            pthread_create(&t, 0, returns, 0);
            pthread_create(&u, 0, exits, 0);
            pthread_join(t, 0);
            pthread_join(u, 0);
            pthread_create(&w, 0, keeps, 0);
            pthread_join(w, 0);
            printf("%d %d\n", destroyed, rounds);
            pthread_setspecific(key, &one); // main's return runs no destructor
            return 0;
        })"),
              "dd23 4\n"); // (and no "d" after: main's return)
}

// `free` as a destructor (a library function passed by pointer: Lower.cpp's wrapper): the object a thread leaves
// in its key is freed as it exits, so main's read of it after the join is a use after free — located at the
// worker's return, where the free happens.
TEST(ExecKeys, FreeAsADestructor) {
    const char* src = R"(
        #include <pthread.h>
        #include <stdlib.h>
        pthread_key_t key;
        int *shared;
        void *owner(void *a) {
            int *p = malloc(sizeof *p);
            *p = 7;
            shared = p;
            pthread_setspecific(key, p);
            return 0; // L:exit
        }
        int main() {
            pthread_t t;
            pthread_key_create(&key, free);
            pthread_create(&t, 0, owner, 0);
            pthread_join(t, 0);
            return *shared; // L:use
        })";
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        const auto* e = expectError(checkSource(src, withAlgorithm(algo)), ErrorKind::Memory, lineOf(src, "L:use"));
        ASSERT_NE(e, nullptr);
        EXPECT_NE(e->message.find("use after free"), std::string::npos) << e->message;
        bool freedAtExit = false;
        for (const auto& step : e->trace)
            freedAtExit = freedAtExit || (step.operation == "free" && step.location.line == lineOf(src, "L:exit"));
        EXPECT_TRUE(freedAtExit);
    }
}

// A destructor the program does not define and Skein has no model of is refused, at the call.
TEST(ExecKeys, AnUnknownDestructorIsRefused) {
    const char* src = R"(
        #include <pthread.h>
        void cleanup(void *);
        pthread_key_t key;
        int main() {
            return pthread_key_create(&key, cleanup); // L:create
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    const auto* e = findError(r, ErrorKind::Unsupported);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->location.line, lineOf(src, "L:create"));
    EXPECT_EQ(e->message, "pthread_key_create with destructor `cleanup`, an external function Skein has no model of");
}

// Through a pointer, a library function Skein models runs as a direct call does (its wrapper, Lower.cpp).
TEST(ExecKeys, LibraryFunctionsThroughPointers) {
    EXPECT_EQ(safeOutput(R"(
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int main() {
            int (*lock)(pthread_mutex_t *) = pthread_mutex_lock, (*unlock)(pthread_mutex_t *) = pthread_mutex_unlock;
            size_t (*len)(const char *) = strlen;
            void (*release)(void *) = free;
            char *s = malloc(4);
            strcpy(s, "abc");
            lock(&m);
            int busy = pthread_mutex_trylock(&m);
            unlock(&m);
            printf("%d %d %d\n", busy != 0, (int)len(s), lock == pthread_mutex_lock);
            release(s);
            return 0;
        })"),
              "1 3 1\n");
}

} // namespace
