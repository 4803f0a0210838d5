// Time (core/program/Program.h, kTimedCall; core/exec/Builtins.cpp): the clock reads 0 and stands still, and a
// timed acquire — pthread_mutex_timedlock, sem_timedwait, pthread_rwlock_timed*lock, mtx_timedlock — is a try that
// answers ETIMEDOUT (thrd_timedout) where a try answers EBUSY. A timed condition wait may time out at any point.
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
        auto r = checkSource(src, withAlgorithm(algo));
        const auto* e = expectError(r, ErrorKind::Deadlock, lineOf(src, "L:spin"));
        ASSERT_NE(e, nullptr) << algo;
        EXPECT_NE(e->message.find("spins forever"), std::string::npos) << e->message;
    }
}

// A worker waits for main's flag with a timed wait; main sets it and signals. Each outcome the interleavings allow
// is reached — skipped (the flag already set: r stays -1), timed out before main's section (flag seen 0) or after it
// (seen 1), woken by the signal (0, seen 1) — and none other (woken, the flag unseen), in every explorer. Four traces
// (derived in tests/corpus/threads/cond_timedwait.c's way: the worker first, it times out with main's section in the
// window or after, or waits and is woken; main first, the worker skips the wait).
TEST(ExecTime, TimedConditionWaitReachesEveryOutcome) {
    const std::string program = R"(
        #include <assert.h>
        #include <errno.h>
        #include <pthread.h>
        #include <time.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        int ready, r = -1, seen;
        void *waiter(void *a) {
            struct timespec ts = {1, 0};
            pthread_mutex_lock(&m);
            if (!ready) r = pthread_cond_timedwait(&c, &m, &ts);
            seen = ready;
            pthread_mutex_unlock(&m);
            return 0;
        }
        int main() {
            pthread_t w;
            pthread_create(&w, 0, waiter, 0);
            pthread_mutex_lock(&m);
            ready = 1;
            pthread_cond_signal(&c);
            pthread_mutex_unlock(&m);
            pthread_join(w, 0);
            assert(OUTCOME); // L:outcome
            return 0;
        })";
    auto with = [&](const std::string& outcome) { return substituted(program, "OUTCOME", outcome); };
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        auto all = checkSource(with("1"), withAlgorithm(algo));
        if (std::string(algo) != "vhb") expectCompleteExploration(all, Verdict::Safe, {}, 4, 4);
        for (const char* reached : {"!(r == -1 && seen == 1)", "!(r == ETIMEDOUT && seen == 0)",
                                    "!(r == ETIMEDOUT && seen == 1)", "!(r == 0 && seen == 1)"}) {
            SCOPED_TRACE(reached);
            const std::string src = with(reached);
            expectError(checkSource(src, withAlgorithm(algo)), ErrorKind::Assertion, lineOf(src, "L:outcome"));
        }
        EXPECT_EQ(checkSource(with("!(r == 0 && seen == 0)"), withAlgorithm(algo)).verdict, Verdict::Safe);
    }
}

