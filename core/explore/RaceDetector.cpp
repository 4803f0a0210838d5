#include "core/explore/RaceDetector.h"

#include <algorithm>

namespace skein::explore {

using model::EventKind;

void RaceDetector::reset() {
    threads_.clear();
    locks_.clear();
    barrierRounds_.clear();
    atomics_.clear();
    shadow_.clear();
    splits_.clear();
    accesses_.clear();
    races_.clear();
    log_.clear();
    saved_.clear();
    marks_.clear();
}

void RaceDetector::rollback(size_t n) {
    if (n >= marks_.size()) return;
    const Mark m = marks_[n];
    while (log_.size() > m.log) {
        const Undo u = log_.back();
        log_.pop_back();
        auto* shadow = reinterpret_cast<Shadow*>(u.at);
        auto* clock = reinterpret_cast<Clock*>(u.at);
        switch (u.kind) {
        case Undo::Kind::ThreadEntry: threads_[u.at][u.idx] = u.old; break;
        case Undo::Kind::ClockEntry: (*clock)[u.idx] = u.old; break;
        case Undo::Kind::LockClock:
            *clock = std::move(saved_.back());
            saved_.pop_back();
            break;
        case Undo::Kind::LastWrite: shadow->lastWrite = int32_t(u.old); break;
        case Undo::Kind::Reads:
            shadow->reads = std::move(saved_.back());
            saved_.pop_back();
            break;
        case Undo::Kind::ReadAt: shadow->reads[u.idx] = u.old; break;
        case Undo::Kind::ReadPush: shadow->reads.pop_back(); break;
        case Undo::Kind::Split:
            shadow->split = -1;
            splits_.pop_back(); // splits are undone in the reverse order of their making
            break;
        }
    }
    accesses_.resize(m.accesses);
    marks_.resize(n);
    races_.clear();
}

RaceDetector::Clock& RaceDetector::clock(model::ThreadId t) {
    if (threads_.size() <= t) threads_.resize(t + 1);
    Clock& c = threads_[t];
    if (c.size() <= t) c.resize(t + 1, 0);
    return c;
}

void RaceDetector::join(Clock& into, const Clock& from, Undo::Kind kind, uintptr_t at) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (size_t i = 0; i < from.size(); ++i)
        if (from[i] > into[i]) {
            if (undo_) log_.push_back({kind, uint32_t(i), into[i], at});
            into[i] = from[i];
        }
}

bool RaceDetector::ordered(const Access& a, model::ThreadId t) {
    if (a.tid == t) return true;
    const Clock& c = clock(t);
    return a.tid < c.size() && c[a.tid] >= a.epoch;
}

// A word an access covers only in part gets a state per byte, each a copy of the word's.
std::array<RaceDetector::Shadow, 4>& RaceDetector::split(Shadow& word) {
    if (undo_) log_.push_back({Undo::Kind::Split, 0, 0, uintptr_t(&word)});
    word.split = int32_t(splits_.size());
    std::array<Shadow, 4>& bytes = splits_.emplace_back();
    for (Shadow& b : bytes) {
        b.lastWrite = word.lastWrite;
        b.reads = word.reads;
    }
    return bytes;
}

void RaceDetector::visit(Shadow& s, bool write, uint32_t self, const Access& acc, Met& met) {
    bool& raced = met.raced;
    auto report = [&](uint32_t prev) {
        const Access& p = accesses_[prev];
        if (p.atomic && acc.atomic) return;
        if (ordered(p, acc.tid)) return;
        raced = true;
        for (const Race& r : races_)
            if (r.first == p.event) return;
        races_.push_back({p.event, acc.event});
    };
    // Whether an earlier access races depends on it and on this one only, and an event lists each once: on a range
    // last written by one access (a memset, a struct assignment, an array filled by one thread) it is reported
    // at the first word and only skipped at the others.
    if (s.lastWrite >= 0 && s.lastWrite != met.lastWrite) {
        report(uint32_t(s.lastWrite));
        met.lastWrite = s.lastWrite;
    }
    if (write) {
        for (uint32_t r : s.reads) report(r);
        if (undo_) {
            log_.push_back({Undo::Kind::LastWrite, 0, uint32_t(s.lastWrite), uintptr_t(&s)});
            if (!s.reads.empty()) {
                log_.push_back({Undo::Kind::Reads, 0, 0, uintptr_t(&s)});
                saved_.push_back(std::move(s.reads));
            }
        }
        s.lastWrite = int32_t(self);
        s.reads.clear();
    } else {
        // Keep one read per thread: a later read by the same thread is ordered after the earlier one.
        bool replaced = false;
        for (uint32_t& r : s.reads)
            if (accesses_[r].tid == acc.tid) {
                if (undo_) log_.push_back({Undo::Kind::ReadAt, uint32_t(&r - s.reads.data()), r, uintptr_t(&s)});
                r = self;
                replaced = true;
            }
        if (!replaced) {
            if (undo_) log_.push_back({Undo::Kind::ReadPush, 0, 0, uintptr_t(&s)});
            s.reads.push_back(self);
        }
    }
}

