// The vhb explorer's encoding of a condition variable's waiter set (core/explore/vhb/WaiterSets.h): a bitmask for
// threads below 63, an interned index otherwise — equal sets must get equal values whichever way they were built.
#include <algorithm>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/explore/vhb/WaiterSets.h"

using namespace skein::explore::vhb;
using skein::model::ThreadId;

TEST(WaiterSets, SmallSetsAreBitmasks) {
    EXPECT_EQ(encodeWaiters({}), 0u);
    EXPECT_EQ(encodeWaiters({0, 3, 62}), (uint64_t(1) << 0) | (uint64_t(1) << 3) | (uint64_t(1) << 62));
    EXPECT_TRUE(hasWaiter(encodeWaiters({5}), 5));
    EXPECT_FALSE(hasWaiter(encodeWaiters({5}), 63));
    EXPECT_NE(encodeWaiters({63}) & kInternedWaiters, 0u);
}

// Random sets built by adding and removing threads in random orders, against std::set.
TEST(WaiterSets, AgreeWithASetWhateverTheOrder) {
    std::mt19937 rng(7);
    for (int round = 0; round < 300; ++round) {
        std::set<ThreadId> model;
        uint64_t v = 0;
        for (int step = 0; step < 40; ++step) {
            ThreadId t = ThreadId(rng() % (round % 2 ? 130 : 70));
            if (rng() % 3) {
                model.insert(t);
                v = withWaiter(v, t);
            } else {
                model.erase(t);
                v = withoutWaiter(v, t);
            }
            const std::vector<ThreadId> sorted(model.begin(), model.end());
            ASSERT_EQ(decodeWaiters(v), sorted);
            ASSERT_EQ(v, encodeWaiters(sorted)) << "one value per set";
            ASSERT_EQ(bool(v & kInternedWaiters), !sorted.empty() && sorted.back() >= 63);
            for (ThreadId u : {ThreadId(0), ThreadId(1), ThreadId(62), ThreadId(63), ThreadId(64), ThreadId(129), t})
                ASSERT_EQ(hasWaiter(v, u), model.count(u) == 1) << u;
        }
    }
}