// No signal ever comes: a plain wait waits for good — a deadlock — where a timed wait times out. The trace of the
// timed wait's failed assertion shows the choice (a nondet step on the condition variable: "times out"), then the
// mutex released and taken again.
TEST(ExecTime, TimedConditionWaitWithoutSignalTimesOut) {
    const std::string program = R"(
        #include <assert.h>
        #include <pthread.h>
        #include <time.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        int main() {
            struct timespec ts = {1, 0};
            pthread_mutex_lock(&m);
            int r = WAIT; // L:wait
            pthread_mutex_unlock(&m);
            assert(r == 0); // L:assert
            return 0;
        })";
    auto with = [&](const std::string& wait) { return substituted(program, "WAIT", wait); };
    const std::string plain = with("pthread_cond_wait(&c, &m)"), timed = with("pthread_cond_timedwait(&c, &m, &ts)");
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        expectError(checkSource(plain, withAlgorithm(algo)), ErrorKind::Deadlock, lineOf(plain, "L:wait"));
        auto r = checkSource(timed, withAlgorithm(algo));
        EXPECT_EQ(findError(r, ErrorKind::Deadlock), nullptr);
        const auto* e = expectError(r, ErrorKind::Assertion, lineOf(timed, "L:assert"));
        ASSERT_NE(e, nullptr);
        ASSERT_GE(e->trace.size(), 5u);
        const auto& choice = e->trace[1];
        EXPECT_EQ(choice.operation, "nondet");
        EXPECT_EQ(choice.variable, "c");
        EXPECT_EQ(choice.detail, "times out");
        EXPECT_EQ(choice.location.line, lineOf(timed, "L:wait"));
        EXPECT_EQ(e->trace[2].operation, "unlock");
        EXPECT_EQ(e->trace[3].operation, "lock");
        EXPECT_EQ(e->trace[3].variable, "m");
    }
}

// C11's cnd_timedwait answers thrd_timedout; a timed wait without the mutex held is a misuse, named as called.
TEST(ExecTime, TimedConditionWaitAnswersAndMisuse) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <threads.h>
        #include <time.h>
        mtx_t m;
        cnd_t c;
        int main() {
            struct timespec ts = {1, 0};
            mtx_init(&m, mtx_timed);
            cnd_init(&c);
            mtx_lock(&m);
            int r = cnd_timedwait(&c, &m, &ts);
            mtx_unlock(&m);
            printf("%d %d\n", r, r == thrd_timedout);
            return 0;
        })"),
              "4 1\n");
    for (const char* call : {"pthread_cond_timedwait", "cnd_timedwait"}) {
        const std::string src = std::string(R"(
            #include <pthread.h>
            #include <threads.h>
            #include <time.h>
            pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
            pthread_cond_t c = PTHREAD_COND_INITIALIZER;
            int main() {
                struct timespec ts = {1, 0};
                return )") + call + R"(((void *)&c, (void *)&m, &ts); // L:call
            })";
        const auto* e = expectError(checkSource(src), ErrorKind::PthreadMisuse, lineOf(src, "L:call"));
        ASSERT_NE(e, nullptr);
        EXPECT_EQ(e->message, std::string(call) + " with mutex `m` not held");
    }
}

// `while (!ready) pthread_cond_timedwait(...)` polls: an iteration that timed out and found the flag unchanged is
// cut (a spin loop), so the exploration ends; when no thread will ever set the flag, the poller spins for good — a
// deadlock of busy-waiting, reported at its loop. While another thread waits for the mutex the poller's timeouts
// release, it is not spinning for good: that thread can run.
TEST(ExecTime, PollingWithTimedWaits) {
    const std::string program = R"(
        #include <pthread.h>
        #include <time.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        int ready;
        void *poller(void *a) {
            struct timespec ts = {1, 0};
            pthread_mutex_lock(&m);
            while (!ready) pthread_cond_timedwait(&c, &m, &ts); // L:poll
            pthread_mutex_unlock(&m);
            return 0;
        }
        int main() {
            pthread_t p;
            pthread_create(&p, 0, poller, 0);
            SET
            pthread_join(p, 0);
            return 0;
        })";
    auto with = [&](const std::string& set) { return substituted(program, "SET", set); };
    const std::string sets = with("pthread_mutex_lock(&m); ready = 1; pthread_mutex_unlock(&m);"), never = with("");
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        auto r = checkSource(sets, withAlgorithm(algo));
        EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? "" : r.errors[0].message);
        EXPECT_FALSE(r.stoppedEarly);
        const auto* e = expectError(checkSource(never, withAlgorithm(algo)), ErrorKind::Deadlock,
                                    lineOf(never, "L:poll"));
        ASSERT_NE(e, nullptr);
        EXPECT_NE(e->message.find("spins forever"), std::string::npos) << e->message;
    }
}

} // namespace
