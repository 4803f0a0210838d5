// An event's summary stored as a delta over a full one (core/explore/unfolding/Event.h, DESIGN.md "Memory"): the
// view is the base with the delta's entries replacing equal keys and adding new ones, in key order; look-ups see
// the same.
#include <array>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/Event.h"

namespace {

using namespace skein::explore::unfolding;
using skein::model::kNoThread;

Resource word(uint64_t a) { return Resource(a, ResKind::Memory); }

std::vector<SummaryEntry> view(const Summary& s) {
    std::vector<SummaryEntry> out;
    for (Summary::Cursor c = s.entries(); !c.done(); c.next()) out.push_back(*c);
    return out;
}

TEST(SummaryDelta, DeltaOverridesAndExtendsItsBaseInKeyOrder) {
    std::array<UEvent, 8> ev; // stand-ins: only their addresses are used
    std::vector<UEvent*> tmax = {&ev[0], &ev[1]};
    // Base: word 8 (tree max, thread 1's read), word 16 (tree max), mutex 32.
    std::vector<SummaryEntry> baseEntries = {{word(8), 1, &ev[2]},
                                             {word(8), kNoThread, &ev[3]},
                                             {word(16), kNoThread, &ev[4]},
                                             {Resource(32, ResKind::Mutex), kNoThread, &ev[5]}};
    Summary base;
    base.assign(tmax, baseEntries);
    EXPECT_EQ(base.base(), nullptr);
    // Delta: word 8's tree max moved on, and a new word 12 read by thread 0.
    std::vector<SummaryEntry> deltaEntries = {{word(8), kNoThread, &ev[6]}, {word(12), 0, &ev[7]}};
    Summary delta;
    delta.assign(tmax, deltaEntries, &base);
    EXPECT_EQ(delta.base(), &base);
    EXPECT_EQ(delta.own().size(), 2u);
    EXPECT_EQ(delta.threadMax(1), &ev[1]);

    std::vector<SummaryEntry> v = view(delta);
    ASSERT_EQ(v.size(), 5u);
    const std::vector<std::pair<SummaryEntry, UEvent*>> want = {
        {{word(8), 1, nullptr}, &ev[2]},         // from the base
        {{word(8), kNoThread, nullptr}, &ev[6]}, // the delta's replaces the base's &ev[3]
        {{word(12), 0, nullptr}, &ev[7]},        // only in the delta
        {{word(16), kNoThread, nullptr}, &ev[4]},
        {{Resource(32, ResKind::Mutex), kNoThread, nullptr}, &ev[5]}};
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_TRUE(v[i].sameKey(want[i].first)) << i;
        EXPECT_EQ(v[i].ev, want[i].second) << i;
    }
    ASSERT_NE(delta.find(word(8), kNoThread), nullptr);
    EXPECT_EQ(delta.find(word(8), kNoThread)->ev, &ev[6]);
    EXPECT_EQ(delta.find(word(8), 1)->ev, &ev[2]);
    EXPECT_EQ(delta.find(word(12), 0)->ev, &ev[7]);
    EXPECT_EQ(delta.find(Resource(32, ResKind::Mutex), kNoThread)->ev, &ev[5]);
    EXPECT_EQ(delta.find(word(12), kNoThread), nullptr);
    EXPECT_EQ(delta.find(word(24), kNoThread), nullptr);
    EXPECT_EQ(view(base).size(), 4u);
}

TEST(SummaryDelta, AnEmptyDeltaIsItsBase) {
    std::array<UEvent, 2> ev;
    std::vector<UEvent*> tmax = {&ev[0]};
    std::vector<SummaryEntry> baseEntries = {{word(8), kNoThread, &ev[1]}};
    Summary base, delta;
    base.assign(tmax, baseEntries);
    delta.assign(tmax, {}, &base);
    std::vector<SummaryEntry> v = view(delta);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].ev, &ev[1]);
    EXPECT_EQ(delta.find(word(8), kNoThread)->ev, &ev[1]);
}

} // namespace
