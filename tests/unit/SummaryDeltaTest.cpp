// An event's summary stored as a delta over a full one (core/explore/unfolding/Event.h, DESIGN.md "Memory"): the
// view is the base with the delta's entries replacing equal keys and adding new ones, in key order; look-ups see
// the same.
#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/Event.h"
#include "core/explore/unfolding/EventStructure.h"
#include "tests/unit/LocalConfiguration.h"

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

// Every event's summary, as EventStructure makes it, against its history walked by hand: per thread the latest
// event, per resource the deepest write, per (word, thread) the latest read. Random events of one execution — most
// with their thread predecessor as their only maximal predecessor (the summary built from pt's delta directly), some
// reading or overwriting another thread's write (the general merge), some touching a dozen words at once (sorted
// accesses) — so both ways of building a summary, full and delta, are compared. The entries are made when first
// asked for (EventStructure::summaryOf): asked in creation order, each event's predecessors have theirs already;
// asked latest first, the first question makes a whole pending history at once.
void checkEverySummaryAgainstItsHistory(bool latestFirst) {
    using skein::model::EventKind;
    std::mt19937 rng(7);
    EventStructure es(4);
    std::array<UEvent*, 3> last{};          // each thread's latest event
    std::map<Resource, UEvent*> lastWrite;   // each word's latest write (the configuration's tree maximum)
    std::vector<UEvent*> made;
    for (int i = 0; i < 600; ++i) {
        const ThreadId t = ThreadId(rng() % 3);
        const bool write = rng() % 2;
        const uint64_t first = 8 * (rng() % 40), words = rng() % 10 == 0 ? 12 : 1;
        EventSpec spec;
        spec.thread = t;
        spec.label.kind = write ? EventKind::Write : EventKind::Read;
        spec.label.addr = first;
        spec.pt = last[t];
        for (uint64_t w = 0; w < words; ++w) {
            Access a;
            a.res = word(first + 8 * w);
            a.mode = write ? Mode::Write : Mode::Read;
            auto lw = lastWrite.find(a.res);
            a.parent = lw == lastWrite.end() ? nullptr : lw->second;
            spec.accesses.push_back(a);
        }
        bool created = false;
        UEvent* e = es.findOrCreate(spec, &created);
        ASSERT_TRUE(created) << i;
        last[t] = e;
        if (write)
            for (const Access& a : spec.accesses) lastWrite[a.res] = e;
        made.push_back(e);
    }
    for (UEvent* e : made) { // tmax is made with the event; the entries not yet
        EXPECT_TRUE(e->summary.pending()) << "event " << e->id;
        EXPECT_EQ(e->summary.threadMax(e->thread), e) << "event " << e->id;
    }
    if (latestFirst) std::reverse(made.begin(), made.end());
    size_t deltas = 0;
    for (UEvent* e : made) {
        const std::set<UEvent*> history = skein::testing::localConfiguration(e);
        // Events are made in execution order: a later id is later in its thread, its word's tree and its reads.
        std::map<std::pair<Resource, ThreadId>, UEvent*> want;
        std::vector<UEvent*> tmax(3, nullptr);
        for (UEvent* x : history) {
            if (!tmax[x->thread] || tmax[x->thread]->id < x->id) tmax[x->thread] = x;
            for (const Access& a : x->accesses) {
                UEvent*& w = want[{a.res, a.mode == Mode::Read ? x->thread : kNoThread}];
                if (!w || w->id < x->id) w = x;
            }
        }
        std::vector<SummaryEntry> got = view(es.summaryOf(e));
        ASSERT_EQ(got.size(), want.size()) << "event " << e->id;
        size_t k = 0;
        for (const auto& [key, x] : want) {
            EXPECT_EQ(got[k].res, key.first) << "event " << e->id << " entry " << k;
            EXPECT_EQ(got[k].reader, key.second) << "event " << e->id << " entry " << k;
            EXPECT_EQ(got[k].ev, x) << "event " << e->id << " entry " << k;
            ++k;
        }
        for (ThreadId t = 0; t < 3; ++t) EXPECT_EQ(e->summary.threadMax(t), tmax[t]) << "event " << e->id;
        deltas += es.summaryOf(e).base() != nullptr;
    }
    EXPECT_GT(deltas, made.size() / 2); // most are stored as deltas: the path this checks is taken
}

TEST(SummaryDelta, EverySummaryMatchesItsHistory) { checkEverySummaryAgainstItsHistory(false); }

TEST(SummaryDelta, EverySummaryMatchesItsHistoryAskedLatestFirst) { checkEverySummaryAgainstItsHistory(true); }

} // namespace
