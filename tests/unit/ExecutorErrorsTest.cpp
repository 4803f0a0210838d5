// Every error kind of issue 2's executor section, each with its kind, source line, thread and a trace.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ExecErrors, AssertionFailure) {
    const std::string src = R"(
        #include <assert.h>
        int twice(int x) { return 2 * x; }
        int main() {
            int v = twice(3);
            assert(v == 7); // L:assert
            return 0;
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Assertion, lineOf(src, "L:assert"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "v == 7")) << e->message;
    EXPECT_EQ(e->thread, 0u);
    EXPECT_EQ(e->location.function, "main");
}

TEST(ExecErrors, ReachErrorAndVerifierError) {
    // SV-COMP files define reach_error themselves; the call is the error, whatever its body.
    const std::string src = R"(
        extern void __assert_fail(const char *, const char *, unsigned int, const char *);
        void reach_error() { __assert_fail("0", "t.c", 3, "reach_error"); }
        extern void __VERIFIER_error(void);
        extern _Bool __VERIFIER_nondet_bool(void);
        int main() {
            if (__VERIFIER_nondet_bool()) reach_error(); // L:reach
            else __VERIFIER_error(); // L:verr
            return 0;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_EQ(r.errors.size(), 2u);
    std::vector<uint32_t> lines = {r.errors[0].location.line, r.errors[1].location.line};
    std::sort(lines.begin(), lines.end());
    EXPECT_EQ(lines, (std::vector<uint32_t>{lineOf(src, "L:reach"), lineOf(src, "L:verr")}));
    for (auto& e : r.errors) EXPECT_EQ(e.kind, ErrorKind::Assertion);
}

TEST(ExecErrors, AssertionInAThreadNamesTheThreadAndReplays) {
    const std::string src = R"(
        #include <pthread.h>
        #include <assert.h>
        int x;
        void *w(void *a) { assert(x == 0); return 0; } // L:assert
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            x = 1;
            pthread_join(t, 0);
            return 0;
        })";
    Options o;
    o.explore.detectRaces = false;
    auto r = checkSource(src, o);
    const auto* e = expectError(r, ErrorKind::Assertion, lineOf(src, "L:assert"));
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->thread, 1u);
    EXPECT_EQ(e->location.function, "w");
    ASSERT_FALSE(e->schedule.empty());
    // The schedule is the replayable decision list: main's create and write come before the worker's read.
    EXPECT_EQ(e->schedule.front().thread, 0u);
    EXPECT_EQ(e->schedule.back().thread, 1u);
}

TEST(ExecErrors, DeadlockNamesTheMutexes) {
    const std::string src = R"(
        #include <pthread.h>
        pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
        void *t1(void *x) { pthread_mutex_lock(&a); pthread_mutex_lock(&b); pthread_mutex_unlock(&b); pthread_mutex_unlock(&a); return 0; }
        void *t2(void *x) { pthread_mutex_lock(&b); pthread_mutex_lock(&a); pthread_mutex_unlock(&a); pthread_mutex_unlock(&b); return 0; }
        int main() {
            pthread_t x, y;
            pthread_create(&x, 0, t1, 0);
            pthread_create(&y, 0, t2, 0);
            pthread_join(x, 0);
            pthread_join(y, 0);
            return 0;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    const auto* e = findError(r, ErrorKind::Deadlock);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "mutex `a`")) << e->message;
    EXPECT_TRUE(contains(e->message, "mutex `b`")) << e->message;
    EXPECT_FALSE(e->trace.empty());
}

TEST(ExecErrors, SelfDeadlockOnARelock) {
    const std::string src = R"(
        #include <pthread.h>
        pthread_mutex_t m[2];
        int main() {
            pthread_mutex_lock(&m[1]);
            pthread_mutex_lock(&m[1]); // L:relock
            return 0;
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Deadlock, lineOf(src, "L:relock"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "m[1]")) << e->message;
}

TEST(ExecErrors, DataRaceReportsBothAccesses) {
    const std::string src = R"(
        #include <pthread.h>
        int shared;
        void *w(void *a) {
            shared = 1; // L:write
            return 0;
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            int v = shared; // L:read
            pthread_join(t, 0);
            return v;
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    const auto* e = findError(r, ErrorKind::DataRace);
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->otherLocation.has_value());
    std::vector<uint32_t> lines = {e->location.line, e->otherLocation->line};
    std::sort(lines.begin(), lines.end());
    std::vector<uint32_t> want = {lineOf(src, "L:write"), lineOf(src, "L:read")};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(lines, want);
    ASSERT_TRUE(e->otherThread.has_value());
    EXPECT_NE(*e->otherThread, e->thread);
    EXPECT_TRUE(contains(e->message, "shared")) << e->message;
    EXPECT_EQ(r.errors.size(), 1u) << "one race, whichever access comes first";
}

