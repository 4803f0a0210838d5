// Bounds (issue 2: "an execution that hits one is cut and counted, the verdict says the check was bounded,
// and nothing hangs"): loop unrolling, steps and events per thread, executions, time.
#include <chrono>

#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

bool anyBound(const skein::report::CheckResult& r, const std::string& part) {
    for (auto& b : r.bounds)
        if (b.what.find(part) != std::string::npos) return true;
    return false;
}

const char* kTenIterations = R"(
    int x;
    int main() {
        for (int i = 0; i < 10; i++) x += i;
        return x;
    })";

TEST(ExecBounds, UnrollBoundMakesTheVerdictBounded) {
    Options o;
    o.explore.exec.unroll = 3;
    auto r = checkSource(kTenIterations, o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(r.stats.bounded, 1u);
    EXPECT_TRUE(anyBound(r, "--unroll")) << (r.bounds.empty() ? "" : r.bounds[0].what);
}

TEST(ExecBounds, LoopsWithinTheUnrollBoundAreSafe) {
    Options o;
    o.explore.exec.unroll = 20;
    auto r = checkSource(kTenIterations, o);
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(r.stats.bounded, 0u);
    // The counter restarts at each entry of the loop: an inner loop of 5 within an outer loop of 5 fits 6.
    o.explore.exec.unroll = 6;
    auto nested = checkSource(R"(
        int x;
        int main() {
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) x++;
            return x;
        })",
                              o);
    EXPECT_EQ(nested.verdict, Verdict::Safe);
}

TEST(ExecBounds, ErrorsBeforeTheBoundAreStillFound) {
    Options o;
    o.explore.exec.unroll = 4;
    const std::string src = R"(
        #include <assert.h>
        int main() {
            int x = 0;
            while (1) {
                x++;
                assert(x != 2); // L:assert
            }
        })";
    auto r = checkSource(src, o);
    expectError(r, ErrorKind::Assertion, lineOf(src, "L:assert"));
}

TEST(ExecBounds, StepBoundTerminatesAnInfiniteLoop) {
    Options o;
    o.explore.exec.maxStepsPerThread = 100000;
    auto t0 = std::chrono::steady_clock::now();
    auto r = checkSource(R"(
        int main() {
            unsigned i = 0;
            while (1) i = i * 3 + 1;
            return (int)i;
        })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_EQ(r.stats.bounded, 1u);
    EXPECT_TRUE(anyBound(r, "--max-steps")) << (r.bounds.empty() ? "" : r.bounds[0].what);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST(ExecBounds, CancellationStopsALongExecutionFromInside) {
    // One execution of ~2·10⁹ instructions (tens of seconds): cancelled after 50 ms, the check must return within
    // a fraction of a second (the interpreter polls every 64K instructions), bounded, saying why.
    Options o;
    o.explore.exec.maxStepsPerThread = 2'000'000'000;
    auto t0 = std::chrono::steady_clock::now();
    o.explore.cancelled = [t0] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(50); };
    auto r = checkSource(R"(
        int main() {
            unsigned i = 0;
            while (1) i = i * 3 + 1;
            return (int)i;
        })",
                         o);
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(anyBound(r, "cancelled")) << (r.bounds.empty() ? "" : r.bounds[0].what);
    EXPECT_LT(took, std::chrono::seconds(2)); // generous: the machine may be loaded; uncancelled it takes > 10 s
}

TEST(ExecBounds, DefaultStepBoundTerminatesAnInfiniteLoop) {
    auto r = checkSource(R"(
        int main() {
            unsigned i = 0;
            while (1) i = i * 3 + 1;
            return (int)i;
        })");
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_EQ(r.stats.bounded, 1u);
}

TEST(ExecBounds, EventBoundTerminatesALoopOnSharedMemory) {
    Options o;
    o.explore.exec.maxEventsPerThread = 500;
    auto r = checkSource(R"(
        int x;
        int main() { while (1) x++; })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(anyBound(r, "--max-events")) << (r.bounds.empty() ? "" : r.bounds[0].what);
}

TEST(ExecBounds, PureSpinLoopIsCutNotBounded) {
    // A loop that only re-reads: its iterations add nothing (spin-assume), so it needs no bound. Nobody sets the
    // flag: main would spin for good, a deadlock.
    auto r = checkSource(R"(
        int flag;
        int main() { while (!flag) { } return 0; })");
    EXPECT_EQ(r.stats.bounded, 0u);
    EXPECT_EQ(r.stats.blocked, 1u);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, ErrorKind::Deadlock);
}

