// EventList (core/explore/unfolding/Event.h): the list of events an event keeps per tree (children, readers,
// thread successors) — one element in place, more on the heap. Its contents must read the same whichever storage
// holds them, through growth, removal, copies and moves, since the immediate-conflict walk and the garbage
// collection's unlinking read and edit these lists.
#include <array>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/Event.h"

namespace {

using skein::explore::unfolding::EventList;
using skein::explore::unfolding::UEvent;

std::vector<UEvent*> items(const EventList& l) { return {l.begin(), l.end()}; }

static_assert(sizeof(EventList) == 16, "one pointer in place and two counters: smaller than a vector");

TEST(EventList, HoldsOneInPlaceAndGrowsPastIt) {
    std::array<UEvent, 9> ev;
    EventList l;
    EXPECT_TRUE(l.empty());
    EXPECT_EQ(l.begin(), l.end());
    std::vector<UEvent*> expected;
    for (UEvent& e : ev) {
        l.push_back(&e);
        expected.push_back(&e);
        ASSERT_EQ(items(l), expected) << "after " << expected.size() << " pushes";
        EXPECT_EQ(l.size(), expected.size());
        EXPECT_EQ(l[expected.size() - 1], &e);
    }
}

TEST(EventList, RemoveDropsEveryOccurrenceAndKeepsTheOrder) {
    std::array<UEvent, 4> ev;
    EventList l;
    for (UEvent* e : {&ev[0], &ev[1], &ev[2], &ev[1], &ev[3]}) l.push_back(e);
    l.remove(&ev[1]);
    EXPECT_EQ(items(l), (std::vector<UEvent*>{&ev[0], &ev[2], &ev[3]}));
    l.remove(&ev[1]); // absent: nothing changes
    EXPECT_EQ(l.size(), 3u);
    l.remove(&ev[0]);
    l.remove(&ev[3]);
    EXPECT_EQ(items(l), (std::vector<UEvent*>{&ev[2]}));
    l.push_back(&ev[0]); // grown storage is kept and reused after removals
    EXPECT_EQ(items(l), (std::vector<UEvent*>{&ev[2], &ev[0]}));

    EventList one;
    one.push_back(&ev[0]);
    one.remove(&ev[0]);
    EXPECT_TRUE(one.empty());
}

TEST(EventList, CopiesAreDeepAndMovesEmptyTheSource) {
    std::array<UEvent, 6> ev;
    for (size_t n : {size_t(1), size_t(6)}) { // in place, and on the heap
        EventList a;
        for (size_t i = 0; i < n; ++i) a.push_back(&ev[i]);
        const std::vector<UEvent*> before = items(a);

        EventList copy(a);
        a.remove(&ev[0]);
        EXPECT_EQ(items(copy), before) << n;

        EventList assigned;
        assigned.push_back(&ev[5]);
        assigned = copy;
        EXPECT_EQ(items(assigned), before) << n;
        assigned = assigned; // self-assignment keeps the contents
        EXPECT_EQ(items(assigned), before) << n;

        EventList moved(std::move(copy));
        EXPECT_EQ(items(moved), before) << n;
        EXPECT_TRUE(copy.empty()) << n; // NOLINT(bugprone-use-after-move): a moved-from list is empty
        copy.push_back(&ev[2]);         // and usable
        EXPECT_EQ(items(copy), (std::vector<UEvent*>{&ev[2]})) << n;

        EventList target;
        for (UEvent& e : ev) target.push_back(&e);
        target = std::move(moved);
        EXPECT_EQ(items(target), before) << n;
        EXPECT_TRUE(moved.empty()) << n; // NOLINT(bugprone-use-after-move)
    }
}

} // namespace
