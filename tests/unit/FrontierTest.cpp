// The configuration C's summary (core/explore/unfolding/EventStructure.h, `Frontier`): per resource its tree
// maximum, each thread's last read and the reads in C's order, kept with an undo log. Popping an event must give back
// exactly the state before its push — also when a later push grew a resource's per-thread record (the undo log names
// the record and thread, not a slot that growing would move) — and queries of a resource C never touched read as
// absent.
#include <array>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/EventStructure.h"

namespace {

using namespace skein::explore::unfolding;

Resource word(uint64_t a) { return Resource(a, ResKind::Memory); }
std::vector<UEvent*> reads(const Frontier& F, const Resource& r) {
    const auto v = F.readsOf(r);
    return {v.begin(), v.end()};
}

void touch(UEvent& e, ThreadId t, Resource r, Mode m) {
    e.thread = t;
    Access a;
    a.res = r;
    a.mode = m;
    e.accesses.push_back(std::move(a));
}

std::vector<std::pair<ThreadId, UEvent*>> lastReads(const Frontier& F, Resource r) {
    std::vector<std::pair<ThreadId, UEvent*>> out;
    F.forEachLastRead(r, [&](ThreadId t, UEvent* e) { out.push_back({t, e}); });
    return out;
}

TEST(Frontier, PopRestoresEachResourceAcrossAGrowingLastReadRecord) {
    std::array<UEvent, 5> ev;
    touch(ev[0], 0, word(8), Mode::Write); // thread 0 writes x
    touch(ev[1], 0, word(8), Mode::Read);  // thread 0 reads x
    touch(ev[2], 5, word(8), Mode::Read);  // thread 5 reads x: the record's last reads grow to 6 threads
    touch(ev[3], 1, word(8), Mode::Write); // thread 1 writes x
    touch(ev[4], 0, word(8), Mode::Read);  // thread 0 reads x again
    Frontier F(4);
    EXPECT_EQ(F.treeMax(word(8)), nullptr);
    EXPECT_TRUE(F.readsOf(word(8)).empty());

    for (UEvent& e : ev) F.push(&e);
    EXPECT_EQ(F.size(), 5u);
    EXPECT_EQ(F.treeMax(word(8)), &ev[3]);
    EXPECT_EQ(F.threadMax(0), &ev[4]);
    EXPECT_EQ(F.threadMax(5), &ev[2]);
    EXPECT_EQ(F.lastRead(word(8), 0), &ev[4]);
    EXPECT_EQ(F.lastRead(word(8), 5), &ev[2]);
    EXPECT_EQ(F.lastRead(word(8), 3), nullptr);
    EXPECT_EQ(lastReads(F, word(8)), (std::vector<std::pair<ThreadId, UEvent*>>{{0, &ev[4]}, {5, &ev[2]}}));
    EXPECT_EQ(reads(F, word(8)), (std::vector<UEvent*>{&ev[1], &ev[2], &ev[4]}));
    EXPECT_TRUE(ev[4].inC);
    EXPECT_EQ(ev[4].cPos, 4u);

    F.pop(); // ev[4]: thread 0's last read is ev[1] again
    EXPECT_FALSE(ev[4].inC);
    EXPECT_EQ(F.lastRead(word(8), 0), &ev[1]);
    EXPECT_EQ(F.threadMax(0), &ev[1]);
    EXPECT_EQ(reads(F, word(8)), (std::vector<UEvent*>{&ev[1], &ev[2]}));
    F.pop(); // ev[3]: the tree maximum is ev[0] again
    EXPECT_EQ(F.treeMax(word(8)), &ev[0]);
    F.pop(); // ev[2]: thread 5 has no read of x, nor any event
    EXPECT_EQ(F.lastRead(word(8), 5), nullptr);
    EXPECT_EQ(F.threadMax(5), nullptr);
    EXPECT_EQ(lastReads(F, word(8)), (std::vector<std::pair<ThreadId, UEvent*>>{{0, &ev[1]}}));
    F.pop(); // ev[1]: logged before the record grew; its undo still lands on thread 0's entry
    EXPECT_EQ(F.lastRead(word(8), 0), nullptr);
    EXPECT_TRUE(lastReads(F, word(8)).empty());
    EXPECT_TRUE(F.readsOf(word(8)).empty());
    EXPECT_EQ(F.treeMax(word(8)), &ev[0]);
    F.pop();
    EXPECT_EQ(F.size(), 0u);
    EXPECT_EQ(F.treeMax(word(8)), nullptr);
    EXPECT_EQ(F.threadMax(0), nullptr);
}

TEST(Frontier, ResourcesOfDifferentKindsAtOneAddressAreApart) {
    // A mutex and a memory word at the same address are different resources (Resource's kind bits).
    std::array<UEvent, 2> ev;
    touch(ev[0], 0, Resource(16, ResKind::Mutex), Mode::Sync);
    touch(ev[1], 1, word(16), Mode::Read);
    Frontier F(4);
    F.push(&ev[0]);
    F.push(&ev[1]);
    EXPECT_EQ(F.treeMax(Resource(16, ResKind::Mutex)), &ev[0]);
    EXPECT_EQ(F.treeMax(word(16)), nullptr);
    EXPECT_EQ(F.lastRead(word(16), 1), &ev[1]);
    EXPECT_TRUE(F.readsOf(Resource(16, ResKind::Mutex)).empty());
}

} // namespace