// A memcpy races with a writer on its source: the message names the source and says the copy reads it (it once
// named the copy's destination and said "writes", the copy being a writing event).
TEST(ExecErrors, RaceOfACopyOnItsSourceSaysItReads) {
    const std::string src = R"(
        #include <pthread.h>
        #include <string.h>
        int source[2];
        void *w(void *a) { source[0] = 1; return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            int copy[2];
            memcpy(copy, source, sizeof copy); // L:copy
            pthread_join(t, 0);
            return copy[0];
        })";
    auto r = checkSource(src);
    const auto* e = findError(r, ErrorKind::DataRace);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "`source[0]`")) << e->message;
    const bool copyFirst = e->otherLocation && e->otherLocation->line == lineOf(src, "L:copy");
    EXPECT_TRUE(contains(e->message, copyFirst ? "thread 0 reads it" : "thread 0's read")) << e->message;
    EXPECT_FALSE(contains(e->message, "thread 0 writes")) << e->message;
}

TEST(ExecErrors, NoRaceWhenOrderedByLocksJoinOrAtomics) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdatomic.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int locked, beforeCreate, afterJoin;
        atomic_int at;
        void *w(void *a) {
            int v = beforeCreate;
            pthread_mutex_lock(&m); locked++; pthread_mutex_unlock(&m);
            atomic_fetch_add(&at, 1);
            afterJoin = v;
            return 0;
        }
        int main() {
            beforeCreate = 1;
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_mutex_lock(&m); locked++; pthread_mutex_unlock(&m);
            atomic_fetch_add(&at, 1);
            pthread_join(t, 0);
            return afterJoin;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
}

TEST(ExecErrors, OutOfBoundsAccesses) {
    const std::string global = R"(
        int a[5];
        int idx(int i) { return i; }
        int main() {
            a[idx(5)] = 1; // L:oob
            return 0;
        })";
    auto r = checkSource(global);
    const auto* e = expectError(r, ErrorKind::Memory, lineOf(global, "L:oob"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "out-of-bounds")) << e->message;
    EXPECT_TRUE(contains(e->message, "`a`")) << e->message;

    const std::string stack = R"(
        int idx(int i) { return i; }
        int main() {
            int local[3] = {1, 2, 3};
            int s = 0;
            for (int i = 0; i <= idx(3); i++) s += local[i]; // L:oob
            return s;
        })";
    auto rs = checkSource(stack);
    expectError(rs, ErrorKind::Memory, lineOf(stack, "L:oob"));

    const std::string heap = R"(
        #include <stdlib.h>
        int main() {
            char *p = malloc(4);
            p[-1] = 0; // L:oob
            return 0;
        })";
    auto rh = checkSource(heap);
    expectError(rh, ErrorKind::Memory, lineOf(heap, "L:oob"));

    const std::string vla = R"(
        int f(int n) {
            int v[n];
            v[n] = 1; // L:oob
            return v[0];
        }
        int main() { return f(4); })";
    auto rv = checkSource(vla);
    expectError(rv, ErrorKind::Memory, lineOf(vla, "L:oob"));

    const std::string copy = R"(
        #include <string.h>
        char dst[4];
        int main() {
            strcpy(dst, "toolong"); // L:oob
            return 0;
        })";
    auto rc = checkSource(copy);
    expectError(rc, ErrorKind::Memory, lineOf(copy, "L:oob"));
}

TEST(ExecErrors, NullDereference) {
    const std::string src = R"(
        struct S { int a, b; };
        struct S *get(void) { return 0; }
        int main() {
            struct S *p = get();
            return p->b; // L:null
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Memory, lineOf(src, "L:null"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "null")) << e->message;
}

TEST(ExecErrors, NullFunctionPointerCall) {
    const std::string src = R"(
        int (*fp)(int);
        int main() {
            return fp(1); // L:call
        })";
    auto r = checkSource(src);
    expectError(r, ErrorKind::Memory, lineOf(src, "L:call"));
}

