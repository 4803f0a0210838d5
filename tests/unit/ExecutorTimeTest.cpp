// Time (core/program/Program.h, kTimedCall; core/exec/Builtins.cpp): the clock reads 0 and stands still, and a
// timed acquire — pthread_mutex_timedlock, sem_timedwait, pthread_rwlock_timed*lock, mtx_timedlock — is a try that
// answers ETIMEDOUT (thrd_timedout) where a try answers EBUSY.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

TEST(ExecTime, TheClockReadsZero) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <sys/time.h>
        #include <time.h>
        int main() {
            struct timespec ts = {5, 5};
            struct timeval tv = {6, 6};
            time_t t = 7;
            int r = clock_gettime(CLOCK_MONOTONIC, &ts);
            gettimeofday(&tv, 0);
            long now = (long)time(&t);
            printf("%d %ld %ld %ld %ld %ld %ld\n", r, (long)ts.tv_sec, ts.tv_nsec, (long)tv.tv_sec, (long)tv.tv_usec,
                   now, (long)t);
            return (int)time(0);
        })"),
              "0 0 0 0 0 0 0\n");
}

// Another thread could read a shared timespec while the clock writes it: refused (no event is made of that write)
// rather than written unseen.
TEST(ExecTime, TheClockIntoSharedMemoryIsRefused) {
    const char* src = R"(
        #include <pthread.h>
        #include <time.h>
        struct timespec shared;
        void *reader(void *a) { return (void *)shared.tv_sec; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, reader, 0);
            clock_gettime(CLOCK_REALTIME, &shared); // L:clock
            pthread_join(t, 0);
            return 0;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    const auto* e = findError(r, ErrorKind::Unsupported);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->location.line, lineOf(src, "L:clock"));
    EXPECT_NE(e->message.find("clock_gettime into shared memory (`shared`)"), std::string::npos) << e->message;
}

// A timed lock of a free mutex takes it; of a taken one (by this thread, a normal mutex) times out; of an
// error-checking mutex this thread holds reports the deadlock it would wait for. A timed write lock of a lock held
// for reading times out, a timed read lock of it succeeds; a timed wait on an empty semaphore fails (-1).
TEST(ExecTime, TimedAcquiresAnswerAsTries) {
    EXPECT_EQ(safeOutput(R"(
        #define _GNU_SOURCE
        #include <pthread.h>
        #include <semaphore.h>
        #include <stdio.h>
        #include <time.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
        pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
        sem_t s;
        int main() {
            struct timespec ts = {1, 0};
            int a = pthread_mutex_timedlock(&m, &ts);
            int b = pthread_mutex_timedlock(&m, &ts);
            pthread_mutex_lock(&e);
            int c = pthread_mutex_timedlock(&e, &ts);
            pthread_rwlock_rdlock(&l);
            int d = pthread_rwlock_timedwrlock(&l, &ts);
            int f = pthread_rwlock_timedrdlock(&l, &ts);
            sem_init(&s, 0, 0);
            int g = sem_timedwait(&s, &ts);
            sem_post(&s);
            int h = sem_timedwait(&s, &ts);
            printf("%d %d %d %d %d %d %d\n", a, b, c, d, f, g, h);
            return 0;
        })"),
              "0 110 35 110 0 -1 0\n");
}

// A spin of timed locks on a mutex its holder never gives back is a spin of failed attempts: cut, and the thread
// that would spin for good is reported as a deadlock at its attempt, in dfs and qpor alike.
TEST(ExecTime, SpinOfTimedLocksThatCanNeverSucceed) {
    const char* src = R"(
        #include <pthread.h>
        #include <time.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        void *keeper(void *a) { pthread_mutex_lock(&m); return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, keeper, 0);
            pthread_join(t, 0);
            struct timespec ts = {1, 0};
            while (pthread_mutex_timedlock(&m, &ts) != 0) // L:spin
                ;
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor"}) {
        auto r = checkSource(src, {.algorithm = algo});
        const auto* e = expectError(r, ErrorKind::Deadlock, lineOf(src, "L:spin"));
        ASSERT_NE(e, nullptr) << algo;
        EXPECT_NE(e->message.find("spins forever"), std::string::npos) << e->message;
    }
}

} // namespace
