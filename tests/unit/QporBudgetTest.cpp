// qpor on long configurations. It honours cancellation (and so the time budget, checked at the same points) within
// a maximal configuration, not only between two: sdpor's sleep-set blocked paths can run by the hundred thousand
// between two maximal configurations, and one configuration can be long. Counted in loop steps, not timed: a
// cancellation that is true from the start must stop the exploration before the first maximal configuration of
// 4,000 events is done.
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

using skein::test::checkSource;

namespace {
// One thread taking a mutex 2,000 times: one maximal configuration of 4,000 events (the increments are local).
const char* const kLongSingleThread = R"(
    #include <pthread.h>
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    int n;
    int main(void) {
        for (int i = 0; i < 2000; i++) {
            pthread_mutex_lock(&m);
            n++;
            pthread_mutex_unlock(&m);
        }
        return 0;
    })";
} // namespace

TEST(QporBudget, CancellationStopsWithinALongConfiguration) {
    skein::test::Options o;
    o.algorithm = "qpor";
    const auto whole = checkSource(kLongSingleThread, o);
    ASSERT_EQ(whole.stats.executions, 1u);
    ASSERT_GE(whole.stats.events, 4000u); // a lock and an unlock per iteration (the increments are local events)
    o.explore.cancelled = [] { return true; };
    const auto cut = checkSource(kLongSingleThread, o);
    EXPECT_TRUE(cut.stoppedEarly);
    EXPECT_EQ(cut.stats.executions, 0u);
    EXPECT_LT(cut.stats.events, 1000u);
    ASSERT_FALSE(cut.bounds.empty());
    EXPECT_NE(cut.bounds.back().what.find("cancelled"), std::string::npos) << cut.bounds.back().what;
}

// Configurations deeper than the executor snapshots reach (kMaxSnapshots slots of kSnapshotEvery events: 512):
// going back from such a depth once wrote past the end of the snapshot slots, and a single thread taking a mutex
// 2,000 times crashed the process. Main's 300 critical sections against one of another thread: that one can come
// before, between or after them — 301 traces, each ending with a different value of b (by hand).
TEST(QporBudget, ConfigurationsDeeperThanTheSnapshots) {
    const std::string src = R"(
        #include <pthread.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        int n, b;
        void *other(void *arg) {
            pthread_mutex_lock(&m);
            b = n;
            pthread_mutex_unlock(&m);
            return 0;
        }
        int main(void) {
            pthread_t t;
            pthread_create(&t, 0, other, 0);
            for (int i = 0; i < 300; i++) {
                pthread_mutex_lock(&m);
                n++;
                pthread_mutex_unlock(&m);
            }
            pthread_join(t, 0);
            return 0;
        })";
    skein::test::Options o;
    o.algorithm = "qpor";
    const auto r = checkSource(src, o);
    EXPECT_EQ(r.verdict, skein::report::Verdict::Safe);
    EXPECT_EQ(r.stats.executions, 301u);
    EXPECT_EQ(r.stats.ssb, 0u);
    EXPECT_EQ(r.stats.finalStates, 301u);

    const auto s = checkSource(kLongSingleThread, o); // deeper than the snapshots: it crashed
    EXPECT_EQ(s.verdict, skein::report::Verdict::Safe);
    EXPECT_EQ(s.stats.executions, 1u);
}
