// ResourceMap (core/explore/unfolding/ResourceMap.h): C's per-word records and U's per-resource root lists. The
// first records are kept in the map and found by a scan, the rest in a hash map; callers (the Frontier's undo log)
// keep pointers to records, so a record must never move, and a look-up must find it whichever part holds it.
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/ResourceMap.h"

namespace {

using namespace skein::explore::unfolding;

Resource word(uint64_t a) { return Resource(a, ResKind::Memory); }

TEST(ResourceMap, FindsWhatWasMadeAndNothingElse) {
    ResourceMap<int, 2> m;
    EXPECT_EQ(m.find(word(4)), nullptr);
    m[word(4)] = 1;
    m[word(8)] = 2;
    m[word(12)] = 3; // past the records kept in place
    m[Resource(4, ResKind::Mutex)] = 4; // same address, another kind: another resource
    ASSERT_NE(m.find(word(12)), nullptr);
    EXPECT_EQ(*m.find(word(4)), 1);
    EXPECT_EQ(*m.find(word(8)), 2);
    EXPECT_EQ(*m.find(word(12)), 3);
    EXPECT_EQ(*m.find(Resource(4, ResKind::Mutex)), 4);
    EXPECT_EQ(m.find(word(16)), nullptr);
    EXPECT_EQ(m.size(), 4u);
    const auto& cm = m;
    EXPECT_EQ(*cm.find(word(12)), 3);
    EXPECT_EQ(m[word(4)], 1) << "operator[] of a present key is the record, not a new one";
    EXPECT_EQ(m.size(), 4u);
}

// Random keys, a std::map as the model: values agree, and every record's address is the one it got when made.
TEST(ResourceMap, RecordsNeverMoveAndAgreeWithAMap) {
    std::mt19937 rng(3800001);
    for (int round = 0; round < 50; ++round) {
        ResourceMap<uint64_t, 8> m;
        std::map<uint64_t, uint64_t> model;
        std::map<uint64_t, const uint64_t*> address;
        for (int step = 0; step < 200; ++step) {
            const uint64_t a = 4 * (rng() % 64);
            uint64_t& v = m[word(a)];
            if (!address.count(a)) address[a] = &v;
            ASSERT_EQ(address[a], &v) << "the record of word " << a << " moved";
            v += step;
            model[a] += step;
            const uint64_t probe = 4 * (rng() % 80);
            const uint64_t* found = m.find(word(probe));
            if (model.count(probe)) {
                ASSERT_NE(found, nullptr);
                ASSERT_EQ(*found, model[probe]);
                ASSERT_EQ(found, address[probe]);
            } else {
                ASSERT_EQ(found, nullptr);
            }
        }
        EXPECT_EQ(m.size(), model.size());
    }
}

} // namespace