// Every earlier access the new one races with is reported, not only the first met: an access of several bytes can
// race with different accesses on different bytes, and reporting only the first hid the others in every execution.
// E.g. (tests/unit/ExecutorErrorsTest.cpp, RaceHiddenBehindAnotherOnADifferentByte) thread w writes byte 1 of int
// x; main, in an atomic section, creates thread r and writes all of x; r reads x. w's byte write and r's read are
// unordered and overlap on byte 1: a race. But when the write comes first, r's read met main's write on byte 0
// first; when the read comes first, w's write met main's write (byte 1's last write) before the read; and when w
// writes before the section, main's write overwrites byte 1 in between.
bool RaceDetector::checkRange(uint64_t lo, uint64_t hi, bool write, const Access& acc) {
    Met met;
    const uint32_t self = uint32_t(accesses_.size());
    accesses_.push_back(acc);
    if (lo >= hi) return false;
    Block* block = nullptr;
    uint64_t blockKey = UINT64_MAX;
    for (uint64_t w = lo >> 2, last = (hi - 1) >> 2; w <= last; ++w) {
        if (w / kBlockWords != blockKey) {
            blockKey = w / kBlockWords;
            block = &shadow_[blockKey];
        }
        Shadow& word = (*block)[w % kBlockWords];
        const uint64_t from = std::max(lo, w << 2), to = std::min(hi, (w << 2) + 4);
        if (word.split < 0 && to - from == 4) { // the whole word, in one state: its four bytes at once
            visit(word, write, self, acc, met);
            continue;
        }
        std::array<Shadow, 4>& bytes = word.split < 0 ? split(word) : splits_[size_t(word.split)];
        for (uint64_t a = from; a < to; ++a) visit(bytes[a & 3], write, self, acc, met);
    }
    return met.raced;
}

