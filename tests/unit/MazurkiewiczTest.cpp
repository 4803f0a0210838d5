// The dfs oracle against counts derived by hand (issue 2, "Counts derived by hand").
#include <functional>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

using skein::test::checkSource;

namespace {

// n threads that each write their own variable: every interleaving is one trace.
TEST(Mazurkiewicz, DisjointVariablesHaveOneTrace) {
    auto r = checkSource(R"(
        #include <pthread.h>
        int a, b, c;
        void *ta(void *x) { a = 1; a = 2; return 0; }
        void *tb(void *x) { b = 1; b = 2; return 0; }
        void *tc(void *x) { c = 1; return 0; }
        int main() {
            pthread_t x, y, z;
            pthread_create(&x, 0, ta, 0); pthread_create(&y, 0, tb, 0); pthread_create(&z, 0, tc, 0);
            pthread_join(x, 0); pthread_join(y, 0); pthread_join(z, 0);
            return 0;
        })");
    EXPECT_EQ(r.verdict, skein::report::Verdict::Safe);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
    EXPECT_EQ(*r.stats.finalStates, 1u);
}

// n threads each writing one shared variable once: n! orders of the writes.
TEST(Mazurkiewicz, NWritersHaveNFactorialTraces) {
    for (int n : {2, 3, 4}) {
        skein::test::Options o;
        o.flags = {"-DN=" + std::to_string(n)};
        o.explore.detectRaces = false;
        auto joined = checkSource(R"(
            #include <pthread.h>
            int x;
            void *w(void *a) { x = (int)(long)a; return 0; }
            int main() {
                pthread_t t[N];
                for (long i = 0; i < N; i++) pthread_create(&t[i], 0, w, (void *)(i + 1));
                for (int i = 0; i < N; i++) pthread_join(t[i], 0);
                return 0;
            })",
                                  o);
        int fact = 1;
        for (int k = 2; k <= n; ++k) fact *= k;
        EXPECT_EQ(*joined.stats.mazurkiewiczTraces, uint64_t(fact)) << "n = " << n;
        EXPECT_EQ(*joined.stats.finalStates, uint64_t(n)) << "the last writer decides x";
    }
}

// Where only the workers' own events interleave (main creates and joins them all, workers touch private
// globals), k threads with n_i events have (Σ n_i)! / Π n_i! interleavings: the dfs execution count.
TEST(Mazurkiewicz, InterleavingsOfIndependentThreads) {
    auto r = checkSource(R"(
        #include <pthread.h>
        int a, b;
        void *t1(void *x) { a = 1; a = 2; return 0; }
        void *t2(void *x) { b = 1; b = 2; b = 3; return 0; }
        int main() {
            pthread_t x, y;
            pthread_create(&x, 0, t1, 0);
            pthread_create(&y, 0, t2, 0);
            pthread_join(x, 0);
            pthread_join(y, 0);
            return 0;
        })");
    // Count by hand. Events: main: c1 c2 j1 j2 exit; t1: a1 a2; t2: b1 b2 b3.
    // Constraints: c1 < a1, c2 < b1, a2 < j1, b3 < j2, program order everywhere. Enumerated below by
    // brute force over all merges of the three sequences respecting those constraints.
    uint64_t count = 0;
    std::function<void(int, int, int)> go = [&](int m, int p, int q) {
        if (m == 5 && p == 2 && q == 3) {
            ++count;
            return;
        }
        // main's next event m: 0=c1 1=c2 2=j1 3=j2 4=exit
        if (m < 5) {
            bool ok = (m != 2 || p == 2) && (m != 3 || q == 3);
            if (ok) go(m + 1, p, q);
        }
        if (p < 2 && m >= 1) go(m, p + 1, q);
        if (q < 3 && m >= 2) go(m, p, q + 1);
    };
    go(0, 0, 0);
    EXPECT_EQ(r.stats.executions, count);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 1u);
}

// The lost update: R1 W1 / R2 W2 on one variable. Dependent pairs (R1,W2), (W1,R2), (W1,W2): four classes —
// two serial orders, and both reads before both writes with either write last.
TEST(Mazurkiewicz, LostUpdateHasFourTraces) {
    skein::test::Options o;
    o.explore.detectRaces = false;
    auto r = checkSource(R"(
        #include <pthread.h>
        int c;
        void *inc(void *a) { int t = c; c = t + 1; return 0; }
        int main() {
            pthread_t a, b;
            pthread_create(&a, 0, inc, 0);
            pthread_create(&b, 0, inc, 0);
            pthread_join(a, 0);
            pthread_join(b, 0);
            return c;
        })",
                         o);
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 4u);
    EXPECT_EQ(*r.stats.finalStates, 2u); // c == 1 or c == 2
}

// Two lock-protected increments per thread, two threads: the critical sections are totally ordered per lock:
// C(4,2) = 6 orders.
TEST(Mazurkiewicz, LockOrdersAreTraces) {
    auto r = checkSource(R"(
        #include <pthread.h>
        #include <assert.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int c;
        void *inc(void *a) {
            for (int k = 0; k < 2; k++) { pthread_mutex_lock(&m); c = c + 1; pthread_mutex_unlock(&m); }
            return 0;
        }
        int main() {
            pthread_t a, b;
            pthread_create(&a, 0, inc, 0);
            pthread_create(&b, 0, inc, 0);
            pthread_join(a, 0);
            pthread_join(b, 0);
            assert(c == 4);
            return 0;
        })");
    EXPECT_EQ(r.verdict, skein::report::Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(*r.stats.mazurkiewiczTraces, 6u);
}

} // namespace
