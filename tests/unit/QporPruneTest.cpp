// Pruning U to Q_{C,D} (QPOR Alg. 1, line 13) must lose no maximal configuration, however often it runs. The
// differential tests prune at every return for half of their programs; this is one they found.
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

using skein::test::checkSource;

// t2 reads x, writes it back plus one and asserts it is not 2 (a failed assertion stops t2 only), then loads a; t1
// writes x then adds to a; t3 increments x. The configurations where t2's load comes before t1's add and t2's first
// read reads t3's write are reached by an alternative whose events — t3's read and write, t2's accesses after them,
// the load — were made in an earlier subtree. Pruning kept the load (in conflict with t1's add, in C) but not its
// history, which was in conflict with nothing of C ∪ D yet; the comb looks for the events in immediate conflict
// with t2's other first read, which lie in that history, and found none: optimal and k2 explored 64 executions for
// dfs's 65 traces (the long differential run, seed 31415926, program 31416079, in a larger program: 537 for 538).
TEST(QporPrune, TheHistoriesOfKeptEventsStayInU) {
    const std::string src = R"(#include <pthread.h>
#include <assert.h>
#include <stdatomic.h>
int x;
atomic_int a;
void *t0(void *arg) { x = 1; atomic_fetch_add(&a, 1); return 0; }
void *t1(void *arg) { x = x + 1; assert(x != 2); int r = atomic_load(&a); return 0; }
void *t2(void *arg) { x = x + 1; return 0; }
int main() {
  pthread_t h[3];
  pthread_create(&h[0], 0, t0, 0);
  pthread_create(&h[1], 0, t1, 0);
  pthread_create(&h[2], 0, t2, 0);
  return 0;
})";
    skein::test::Options o;
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, 65u);
    o.algorithm = "qpor";
    for (size_t threshold : {size_t(0), size_t(4096)}) // at every return; only once U is large (never here)
        for (const char* mode : {"optimal", "k1", "k2", "sdpor"}) {
            SCOPED_TRACE(std::string(mode) + " pruning at " + std::to_string(threshold));
            o.explore.alt = mode;
            o.explore.qporPruneThreshold = threshold;
            const auto q = checkSource(src, o);
            EXPECT_EQ(q.stats.executions + q.stats.blocked, 65u); // each maximal configuration once
            EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
            if (std::string(mode) == "optimal") {
                EXPECT_EQ(q.stats.ssb, 0u);
            }
        }
}
