// Looking an event up by identity (EventStructure::lookUp): among its thread predecessor's successors while they
// are at most kSuccessorScan, through the index once they are more — an event is found again whichever way, before
// and after a list crosses the threshold, and after a collection shrinks the list and new events grow it again.
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/EventStructure.h"

namespace {

using namespace skein::explore::unfolding;
using skein::model::EventKind;

// A read by thread 1 after `pt` of word `addr`, reading from `parent` (null: the initial value), outcome `choice`.
EventSpec readSpec(UEvent* pt, uint64_t addr, UEvent* parent, uint32_t choice = 0) {
    EventSpec spec;
    spec.thread = 1;
    spec.choice = choice;
    spec.label.kind = EventKind::Read;
    spec.label.addr = addr;
    spec.pt = pt;
    Access a;
    a.res = Resource(addr, ResKind::Memory);
    a.mode = Mode::Read;
    a.parent = parent;
    spec.accesses.push_back(a);
    return spec;
}

EventSpec writeSpec(ThreadId t, UEvent* pt, uint64_t addr, UEvent* parent) {
    EventSpec spec = readSpec(pt, addr, parent);
    spec.thread = t;
    spec.label.kind = EventKind::Write;
    spec.accesses[0].mode = Mode::Write;
    return spec;
}

// Thread 0 writes word 8 n times in a row: n possible sources for a read of it.
std::vector<UEvent*> writeChain(EventStructure& es, int n) {
    std::vector<UEvent*> writes;
    UEvent* w = nullptr;
    for (int i = 0; i < n; ++i) {
        w = es.findOrCreate(writeSpec(0, w, 8, w));
        writes.push_back(w);
    }
    return writes;
}

// Every spec names the event made for it, and nothing new is made.
void expectAllFound(EventStructure& es, const std::vector<EventSpec>& specs, const std::vector<UEvent*>& made) {
    for (size_t i = 0; i < specs.size(); ++i) {
        bool created = true;
        EXPECT_EQ(es.findOrCreate(specs[i], &created), made[i]) << i;
        EXPECT_FALSE(created) << i;
        EXPECT_EQ(es.find(specs[i]), made[i]) << i;
    }
}

TEST(EventLookUp, SuccessorsOfOneEventAreFoundBeforeAndAfterTheListIsIndexed) {
    EventStructure es(4);
    const std::vector<UEvent*> writes = writeChain(es, 12); // twelve sources for thread 1's read
    UEvent* pt = es.findOrCreate(writeSpec(1, nullptr, 64, nullptr)); // thread 1's first event
    std::vector<EventSpec> specs;
    std::vector<UEvent*> made;
    for (size_t i = 0; i < writes.size(); ++i) {
        specs.push_back(readSpec(pt, 8, writes[i]));
        bool created = false;
        made.push_back(es.findOrCreate(specs.back(), &created));
        EXPECT_TRUE(created) << i;
        EXPECT_EQ(pt->threadChildren.size(), i + 1);
        // pt's first successor is made without comparing, hence without its key (keyOf makes it when compared).
        if (i == 0) {
            EXPECT_FALSE(made[0]->keyKnown);
        }
        // Every one made so far is found again — the list short, at the threshold and past it.
        expectAllFound(es, specs, made);
    }
    // A key that differs only in its outcome is another event.
    bool created = false;
    UEvent* other = es.findOrCreate(readSpec(pt, 8, writes[3], 1), &created);
    EXPECT_TRUE(created);
    EXPECT_NE(other, made[3]);
    EXPECT_EQ(es.find(readSpec(pt, 8, writes[5], 1)), nullptr);
}

TEST(EventLookUp, ThreadRootsWithManyOutcomesAreFound) {
    EventStructure es(4);
    std::vector<EventSpec> specs;
    std::vector<UEvent*> made;
    for (uint32_t c = 0; c < 9; ++c) { // a nondeterministic first action with nine outcomes: no pt
        specs.push_back(readSpec(nullptr, 16, nullptr, c));
        made.push_back(es.findOrCreate(specs.back()));
        expectAllFound(es, specs, made);
    }
    for (size_t i = 0; i < made.size(); ++i)
        for (size_t j = i + 1; j < made.size(); ++j) EXPECT_NE(made[i], made[j]);
}

TEST(EventLookUp, AListThatACollectionShrankIsSearchedAndIndexedAgain) {
    EventStructure es(4);
    const std::vector<UEvent*> writes = writeChain(es, 10);
    UEvent* pt = es.findOrCreate(writeSpec(1, nullptr, 64, nullptr));
    std::vector<EventSpec> specs;
    std::vector<UEvent*> made;
    for (size_t i = 0; i < 6; ++i) {
        specs.push_back(readSpec(pt, 8, writes[i]));
        made.push_back(es.findOrCreate(specs.back()));
    }
    // Keep the writes, pt and two of the reads: the other four are freed, and the list holds two (indexed) events.
    std::vector<UEvent*> roots = writes;
    roots.push_back(pt);
    roots.push_back(made[1]);
    roots.push_back(made[4]);
    const size_t before = es.allocated();
    es.collect(roots);
    EXPECT_EQ(es.allocated(), before - 4);
    ASSERT_EQ(pt->threadChildren.size(), 2u);
    std::vector<EventSpec> keptSpecs = {specs[1], specs[4]};
    std::vector<UEvent*> kept = {made[1], made[4]};
    expectAllFound(es, keptSpecs, kept);
    // A freed one is not found; made again, it is a new event.
    EXPECT_EQ(es.find(specs[0]), nullptr);
    // The list grows past the threshold again, with old and new events in it.
    for (size_t i = 6; i < 10; ++i) {
        keptSpecs.push_back(readSpec(pt, 8, writes[i]));
        bool created = false;
        kept.push_back(es.findOrCreate(keptSpecs.back(), &created));
        EXPECT_TRUE(created);
        expectAllFound(es, keptSpecs, kept);
    }
    keptSpecs.push_back(specs[0]);
    bool created = false;
    kept.push_back(es.findOrCreate(specs[0], &created));
    EXPECT_TRUE(created);
    expectAllFound(es, keptSpecs, kept);
}

} // namespace