TEST(ExecErrors, UseAfterFree) {
    const std::string src = R"(
        #include <stdlib.h>
        int main() {
            int *p = malloc(sizeof(int));
            *p = 1;
            free(p);
            return *p; // L:uaf
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Memory, lineOf(src, "L:uaf"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "after free")) << e->message;
}

TEST(ExecErrors, DanglingStackPointer) {
    const std::string src = R"(
        int *escape(void) { int local = 5; int *p = &local; return p; }
        int main() {
            int *p = escape();
            return *p; // L:dangling
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Memory, lineOf(src, "L:dangling"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "returned")) << e->message;
}

TEST(ExecErrors, DoubleAndInvalidFree) {
    const std::string twice = R"(
        #include <stdlib.h>
        int main() {
            char *p = malloc(8);
            free(p);
            free(p); // L:free
            return 0;
        })";
    auto r = checkSource(twice);
    const auto* e = expectError(r, ErrorKind::Memory, lineOf(twice, "L:free"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "double free")) << e->message;

    const std::string interior = R"(
        #include <stdlib.h>
        int g;
        int main() {
            char *p = malloc(8);
            free(p + 1); // L:interior
            return 0;
        })";
    auto ri = checkSource(interior);
    expectError(ri, ErrorKind::Memory, lineOf(interior, "L:interior"));

    const std::string stack = R"(
        #include <stdlib.h>
        int g;
        int main() {
            int local;
            free(&g); // L:global
            free(&local);
            return 0;
        })";
    auto rg = checkSource(stack);
    const auto* eg = expectError(rg, ErrorKind::Memory, lineOf(stack, "L:global"));
    ASSERT_NE(eg, nullptr);
    EXPECT_TRUE(contains(eg->message, "not returned by malloc")) << eg->message;
}

TEST(ExecErrors, DivisionByZero) {
    const std::string src = R"(
        extern _Bool __VERIFIER_nondet_bool(void);
        int zero(void) { return 0; }
        int main() {
            int z = zero();
            if (__VERIFIER_nondet_bool()) return 10 / z; // L:div
            return 10 % z; // L:rem
        })";
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Error);
    ASSERT_EQ(r.errors.size(), 2u);
    for (auto& e : r.errors) EXPECT_EQ(e.kind, ErrorKind::Arithmetic);
    std::vector<uint32_t> lines = {r.errors[0].location.line, r.errors[1].location.line};
    std::sort(lines.begin(), lines.end());
    EXPECT_EQ(lines, (std::vector<uint32_t>{lineOf(src, "L:div"), lineOf(src, "L:rem")}));
}

TEST(ExecErrors, FloatDivisionByZeroIsNotAnError) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        double zero(void) { return 0.0; }
        int main() { printf("%f", 1.0 / zero()); return 0; })"),
              "inf");
}

TEST(ExecErrors, UnlockOfAMutexNotHeld) {
    const std::string notLocked = R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int main() {
            pthread_mutex_unlock(&m); // L:unlock
            return 0;
        })";
    auto r = checkSource(notLocked);
    const auto* e = expectError(r, ErrorKind::PthreadMisuse, lineOf(notLocked, "L:unlock"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "`m`")) << e->message;

    const std::string otherThread = R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        void *w(void *a) { pthread_mutex_unlock(&m); return 0; } // L:unlock
        int main() {
            pthread_mutex_lock(&m);
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_join(t, 0);
            return 0;
        })";
    auto ro = checkSource(otherThread);
    const auto* eo = expectError(ro, ErrorKind::PthreadMisuse, lineOf(otherThread, "L:unlock"));
    ASSERT_NE(eo, nullptr);
    EXPECT_EQ(eo->thread, 1u);
    EXPECT_TRUE(contains(eo->message, "held by thread 0")) << eo->message;
}

