// "[e] ∪ C is a configuration" (EventStructure::conflictsWith, DESIGN.md "Conflict with C"): its answer — from
// the constant-time checks, the walk over [e] \ C, or the summaries' tree queries, whichever applies — against
// the pairwise conflict of the summaries (EventStructure::conflict) over every event of [e] and of C. The events
// come from random interleavings of three fixed thread programs over a few words, made as qpor makes them (the
// parents from C's state, a write after the reads of the value it overwrites), so that events of different
// interleavings branch in the thread and word trees and [e] \ C ranges from one event to most of a thread.
#include <algorithm>
#include <array>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/EventStructure.h"
#include "tests/unit/LocalConfiguration.h"

namespace {

using namespace skein::explore::unfolding;
using skein::model::EventKind;

struct Op {
    uint64_t word;
    bool write;
};

// Thread t's next operation after the events of C: its event, found or made.
UEvent* eventAt(EventStructure& es, const Frontier& F, ThreadId t, const Op& op) {
    EventSpec spec;
    spec.thread = t;
    spec.label.kind = op.write ? EventKind::Write : EventKind::Read;
    spec.label.addr = op.word;
    spec.pt = F.threadMax(t);
    Access a;
    a.res = Resource(op.word, ResKind::Memory);
    a.mode = op.write ? Mode::Write : Mode::Read;
    a.parent = F.treeMax(a.res);
    spec.accesses.push_back(a);
    if (op.write)
        F.forEachLastRead(a.res, [&](ThreadId reader, UEvent* r) {
            if (reader != t && r->access(a.res)->parent == a.parent) spec.causes.push_back(r);
        });
    return es.findOrCreate(spec);
}

TEST(ConflictWithC, AgreesWithThePairwiseConflictOfTheSummaries) {
    std::mt19937 rng(11);
    size_t checked = 0, inConflict = 0, bigOutside = 0;
    for (int structure = 0; structure < 40; ++structure) {
        EventStructure es(4);
        std::array<std::vector<Op>, 3> programs;
        for (auto& p : programs) {
            p.resize(3 + rng() % 6);
            for (Op& op : p) op = {8 * (rng() % 3), rng() % 2 == 0};
        }
        // Random interleavings: each a configuration, in the order its events were made.
        std::vector<std::vector<UEvent*>> runs;
        for (int run = 0; run < 8; ++run) {
            Frontier F(4);
            std::array<size_t, 3> next{};
            std::vector<UEvent*> order;
            for (;;) {
                std::vector<ThreadId> ready;
                for (ThreadId t = 0; t < 3; ++t)
                    if (next[t] < programs[t].size()) ready.push_back(t);
                if (ready.empty()) break;
                const ThreadId t = ready[rng() % ready.size()];
                UEvent* e = eventAt(es, F, t, programs[t][next[t]++]);
                F.push(e);
                order.push_back(e);
            }
            runs.push_back(order);
            while (F.size()) F.pop(); // (an event remembers whether it is in C)
        }
        // C: each run's prefix of random length; e: every event of every run that is not in C.
        for (const std::vector<UEvent*>& cRun : runs) {
            Frontier F(4);
            const size_t length = rng() % (cRun.size() + 1);
            for (size_t i = 0; i < length; ++i) F.push(cRun[i]);
            const std::vector<UEvent*> C(cRun.begin(), cRun.begin() + long(length));
            for (const std::vector<UEvent*>& eRun : runs)
                for (UEvent* e : eRun) {
                    if (e->inC) continue;
                    const std::set<UEvent*> h = skein::testing::localConfiguration(e);
                    bool want = false;
                    size_t outside = 0;
                    for (UEvent* x : h) {
                        if (x->inC) continue;
                        ++outside;
                        for (UEvent* y : C) want = want || es.conflict(x, y);
                    }
                    const bool got = es.conflictsWith(e, F);
                    ASSERT_EQ(got, want) << "structure " << structure << ", event " << e->id << ", |C| " << C.size()
                                         << ", |[e] \\ C| " << outside;
                    ++checked;
                    inConflict += want;
                    bigOutside += outside > 16;
                }
            while (F.size()) F.pop();
        }
    }
    std::printf("checked %zu, in conflict %zu, over 16 outside C %zu\n", checked, inConflict, bigOutside);
    // Both answers, and histories past the walk's bound (the summaries' path), were met.
    EXPECT_GT(checked, 1000u);
    EXPECT_GT(inConflict, checked / 10);
    EXPECT_LT(inConflict, checked - checked / 10);
    EXPECT_GT(bigOutside, 0u);
}

} // namespace
