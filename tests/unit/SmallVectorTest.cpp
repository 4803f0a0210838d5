// SmallVector (core/explore/unfolding/SmallVector.h): the per-node lists of the qpor explorer (en(C), the clue,
// the node's part of D) and C's per-word reads keep their first elements in place. Whichever storage holds them, a
// list must read as a std::vector would after the same operations: checked against one on random operation sequences
// that cross the in-place capacity both ways, with copies and moves from either storage.
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/SmallVector.h"

namespace {

using skein::explore::unfolding::SmallVector;

template <class S> std::vector<uint32_t> items(const S& v) { return {v.begin(), v.end()}; }

TEST(SmallVector, StaysInPlaceUpToItsCapacityThenGrows) {
    SmallVector<uint32_t, 3> v;
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(v.capacity(), 3u);
    const uint32_t* inPlace = v.data();
    for (uint32_t i = 0; i < 3; ++i) v.push_back(i);
    EXPECT_EQ(v.data(), inPlace) << "three elements fit in place";
    v.push_back(3);
    EXPECT_NE(v.data(), inPlace) << "the fourth moves them to the heap";
    EXPECT_GE(v.capacity(), 4u);
    EXPECT_EQ(items(v), (std::vector<uint32_t>{0, 1, 2, 3}));
    v.clear();
    EXPECT_TRUE(v.empty());
    EXPECT_GE(v.capacity(), 4u) << "clear keeps the heap buffer, as std::vector::clear does";
}

TEST(SmallVector, CopiesAndMovesFromEitherStorage) {
    for (uint32_t n : {0u, 1u, 2u, 5u}) {
        SmallVector<uint32_t, 2> a;
        for (uint32_t i = 0; i < n; ++i) a.push_back(10 + i);
        const std::vector<uint32_t> expected = items(a);
        SmallVector<uint32_t, 2> copy(a);
        EXPECT_EQ(items(copy), expected) << n;
        EXPECT_EQ(items(a), expected) << n << ": the source of a copy is unchanged";
        EXPECT_TRUE(copy == a);
        SmallVector<uint32_t, 2> moved(std::move(copy));
        EXPECT_EQ(items(moved), expected) << n;
        EXPECT_TRUE(copy.empty()) << n << ": a moved-from list is empty";
        copy.push_back(99); // and usable
        EXPECT_EQ(items(copy), std::vector<uint32_t>{99});
        SmallVector<uint32_t, 2> assigned{1, 2, 3, 4};
        assigned = std::move(moved);
        EXPECT_EQ(items(assigned), expected) << n;
        assigned = a;
        EXPECT_EQ(items(assigned), expected) << n;
        assigned = assigned; // self-assignment keeps the contents
        EXPECT_EQ(items(assigned), expected) << n;
    }
}

// Random sequences of every operation the explorer uses, the same on a std::vector, compared after each step.
TEST(SmallVector, AgreesWithStdVectorOnRandomOperations) {
    std::mt19937 rng(20261128);
    for (int round = 0; round < 200; ++round) {
        SmallVector<uint32_t, 4> v;
        std::vector<uint32_t> model;
        for (int step = 0; step < 60; ++step) {
            const uint32_t x = rng() % 1000;
            switch (rng() % 9) {
            case 0:
            case 1:
            case 2:
                v.push_back(x), model.push_back(x);
                break;
            case 3:
                if (!model.empty()) v.pop_back(), model.pop_back();
                break;
            case 4: {
                const size_t n = rng() % 9;
                v.resize(n, x), model.resize(n, x);
                break;
            }
            case 5: {
                const std::vector<uint32_t> src(rng() % 7, x);
                v.assign(src.begin(), src.end()), model.assign(src.begin(), src.end());
                break;
            }
            case 6: {
                const size_t at = rng() % (model.size() + 1);
                const std::vector<uint32_t> src{x, x + 1, x + 2};
                v.insert(v.begin() + at, src.begin(), src.end());
                model.insert(model.begin() + long(at), src.begin(), src.end());
                break;
            }
            case 7:
                if (!model.empty()) {
                    const size_t at = rng() % model.size();
                    v.erase(v.begin() + at), model.erase(model.begin() + long(at));
                }
                break;
            case 8: {
                SmallVector<uint32_t, 4> other = (rng() % 2) ? SmallVector<uint32_t, 4>(v) : std::move(v);
                v = std::move(other);
                break;
            }
            }
            ASSERT_EQ(items(v), model) << "round " << round << ", step " << step;
            ASSERT_EQ(v.size(), model.size());
            ASSERT_GE(v.capacity(), v.size());
        }
    }
}

} // namespace