TEST(ExecErrors, JoinOfAThreadThatCannotBeJoined) {
    const std::string twice = R"(
        #include <pthread.h>
        void *w(void *a) { return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_join(t, 0);
            pthread_join(t, 0); // L:join
            return 0;
        })";
    auto r = checkSource(twice);
    expectError(r, ErrorKind::PthreadMisuse, lineOf(twice, "L:join"));

    const std::string detached = R"(
        #include <pthread.h>
        void *w(void *a) { return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_detach(t);
            pthread_join(t, 0); // L:join
            return 0;
        })";
    auto rd = checkSource(detached);
    expectError(rd, ErrorKind::PthreadMisuse, lineOf(detached, "L:join"));

    const std::string invalid = R"(
        #include <pthread.h>
        pthread_t never;
        int main() {
            pthread_join(never, 0); // L:join
            return 0;
        })";
    auto ri = checkSource(invalid);
    expectError(ri, ErrorKind::PthreadMisuse, lineOf(invalid, "L:join"));

    const std::string self = R"(
        #include <pthread.h>
        int main() {
            pthread_join(pthread_self(), 0); // L:join
            return 0;
        })";
    auto rs = checkSource(self);
    EXPECT_EQ(rs.verdict, Verdict::Error);
    ASSERT_FALSE(rs.errors.empty());
    EXPECT_EQ(rs.errors[0].location.line, lineOf(self, "L:join"));
}

TEST(ExecErrors, StackExhaustion) {
    const std::string src = R"(
        int down(int n) { return down(n + 1) + 1; } // L:rec
        int main() { return down(0); })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::StackOverflow, lineOf(src, "L:rec"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "down")) << e->message;
}

TEST(ExecErrors, WriteToAStringLiteral) {
    const std::string src = R"(
        int main() {
            char *s = "const";
            s[0] = 'C'; // L:write
            return 0;
        })";
    auto r = checkSource(src);
    expectError(r, ErrorKind::Memory, lineOf(src, "L:write"));
}

TEST(ExecErrors, ErrorsInEveryInterleavingAreDeduplicated) {
    // The same failing assertion, reached in several interleavings, is one error with several occurrences.
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int c;
        void *w(void *a) { pthread_mutex_lock(&m); c++; pthread_mutex_unlock(&m); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, w, 0);
            pthread_create(&t2, 0, w, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(c == 3);
            return 0;
        })");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, ErrorKind::Assertion);
    EXPECT_EQ(r.errors[0].occurrences, r.stats.executions); // it fails in every one (c ends at 2)
    EXPECT_GE(r.errors[0].occurrences, 2u);
}

TEST(ExecErrors, OccurrencesCountExecutionsNotThreads) {
    // Both workers fail the same assertion in every execution: one error, one occurrence per execution (it was
    // counted once per failing thread).
    const char* src = R"(
        #include <pthread.h>
        #include <assert.h>
        int c;
        void *w(void *a) { c = c + 1; assert(c == 5); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, w, 0);
            pthread_create(&t2, 0, w, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        Options o;
        o.algorithm = algo;
        o.explore.detectRaces = false;
        auto r = checkSource(src, o);
        ASSERT_EQ(r.errors.size(), 1u) << algo;
        EXPECT_EQ(r.errors[0].kind, ErrorKind::Assertion) << algo;
        // vhb: its classes (5 here), not the nodes of its search whose witnesses show the error (it counted 15).
        if (std::string(algo) == "vhb") {
            EXPECT_EQ(r.stats.executions, 5u);
        }
        EXPECT_EQ(r.errors[0].occurrences, r.stats.executions) << algo;
    }
}

TEST(ExecErrors, StructSelfAssignmentIsNotAnOverlappingCopy) {
    // `a[i] = a[j]` with i == j is an llvm.memcpy with equal pointers, which LLVM allows.
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        struct S { int v[6]; } a[2];
        int same(void) { return 1; }
        int main() {
            a[1].v[5] = 7;
            a[same()] = a[same()];
            printf("%d\n", a[1].v[5]);
            return 0;
        })"),
              "7\n");
}

TEST(ExecErrors, OverlappingMemcpyIsAnError) {
    const std::string src = R"(
        #include <string.h>
        int main() {
            char s[8] = "abcdefg";
            memcpy(s + 1, s, 4); // L:copy
            return s[0];
        })";
    auto r = checkSource(src);
    const auto* e = expectError(r, ErrorKind::Memory, lineOf(src, "L:copy"));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "overlapping")) << e->message;
}

TEST(ExecErrors, CondWaitWithoutTheMutex) {
    const std::string src = R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        int main() {
            pthread_cond_wait(&c, &m); // L:wait
            return 0;
        })";
    auto r = checkSource(src);
    expectError(r, ErrorKind::PthreadMisuse, lineOf(src, "L:wait"));
}

TEST(ExecErrors, JoinCycleIsADeadlock) {
    auto r = checkSource(R"(
        #include <pthread.h>
        pthread_t mainThread;
        void *w(void *a) { pthread_join(mainThread, 0); return 0; }
        int main() {
            mainThread = pthread_self();
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            pthread_join(t, 0);
            return 0;
        })");
    const auto* e = findError(r, ErrorKind::Deadlock);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(contains(e->message, "join thread 0")) << e->message;
    EXPECT_TRUE(contains(e->message, "join thread 1")) << e->message;
}