// Spin-assume of failed attempts (LowerInstr.cpp, isSpinLoop): a loop of trylocks, exchanges or compare-exchanges
// whose iteration changed nothing is cut; one whose attempt changed memory goes on. A thread that would spin for good
// with nobody else to run is a deadlock (Executor::spinsForever).
TEST(ExecBounds, SpinOnAFailedTrylockIsCutAndItsLivelockReported) {
    // main holds the mutex: every attempt fails, the one run is cut, and it would spin for good.
    auto r = checkSource(R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int main() { pthread_mutex_lock(&m); while (pthread_mutex_trylock(&m)) sched_yield(); return 0; })");
    EXPECT_EQ(r.stats.executions, 0u);
    EXPECT_EQ(r.stats.blocked, 1u);
    EXPECT_EQ(r.stats.bounded, 0u);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, ErrorKind::Deadlock);
    EXPECT_EQ(r.errors[0].location.line, 4u);
    EXPECT_NE(r.errors[0].message.find("thread 0 spins forever at line 4 on `m`"), std::string::npos)
        << r.errors[0].message;
}

TEST(ExecBounds, ExchangeOfTheValueReadIsCut) {
    // The exchange reads 1 and writes 1: under sequential consistency nothing changed — and nothing ever will.
    auto r = checkSource(R"(
        #include <stdatomic.h>
        atomic_int l = 1;
        int main() { while (atomic_exchange(&l, 1)) { } return 0; })");
    EXPECT_EQ(r.stats.blocked, 1u);
    EXPECT_EQ(r.stats.bounded, 0u);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, ErrorKind::Deadlock);
}

TEST(ExecBounds, ParkingLoopWithoutEventsIsNoDeadlock) {
    // A loop with no visible event waits for nothing (an SV-COMP assume's halt): cut, not reported.
    auto r = checkSource(R"(
        int main() { LOOP: goto LOOP; return 0; })");
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(r.stats.blocked, 1u);
}

TEST(ExecBounds, SpinWhoseAttemptChangedMemoryGoesOn) {
    // Each exchange writes one less than it finds until it reads 0: 3, 2, 1, 0 — four iterations, none cut.
    auto r = checkSource(R"(
        #include <stdatomic.h>
        #include <assert.h>
        atomic_int l = 3;
        int main() {
            while (atomic_exchange(&l, atomic_load(&l) - 1)) { }
            assert(atomic_load(&l) == -1);
            return 0;
        })");
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(r.stats.executions, 1u);
    EXPECT_EQ(r.stats.blocked, 0u);
}

TEST(ExecBounds, LoopCarryingACounterIsNotASpinLoop) {
    // The attempts are counted: iterations differ, so the failed ones are not cut and the bound applies.
    Options o;
    o.explore.exec.unroll = 5;
    auto r = checkSource(R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int main() { pthread_mutex_lock(&m); int n = 0; while (pthread_mutex_trylock(&m)) n++; return n; })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_EQ(r.stats.bounded, 1u);
    EXPECT_EQ(r.stats.blocked, 0u);
}

TEST(ExecBounds, ExecutionBudget) {
    Options o;
    o.explore.maxExecutions = 3;
    o.explore.detectRaces = false;
    auto r = checkSource(R"(
        #include <pthread.h>
        int x;
        void *w(void *a) { x = 1; x = 2; x = 3; return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, w, 0);
            pthread_create(&t2, 0, w, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            return 0;
        })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(r.stoppedEarly);
    EXPECT_EQ(r.stats.executions, 3u);
}

TEST(ExecBounds, TimeBudget) {
    Options o;
    o.explore.timeLimitSeconds = 0.5;
    o.explore.detectRaces = false;
    auto t0 = std::chrono::steady_clock::now();
    auto r = checkSource(R"(
        #include <pthread.h>
        int x;
        void *w(void *a) { for (int i = 0; i < 20; i++) x = i; return 0; }
        int main() {
            pthread_t t[4];
            for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, w, 0);
            for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
            return 0;
        })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(r.stoppedEarly);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(ExecBounds, ThreadBound) {
    Options o;
    o.explore.exec.maxThreads = 4;
    auto r = checkSource(R"(
        #include <pthread.h>
        void *w(void *a) { return 0; }
        int main() {
            pthread_t t;
            for (int i = 0; i < 10; i++) pthread_create(&t, 0, w, 0);
            return 0;
        })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(anyBound(r, "--max-threads")) << (r.bounds.empty() ? "" : r.bounds[0].what);
}

} // namespace
