// Concurrency semantics of the executor (issue 2, "Executor"), continued from ExecutorThreadsTest.cpp: C11 and GCC
// atomics, compare-exchange spinlocks, spin waits, a lost update without atomics, and SV-COMP atomic sections.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

TEST(ExecThreads, C11Atomics) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdatomic.h>
        #include <assert.h>
        #include <stdio.h>
        atomic_int counter;
        atomic_long wide = 10;
        _Atomic char small;
        void *inc(void *a) {
            atomic_fetch_add(&counter, 1);
            atomic_fetch_add_explicit(&wide, 5, memory_order_relaxed);
            atomic_fetch_or(&small, (char)(long)a);
            return 0;
        }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, inc, (void *)1);
            pthread_create(&t2, 0, inc, (void *)2);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(atomic_load(&counter) == 2);
            int old = atomic_exchange(&counter, 7);
            int expected = 7;
            _Bool ok = atomic_compare_exchange_strong(&counter, &expected, 9);
            int expected2 = 1;
            _Bool bad = atomic_compare_exchange_strong(&counter, &expected2, 11);
            atomic_store(&counter, atomic_load(&counter) + 1);
            atomic_thread_fence(memory_order_seq_cst);
            printf("%d %d %d %d %d %ld %d %d\n", old, ok, bad, expected2, atomic_load(&counter), atomic_load(&wide),
                   atomic_load(&small), atomic_fetch_sub(&counter, 3));
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(output(r), "2 1 0 9 10 20 3 10\n");
}

TEST(ExecThreads, GccAtomicAndSyncBuiltins) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int v = 5;
        long long w = 1;
        short s = 3;
        int main() {
            int a = __atomic_fetch_add(&v, 2, __ATOMIC_SEQ_CST);      // v = 7
            int b = __atomic_add_fetch(&v, 1, __ATOMIC_SEQ_CST);      // v = 8
            __atomic_store_n(&w, 1LL << 40, __ATOMIC_RELEASE);
            long long c = __atomic_load_n(&w, __ATOMIC_ACQUIRE);
            int exp = 8;
            int ok = __atomic_compare_exchange_n(&v, &exp, 20, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            int x = __atomic_exchange_n(&v, 30, __ATOMIC_SEQ_CST);   // v = 30
            int d = __sync_fetch_and_add(&v, 10);                     // v = 40
            int e = __sync_sub_and_fetch(&v, 1);                      // v = 39
            int f = __sync_val_compare_and_swap(&v, 39, 1);           // v = 1
            int g = __sync_bool_compare_and_swap(&v, 2, 3);           // fails
            int h = __sync_lock_test_and_set(&v, 4);                  // v = 4
            __sync_lock_release(&v);                                  // v = 0
            __sync_synchronize();
            short t = __sync_fetch_and_or(&s, 4);                     // s = 7
            int m = __atomic_fetch_and(&v, 0, __ATOMIC_SEQ_CST);
            __atomic_fetch_xor(&s, 1, __ATOMIC_SEQ_CST);              // s = 6
            printf("%d %d %lld %d %d %d %d %d %d %d %d %d %d %d\n", a, b, c, ok, exp, x, d, e, f, g, h, v, t, s + m);
            return 0;
        })"),
              "5 8 1099511627776 1 8 20 30 39 39 0 1 0 3 6\n");
}

TEST(ExecThreads, CasSpinlockProtectsData) {
    // A lock built from a compare-exchange loop: the atomic write→read edges order the critical sections. The loop
    // only retries the compare-exchange, so an attempt that failed is cut (spin-assume of failed attempts) and no
    // unroll bound is needed: the complete runs are the two orders of taking the lock.
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdatomic.h>
        #include <assert.h>
        atomic_int lock;
        int data;
        void acquire(void) { int e; do { e = 0; } while (!atomic_compare_exchange_weak(&lock, &e, 1)); }
        void release(void) { atomic_store(&lock, 0); }
        void *w(void *a) { acquire(); data++; release(); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, w, 0);
            pthread_create(&t2, 0, w, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(data == 2);
            return 0;
        })");
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(r.stats.mazurkiewiczTraces, 2u);
    EXPECT_GT(r.stats.blocked, 0u);
    EXPECT_EQ(r.stats.bounded, 0u);
}

TEST(ExecThreads, SpinWaitOnAFlagNeedsNoBound) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <stdatomic.h>
        #include <assert.h>
        atomic_int flag;
        int data;
        void *w(void *a) { while (atomic_load(&flag) == 0) { } assert(data == 42); return 0; }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, w, 0);
            data = 42;
            atomic_store(&flag, 1);
            pthread_join(t, 0);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
}

TEST(ExecThreads, LostUpdateIsFoundWithoutAtomics) {
    skein::test::Options o;
    o.explore.detectRaces = false;
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        int c;
        void *inc(void *a) { c++; return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, inc, 0);
            pthread_create(&t2, 0, inc, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(c == 2);
            return 0;
        })",
                         o);
    EXPECT_NE(findError(r, ErrorKind::Assertion), nullptr);
}

TEST(ExecThreads, VerifierAtomicFunctionsAndSections) {
    // Both the __VERIFIER_atomic_ function and the begin/end section make the increment indivisible.
    const char* fn = R"(
        #include <pthread.h>
        #include <assert.h>
        int c;
        void __VERIFIER_atomic_inc(void) { int t = c; c = t + 1; }
        void *inc(void *a) { __VERIFIER_atomic_inc(); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, inc, 0);
            pthread_create(&t2, 0, inc, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(c == 2);
            return 0;
        })";
    const char* section = R"(
        #include <pthread.h>
        #include <assert.h>
        extern void __VERIFIER_atomic_begin(void);
        extern void __VERIFIER_atomic_end(void);
        int c;
        void *inc(void *a) { __VERIFIER_atomic_begin(); int t = c; c = t + 1; __VERIFIER_atomic_end(); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, inc, 0);
            pthread_create(&t2, 0, inc, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            assert(c == 2);
            return 0;
        })";
    for (const char* src : {fn, section}) {
        Options o;
        o.explore.detectRaces = false; // whether atomic sections order accesses for the race detector is core/explore's
        auto r = checkSource(src, o);
        EXPECT_EQ(r.verdict, Verdict::Safe) << src;
        EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    }
}

TEST(ExecThreads, VerifierAtomicSectionsAndRaceDetection) {
    auto r = checkSource(R"(
        #include <pthread.h>
        int c;
        void __VERIFIER_atomic_inc(void) { c++; }
        void *inc(void *a) { __VERIFIER_atomic_inc(); return 0; }
        int main() {
            pthread_t t1, t2;
            pthread_create(&t1, 0, inc, 0);
            pthread_create(&t2, 0, inc, 0);
            pthread_join(t1, 0);
            pthread_join(t2, 0);
            return c;
        })");
    // Each atomic section runs alone (SV-COMP semantics): their accesses count as atomic, so no race.
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].message);
    EXPECT_EQ(findError(r, ErrorKind::Assertion), nullptr);
}

} // namespace
