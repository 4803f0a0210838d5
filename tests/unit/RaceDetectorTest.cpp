// The race detector's shadow (core/explore/RaceDetector.h) is kept per 4-byte word, split into bytes only where an
// access covers part of a word. What it reports must be what a shadow of one state per byte reports: the same races,
// in the same order, for every event. The reference below is that per-byte detector, written plainly (ordered maps,
// no undo); it is compared with RaceDetector on random traces of accesses of every width and alignment — ints,
// chars, unaligned longs, memcpy-like copies and frees of whole buffers — with and without rollbacks.
// SKEIN_DIFF_PROGRAMS=N compares N traces in each test (default 600 and 300) and SKEIN_DIFF_SEED picks the seed, as
// for the differential tests' long mode.
#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/RaceDetector.h"
#include "tests/unit/RandomPrograms.h"

namespace {

using skein::explore::RaceDetector;
using skein::model::Event;
using skein::model::EventKind;
using Races = std::vector<std::pair<uint32_t, uint32_t>>;

// Happens-before by vector clocks and a state per byte: the definition RaceDetector implements.
class ByteRaceDetector {
public:
    Races onEvent(const Event& e, uint32_t index) {
        Races out;
        Clock& c = clock(e.tid);
        c[e.tid]++;
        switch (e.kind) {
        case EventKind::Lock: join(c, locks_[e.addr]); return out;
        case EventKind::TryLock:
            if (e.value) join(c, locks_[e.addr]);
            return out;
        case EventKind::Unlock: locks_[e.addr] = c; return out;
        case EventKind::CondWait: locks_[e.addr2] = c; return out;
        case EventKind::ThreadCreate: {
            Clock parent = c;
            join(clock(uint32_t(e.value)), parent);
            return out;
        }
        case EventKind::ThreadJoin: {
            Clock child = clock(uint32_t(e.value));
            join(clock(e.tid), child);
            return out;
        }
        default: break;
        }
        if (!e.isMemory()) return out;
        const Access acc{index, e.tid, c[e.tid], e.atomic};
        if (e.atomic && e.reads()) join(c, atomics_[e.addr]);
        for (int k = 0; k < 2; ++k) {
            auto [lo, hi] = e.readRange(k);
            if (lo < hi && e.kind != EventKind::Rmw) range(lo, hi, false, acc, out);
        }
        auto [wlo, whi] = e.writeRange();
        if (e.kind == EventKind::Rmw) range(e.addr, e.addr + e.size, e.writes(), acc, out); // a failed CAS: a read
        else if (wlo < whi) range(wlo, whi, true, acc, out);
        if (e.atomic && e.writes()) join(atomics_[e.addr], clock(e.tid));
        return out;
    }

private:
    using Clock = std::vector<uint32_t>;
    struct Access {
        uint32_t event, tid, epoch;
        bool atomic;
    };
    struct Byte {
        const Access* lastWrite = nullptr;
        std::vector<const Access*> reads; // one per thread, since the last write
    };
    Clock& clock(uint32_t t) {
        Clock& c = threads_[t];
        if (c.size() <= t) c.resize(t + 1, 0);
        return c;
    }
    static void join(Clock& into, const Clock& from) {
        if (into.size() < from.size()) into.resize(from.size(), 0);
        for (size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
    }
    void range(uint64_t lo, uint64_t hi, bool write, const Access& acc, Races& out) {
        const Access* self = &accesses_.emplace_back(acc);
        auto report = [&](const Access* p) {
            if ((p->atomic && acc.atomic) || p->tid == acc.tid) return;
            const Clock& c = clock(acc.tid);
            if (p->tid < c.size() && c[p->tid] >= p->epoch) return;
            if (std::none_of(out.begin(), out.end(), [&](const auto& r) { return r.first == p->event; }))
                out.push_back({p->event, acc.event});
        };
        for (uint64_t a = lo; a < hi; ++a) {
            Byte& b = bytes_[a];
            if (b.lastWrite) report(b.lastWrite);
            if (write) {
                for (const Access* r : b.reads) report(r);
                b.lastWrite = self;
                b.reads.clear();
            } else {
                auto same =
                    std::find_if(b.reads.begin(), b.reads.end(), [&](const Access* r) { return r->tid == acc.tid; });
                if (same != b.reads.end()) *same = self;
                else b.reads.push_back(self);
            }
        }
    }
    std::map<uint32_t, Clock> threads_;
    std::map<uint64_t, Clock> locks_, atomics_;
    std::map<uint64_t, Byte> bytes_;
    std::deque<Access> accesses_; // stable addresses
};

// Random traces over four threads (created first) and two objects: object 1 of 64 bytes (two blocks of the shadow),
// read and written at every width (1, 2, 4, 8) and alignment, read two ranges at a time, copied within itself, and
// now and then freed whole; object 2 a lock; and now and then main joins a thread.
std::vector<Event> randomTrace(std::mt19937& rng, size_t n) {
    constexpr uint64_t kObject = uint64_t(1) << 32, kLock = uint64_t(2) << 32;
    std::vector<Event> out;
    auto add = [&](Event e) {
        e.loc = uint32_t(out.size());
        out.push_back(e);
    };
    for (uint32_t t = 1; t <= 3; ++t) {
        Event c;
        c.kind = EventKind::ThreadCreate;
        c.value = t;
        add(c);
    }
    auto place = [&](uint32_t size) { return kObject + rng() % (65 - size); }; // anywhere in the 64 bytes
    while (out.size() < n) {
        Event e;
        if (rng() % 40 == 0) { // main joins a thread (which may act on: happens-before only cares about the order)
            e.kind = EventKind::ThreadJoin;
            e.value = 1 + rng() % 3;
            add(e);
            continue;
        }
        e.tid = rng() % 4;
        const uint32_t widths[] = {1, 2, 4, 4, 4, 8};
        e.size = widths[rng() % 6];
        switch (rng() % 12) {
        case 0: e = {}, e.tid = rng() % 4, e.kind = EventKind::Lock, e.addr = kLock; break;
        case 1: e = {}, e.tid = rng() % 4, e.kind = EventKind::Unlock, e.addr = kLock; break;
        case 2: e.kind = EventKind::Rmw, e.atomic = true, e.rmwWrote = rng() % 3 != 0; break; // some failed CASes
        case 3:
            e.kind = EventKind::Copy; // memcpy: a range read, another written
            e.size = 1 + rng() % 24;
            e.size2 = e.size;
            e.addr2 = place(e.size2);
            break;
        case 4:
            if (rng() % 4 == 0) e.kind = EventKind::Free, e.size = 64;
            else e.kind = EventKind::Write, e.size = 1 + rng() % 40; // a memset
            break;
        case 5:
        case 6: e.kind = EventKind::Write; break;
        case 7: // two ranges read (strcmp)
            e.kind = EventKind::Read;
            e.size2 = 1 + rng() % 12;
            e.addr2 = place(e.size2);
            break;
        default: e.kind = EventKind::Read; break;
        }
        if (e.isMemory()) {
            e.addr = e.kind == EventKind::Free ? kObject : place(e.size);
            if (e.kind != EventKind::Rmw && e.kind != EventKind::Free) e.atomic = rng() % 5 == 0;
        }
        add(e);
    }
    return out;
}

Races reported(const RaceDetector& d) {
    Races out;
    for (const auto& r : d.races()) out.push_back({r.first, r.second});
    return out;
}

TEST(RaceDetector, ReportsWhatAStatePerByteReports) {
    using skein::testing::envNumber;
    std::mt19937 rng(uint32_t(envNumber("SKEIN_DIFF_SEED", 11)));
    size_t races = 0, events = 0;
    for (long round = 0, n = envNumber("SKEIN_DIFF_PROGRAMS", 600); round < n; ++round) {
        const std::vector<Event> trace = randomTrace(rng, 6 + rng() % 60);
        RaceDetector d;
        ByteRaceDetector want;
        for (uint32_t i = 0; i < trace.size(); ++i) {
            const Races expected = want.onEvent(trace[i], i);
            d.onEvent(trace[i], i);
            ASSERT_EQ(reported(d), expected) << "round " << round << ", event " << i;
            races += expected.size();
            ++events;
        }
    }
    EXPECT_GT(races, events / 4) << "the traces must race often enough to compare something";
}

// With the undo log kept (qpor's IncrementalRaces): rolled back to a random prefix, several times in a row, and fed
// another suffix each time, the detector reports for every event what the per-byte reference, fed the whole new
// trace, reports — words split after the prefix must be joined again.
TEST(RaceDetector, RollbackAcrossSplitWordsReportsWhatAStatePerByteReports) {
    using skein::testing::envNumber;
    std::mt19937 rng(uint32_t(envNumber("SKEIN_DIFF_SEED", 12)));
    size_t compared = 0;
    for (long round = 0, n = envNumber("SKEIN_DIFF_PROGRAMS", 300); round < n; ++round) {
        RaceDetector d;
        d.keepUndo(true);
        std::vector<Event> trace = randomTrace(rng, 6 + rng() % 50);
        for (uint32_t i = 0; i < trace.size(); ++i) d.onEvent(trace[i], i);
        for (int step = 0; step < 4; ++step) {
            const size_t keep = rng() % (trace.size() + 1);
            d.rollback(keep);
            ASSERT_EQ(d.fed(), keep);
            trace.resize(keep);
            for (const Event& e : randomTrace(rng, 6 + rng() % 50))
                if (e.kind != EventKind::ThreadCreate) trace.push_back(e);
            ByteRaceDetector want;
            for (uint32_t i = 0; i < trace.size(); ++i) {
                const Races expected = want.onEvent(trace[i], i);
                if (i < keep) continue;
                d.onEvent(trace[i], i);
                ASSERT_EQ(reported(d), expected) << "round " << round << ", rollback " << step << ", event " << i;
                compared += expected.size();
            }
        }
    }
    EXPECT_GT(compared, 1000u);
}

// Hand-derived: main writes int x after creating two threads; t1 writes byte 1 of x; t2 reads x whole, then its
// upper half. The whole read races with main's write (bytes 0, 2, 3) and t1's (byte 1), main's listed first (byte 0
// is met first); the half read with main's only; a write of byte 2 by t1 with main's write and with t2's half read,
// which replaced t2's whole read there (one read per thread and byte).
TEST(RaceDetector, PartOfAWordRacesOnlyOnItsBytes) {
    constexpr uint64_t x = uint64_t(1) << 32;
    auto ev = [](EventKind k, uint32_t tid, uint64_t addr, uint32_t size) {
        Event e;
        e.kind = k, e.tid = tid, e.addr = addr, e.size = size;
        return e;
    };
    Event create1, create2;
    create1.kind = create2.kind = EventKind::ThreadCreate;
    create1.value = 1, create2.value = 2;
    RaceDetector d;
    d.onEvent(create1, 0);
    d.onEvent(create2, 1);
    d.onEvent(ev(EventKind::Write, 0, x, 4), 2);     // main: x = ... (after the creates: unordered with t1 and t2)
    d.onEvent(ev(EventKind::Write, 1, x + 1, 1), 3); // t1: byte 1 of x
    EXPECT_EQ(reported(d), (Races{{2, 3}}));
    d.onEvent(ev(EventKind::Read, 2, x, 4), 4); // t2 reads x: byte 0 last written by event 2, byte 1 by event 3
    EXPECT_EQ(reported(d), (Races{{2, 4}, {3, 4}}));
    d.onEvent(ev(EventKind::Read, 2, x + 2, 2), 5); // t2's bytes 2-3 again: its own earlier read is replaced
    EXPECT_EQ(reported(d), (Races{{2, 5}}));
    d.onEvent(ev(EventKind::Write, 1, x + 2, 1), 6); // t1 writes byte 2: races with main's write and t2's read 5
    EXPECT_EQ(reported(d), (Races{{2, 6}, {5, 6}}));
}

} // namespace
