// pthread_once and C11's call_once (core/exec/SyncBuiltins.cpp, Builtin::Once): a lock on the once object around the
// first caller's init routine, so that every caller returns after init has run, and init runs once per execution.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// Three workers, one init: whoever comes first runs it, the others wait for it and see its write.
// The three calls are critical sections on `once` in any of 3! orders (every other pair of events is ordered by
// them or reads only): 6 traces, one final state, init run once in each.
const char* kThreeWorkers = R"(
    #include <assert.h>
    #include <pthread.h>
    pthread_once_t once = PTHREAD_ONCE_INIT;
    int a, inits;
    void init(void) { a = 1; inits++; }
    void *worker(void *arg) {
        assert(pthread_once(&once, init) == 0 && a == 1);
        return 0;
    }
    int main() {
        pthread_t t[3];
        for (int i = 0; i < 3; ++i) pthread_create(&t[i], 0, worker, 0);
        for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
        assert(inits == 1);
        return 0;
    })";

TEST(ExecOnce, InitRunsOnceAndLaterCallersWaitForIt) {
    auto dfs = checkSource(kThreeWorkers);
    expectCompleteExploration(dfs, Verdict::Safe, {}, dfs.stats.executions, 1);
    EXPECT_EQ(dfs.stats.mazurkiewiczTraces.value_or(0), 6u);
    for (const char* alt : {"optimal", "k1", "sdpor"}) {
        Options o = withAlgorithm("qpor");
        o.explore.alt = alt;
        auto q = checkSource(kThreeWorkers, o);
        expectCompleteExploration(q, Verdict::Safe, {}, 6, 1);
        EXPECT_EQ(q.stats.ssb, 0u) << alt; // three critical sections of one object: no SSB in any mode
    }
}

// Two workers that each call init themselves race and run it twice: the model is what makes the program above safe.
TEST(ExecOnce, WithoutItTheWorkersRace) {
    const char* src = R"(
        #include <assert.h>
        #include <pthread.h>
        int a, inits;
        void init(void) { a = 1; inits++; }
        void *worker(void *arg) { init(); return 0; }
        int main() {
            pthread_t t[2];
            for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, worker, 0);
            for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
            assert(inits == 1);
            return 0;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    EXPECT_NE(findError(r, ErrorKind::DataRace), nullptr);
    EXPECT_NE(findError(r, ErrorKind::Assertion), nullptr);
}

// One thread calling twice: the second call finds the object done. Objects in the heap and in a struct work alike.
TEST(ExecOnce, SecondCallOfOneThreadAndObjectsAnywhere) {
    EXPECT_EQ(safeOutput(R"(
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>
        int runs;
        void count(void) { runs++; }
        struct S { int pad; pthread_once_t once; } s = {7, PTHREAD_ONCE_INIT};
        int main() {
            pthread_once_t *heap = calloc(1, sizeof *heap);
            pthread_once(heap, count);
            pthread_once(heap, count);
            pthread_once(&s.once, count);
            pthread_once(&s.once, count);
            printf("%d %d\n", runs, s.pad);
            free(heap);
            return 0;
        })"),
              "2 7\n");
}

// C11: call_once with a once_flag and threads of <threads.h>.
TEST(ExecOnce, CallOnce) {
    const char* src = R"(
        #include <assert.h>
        #include <threads.h>
        once_flag flag = ONCE_FLAG_INIT;
        int inits, seen;
        void init(void) { inits++; }
        int worker(void *arg) { call_once(&flag, init); return inits; }
        int main() {
            thrd_t t1, t2;
            int r1, r2;
            thrd_create(&t1, worker, 0);
            thrd_create(&t2, worker, 0);
            thrd_join(t1, &r1);
            thrd_join(t2, &r2);
            assert(inits == 1 && r1 == 1 && r2 == 1);
            return 0;
        })";
    auto dfs = checkSource(src);
    expectCompleteExploration(dfs, Verdict::Safe, {}, dfs.stats.executions, 1);
    EXPECT_EQ(dfs.stats.mazurkiewiczTraces.value_or(0), 2u);
    auto q = checkSource(src, withAlgorithm("qpor"));
    expectCompleteExploration(q, Verdict::Safe, {}, 2, 1);
}

// init calling pthread_once on its own object waits for itself (glibc deadlocks too): reported as a deadlock whose
// description names the once object and the thread running its init.
TEST(ExecOnce, InitThatCallsItsOwnOnceDeadlocks) {
    const char* src = R"(
        #include <pthread.h>
        pthread_once_t once = PTHREAD_ONCE_INIT;
        void init(void) {
            pthread_once(&once, init); // L:again
        }
        int main() {
            pthread_once(&once, init);
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor"}) {
        auto r = checkSource(src, withAlgorithm(algo));
        const auto* e = expectError(r, ErrorKind::Deadlock, lineOf(src, "L:again"));
        ASSERT_NE(e, nullptr) << algo;
        EXPECT_NE(e->message.find("thread 0 waits in pthread_once on `once` for the init routine thread 0 is running"),
                  std::string::npos)
            << e->message;
    }
}

// An init routine that is not a function of the program: a misuse at the call, not a crash of the checker.
TEST(ExecOnce, InvalidInitRoutine) {
    const char* src = R"(
        #include <pthread.h>
        pthread_once_t once = PTHREAD_ONCE_INIT;
        int main() {
            void (*f)(void) = 0;
            pthread_once(&once, f); // L:call
            return 0;
        })";
    expectError(checkSource(src), ErrorKind::PthreadMisuse, lineOf(src, "L:call"));
}

// A once object the caller cannot write: the access error of any pthread object.
TEST(ExecOnce, OnceObjectOutOfBounds) {
    const char* src = R"(
        #include <pthread.h>
        #include <stdlib.h>
        void init(void) {}
        int main() {
            char *p = malloc(2);
            pthread_once((pthread_once_t *)p, init); // L:call
            free(p);
            return 0;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_EQ(r.errors[0].location.line, lineOf(src, "L:call")) << r.errors[0].message;
}

// vhb does not model it (the flag is in bytes no event of a class holds): it hands the program over to dfs, with a
// note saying why.
TEST(ExecOnce, VhbHandsItToDfs) {
    auto v = checkSource(kThreeWorkers, withAlgorithm("vhb"));
    EXPECT_EQ(v.algorithm, "dfs");
    ASSERT_EQ(v.notes.size(), 1u);
    EXPECT_NE(v.notes[0].find("pthread_once"), std::string::npos) << v.notes[0];
    EXPECT_NE(v.notes[0].find("dfs was used instead"), std::string::npos) << v.notes[0];
    EXPECT_EQ(v.verdict, Verdict::Safe);
    EXPECT_EQ(v.stats.mazurkiewiczTraces.value_or(0), 6u);
}

} // namespace