TEST(ExecErrors, RacesThroughLibraryCallsAndHeapObjects) {
    const std::string src = R"(
        #include <pthread.h>
        #include <string.h>
        #include <stdlib.h>
        char buf[8];
        int *heap;
        void *w(void *a) {
            memset(buf, 1, sizeof buf); // L:memset
            heap[1] = 2; // L:heapw
            return 0;
        }
        int main() {
            heap = malloc(2 * sizeof(int));
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            char copy[8];
            memcpy(copy, buf, sizeof buf); // L:memcpy
            int v = heap[1]; // L:heapr
            pthread_join(t, 0);
            free(heap);
            return v + copy[0];
        })";
    auto r = checkSource(src);
    std::vector<std::pair<uint32_t, uint32_t>> races;
    for (auto& e : r.errors)
        if (e.kind == ErrorKind::DataRace && e.otherLocation)
            races.push_back(std::minmax(e.location.line, e.otherLocation->line));
    std::sort(races.begin(), races.end());
    auto pair = [&](const char* a, const char* b) {
        uint32_t x = lineOf(src, a), y = lineOf(src, b);
        return std::pair{std::min(x, y), std::max(x, y)};
    };
    std::vector<std::pair<uint32_t, uint32_t>> want = {pair("L:memset", "L:memcpy"), pair("L:heapw", "L:heapr")};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(races, want);
}

// The race detector reports every earlier access an access races with, not only the first one it meets: here the
// reader's int read meets main's int write on byte 0 before the byte write on byte 1, and the byte write meets
// main's write as byte 1's last write, in every execution — yet the byte write and the read are unordered and
// overlap on byte 1 (the detector once reported only main's write, so dfs and qpor missed the pair that vhb's race
// search found: random program 13164 of VhbDifferential.AgreesWithDfsWithCopiesAndMixedSizes).
TEST(ExecErrors, RaceHiddenBehindAnotherOnADifferentByte) {
    const std::string src = R"(
        #include <pthread.h>
        void __VERIFIER_atomic_begin(void);
        void __VERIFIER_atomic_end(void);
        int x;
        void *writer(void *a) {
            ((char *)&x)[1] = 1; // L:byte
            return 0;
        }
        void *reader(void *a) {
            int r = x; // L:read
            return (void *)(long)r;
        }
        int main() {
            pthread_t w, r;
            pthread_create(&w, 0, writer, 0);
            __VERIFIER_atomic_begin();
            pthread_create(&r, 0, reader, 0);
            x = 1; // L:int
            __VERIFIER_atomic_end();
            pthread_join(w, 0);
            pthread_join(r, 0);
            return 0;
        })";
    auto pair = [&](const char* a, const char* b) {
        uint32_t x = lineOf(src, a), y = lineOf(src, b);
        return std::pair{std::min(x, y), std::max(x, y)};
    };
    std::vector<std::pair<uint32_t, uint32_t>> want = {pair("L:byte", "L:int"), pair("L:read", "L:int"),
                                                       pair("L:byte", "L:read")};
    std::sort(want.begin(), want.end());
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        Options o;
        o.algorithm = algo;
        auto r = checkSource(src, o);
        std::vector<std::pair<uint32_t, uint32_t>> races;
        for (auto& e : r.errors) {
            ASSERT_EQ(e.kind, ErrorKind::DataRace) << algo << ": " << e.message;
            ASSERT_TRUE(e.otherLocation.has_value()) << algo;
            races.push_back(std::minmax(e.location.line, e.otherLocation->line));
        }
        std::sort(races.begin(), races.end());
        EXPECT_EQ(races, want) << algo;
    }
}

TEST(ExecErrors, FreeRacingWithAnAccessIsFound) {
    // Either a race or a use after free, depending on the order: both are reported.
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdlib.h>
        int *p;
        void *w(void *a) { free(p); return 0; }
        int main() {
            p = malloc(sizeof(int));
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            *p = 1;
            pthread_join(t, 0);
            return 0;
        })");
    EXPECT_NE(findError(r, ErrorKind::DataRace), nullptr);
    EXPECT_NE(findError(r, ErrorKind::Memory), nullptr);
}

} // namespace