bool RaceDetector::onEvent(const model::Event& e, uint32_t index) {
    races_.clear();
    if (undo_) marks_.push_back({log_.size(), saved_.size(), accesses_.size()});
    constexpr auto kThread = Undo::Kind::ThreadEntry;
    Clock& c = clock(e.tid);
    if (undo_) log_.push_back({kThread, e.tid, c[e.tid], e.tid});
    c[e.tid]++;
    auto replace = [&](Clock& l) { // l = c, logged
        if (undo_) {
            log_.push_back({Undo::Kind::LockClock, 0, 0, uintptr_t(&l)});
            saved_.push_back(std::move(l));
        }
        l = c;
    };
    auto accumulate = [&](Clock& l) { // l = l ⊔ c, logged
        if (undo_) {
            log_.push_back({Undo::Kind::LockClock, 0, 0, uintptr_t(&l)});
            saved_.push_back(l);
        }
        if (l.size() < c.size()) l.resize(c.size(), 0);
        for (size_t i = 0; i < c.size(); ++i) l[i] = std::max(l[i], c[i]);
    };
    auto release = [&](uint64_t lock) { replace(locks_[lock]); };
    switch (e.kind) {
    case EventKind::Lock: join(c, locks_[e.addr], kThread, e.tid); return false;
    case EventKind::TryLock:
        if (e.value) join(c, locks_[e.addr], kThread, e.tid);
        return false;
    case EventKind::Unlock: release(e.addr); return false;
    // A reader-writer lock: a writer's release is the lock's clock (key addr), readers' releases accumulate apart
    // (key addr + 1: a lock's address is word-aligned, so no other object's key). A reader acquires the writers'
    // clock, a writer both.
    case EventKind::RwLock:
    case EventKind::RwTryLock:
        if (e.kind == EventKind::RwTryLock && !e.value) return false;
        join(c, locks_[e.addr], kThread, e.tid);
        if (e.value2 == 1) join(c, locks_[e.addr + 1], kThread, e.tid);
        return false;
    case EventKind::RwUnlock:
        if (e.value2 == 1) {
            release(e.addr);
            return false;
        }
        [[fallthrough]]; // a reader's release accumulates, as a post does
    // A semaphore's posts accumulate in its clock (a later wait may take the unit of any of them), and a wait or a
    // trywait that took a unit acquires it: the usual release/acquire reading of sem_post/sem_wait (TSan's).
    // A barrier likewise, round by round: every arrival releases into its round's clock, a departure acquires its
    // round's (all the arrivals of its round came before it, and nothing else need have: barrierRounds_).
    case EventKind::BarrierArrive:
    case EventKind::SemPost:
        accumulate(e.kind == EventKind::BarrierArrive ? barrierRounds_[{e.addr, e.value2}]
                                                      : locks_[e.kind == EventKind::RwUnlock ? e.addr + 1 : e.addr]);
        return false;
    case EventKind::SemWait: join(c, locks_[e.addr], kThread, e.tid); return false;
    case EventKind::BarrierLeave: join(c, barrierRounds_[{e.addr, e.value2}], kThread, e.tid); return false;
    case EventKind::SemTryWait:
        if (e.value) join(c, locks_[e.addr], kThread, e.tid);
        return false;
    case EventKind::CondWait: release(e.addr2); return false;
    // A late initialisation (once other threads exist) of a semaphore or barrier replaces the object's state: what
    // its operations released before is gone (a post's unit, a round's arrivals) — its clock replaces theirs. A
    // lock's (a mutex, a reader-writer lock) comes after the last release (one while it is held is a misuse that
    // stops its thread): what the critical sections before it did stays ordered before the next acquire, so its
    // clock joins theirs, as a post's does.
    case EventKind::SyncInit:
        if (e.value2 == model::Event::kCond) return false; // a condition variable's orders nothing (as its waits)
        if (e.value2 == model::Event::kSemaphore) {
            release(e.addr);
            return false;
        }
        if (e.value2 == model::Event::kMutex || e.value2 == model::Event::kRwLock) {
            accumulate(locks_[e.addr]);
            if (e.value2 == model::Event::kRwLock) accumulate(locks_[e.addr + 1]); // the readers' releases
            return false;
        }
        // Round 0's entry made first (empty: as absent), so that the loop logs it and a rollback empties it again.
        barrierRounds_.try_emplace({e.addr, 0});
        for (auto it = barrierRounds_.lower_bound({e.addr, 0}); it != barrierRounds_.end() && it->first.first == e.addr;
             ++it)
            replace(it->second);
        return false;
    // A destruction orders nothing: an operation after it is a misuse that stops its thread.
    case EventKind::SyncDestroy: return false;
    case EventKind::ThreadCreate: {
        Clock parent = c;
        Clock& child = clock(model::ThreadId(e.value));
        join(child, parent, kThread, e.value);
        return false;
    }
    case EventKind::ThreadJoin: {
        Clock child = clock(model::ThreadId(e.value));
        join(clock(e.tid), child, kThread, e.tid);
        return false;
    }
    default: break;
    }
    if (!e.isMemory()) return false;
    Access acc{index, e.tid, c[e.tid], e.atomic};
    bool raced = false;
    if (e.atomic && e.reads()) join(c, atomics_[e.addr], kThread, e.tid);
    for (int k = 0; k < 2; ++k) {
        auto [lo, hi] = e.readRange(k);
        if (lo < hi && e.kind != EventKind::Rmw) raced |= checkRange(lo, hi, false, acc);
    }
    auto [wlo, whi] = e.writeRange();
    if (e.kind == EventKind::Rmw) {
        // Its read and write are one access. A compare-exchange that fails writes nothing (C11: it is a load), so it
        // races only with writes — as model::dependent has it, and the unfolding explorer (a read of its word there).
        raced |= checkRange(e.addr, e.addr + e.size, e.writes(), acc);
    } else if (wlo < whi) {
        raced |= checkRange(wlo, whi, true, acc);
    }
    if (e.atomic && e.writes()) {
        Clock& a = atomics_[e.addr];
        join(a, clock(e.tid), Undo::Kind::ClockEntry, uintptr_t(&a));
    }
    return raced;
}

} // namespace skein::explore
