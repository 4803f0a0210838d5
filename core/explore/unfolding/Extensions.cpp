// ex(C) = en(C) ∪ cex(C) (Alg. 1, line 5). This file: en(C), from the executor — one event per enabled thread and
// outcome — and the placements of the actions of threads blocked at C (blockedPlacements), which start the walks
// of Placements.cpp. cex(C) is computed incrementally as C grows (Placements.cpp); DESIGN.md argues why nothing
// else is needed.
#include <algorithm>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

void QporExplorer::accessesInto(const model::Event& l, std::vector<Access>& out) const {
    out.clear();
    auto push = [&](Resource r, Mode m) {
        Access& a = out.emplace_back();
        a.res = r;
        a.mode = m;
    };
    // A range's words are distinct and ascending, and only an event's second range (a Copy's destination, strcmp's
    // second string) can meet words already there — those of the first range, which lie sorted at the front. So a
    // word is looked up by bisection there, not compared with every access so far: a calloc or free of a 16 KB
    // buffer is 4,096 words, and the linear search made its event cost 8 M comparisons (85 % of qpor's time on
    // such a program).
    auto words = [&](uint64_t addr, uint64_t size, Mode m) {
        const size_t firstCount = out.size(); // the first range's accesses (none while adding the first range)
        // A word, or a segment of a large object (Segments.h): a cut inside a segment already used stops the
        // exploration, which starts over with it (explore()).
        auto objectSize = [&] { return ex_.objectSize(addr); };
        const bool consistent = segments_->forEach(addr, size, objectSize, [&](uint64_t w) {
            const Resource r{w, ResKind::Memory};
            if (firstCount) {
                auto lo = out.begin(), hi = out.begin() + ptrdiff_t(firstCount);
                auto it = std::lower_bound(lo, hi, r, [](const Access& a, const Resource& x) { return a.res < x; });
                if (it != hi && it->res == r) {
                    if (m != Mode::Read) it->mode = m; // read and written: one Write access (it reads its parent)
                    return;
                }
            }
            push(r, m);
        });
        if (!consistent) footprintGrew_ = true;
    };
    // Footprints, not ranges: a string function's are its whole objects (model::Event::readFootprint), so that
    // its dependence does not change with the bytes it finds.
    auto range = [&](std::pair<uint64_t, uint64_t> r, Mode m) {
        if (r.first < r.second) words(r.first, r.second - r.first, m);
    };
    switch (l.kind) {
    case EventKind::Read:
        range(l.readFootprint(0), Mode::Read);
        range(l.readFootprint(1), Mode::Read);
        break;
    case EventKind::Write:
    case EventKind::Free:
    case EventKind::Rmw: words(l.addr, l.size, Mode::Write); break;
    case EventKind::Copy:
        range(l.readFootprint(0), Mode::Read);
        range(l.writeFootprint(), Mode::Write);
        break;
    // A semaphore's and a reader-writer lock's operations are accesses of the word of its count (its readers), as
    // model::dependent has them (DESIGN.md, "Semaphores, reader-writer locks and barriers"): two posts commute, as
    // two reads do, and a wait, a try or a sem_getvalue conflicts with every operation, as a write does; a lock's
    // operations in read mode are reads, in write mode (value2) writes.
    case EventKind::SemPost: words(l.addr, 4, Mode::Read); break;
    case EventKind::SemWait:
    case EventKind::SemTryWait:
    case EventKind::SemGetValue: words(l.addr, 4, Mode::Write); break;
    case EventKind::RwLock:
    case EventKind::RwTryLock:
    case EventKind::RwUnlock: words(l.addr, 4, l.value2 == 1 ? Mode::Write : Mode::Read); break;
    // A barrier's arrivals conflict with each other, and a departure with its own round's arrivals only: a word per
    // round — two rounds apart are never concurrent (an arrival follows its thread's departure from the round
    // before, which follows all that round's arrivals), so two words alternate. The round is in value2.
    case EventKind::BarrierArrive: words(l.addr + 4 * (l.value2 & 1), 4, Mode::Write); break;
    case EventKind::BarrierLeave: words(l.addr + 4 * (l.value2 & 1), 4, Mode::Read); break;
    case EventKind::Lock:
    case EventKind::TryLock:
    case EventKind::Unlock: push({l.addr, ResKind::Mutex}, Mode::Sync); break;
    // A mutex's initialisation once other threads exist: a node of its tree, after which it is free
    // (mutexFreeAfter). The other objects' are handed to dfs before they get here (Executor::kSyncInitLate).
    case EventKind::SyncInit:
    case EventKind::SyncDestroy: // ... and its destruction: the mutex is free after it (a lock there is a misuse)
        if (l.isMutexLifecycle()) push({l.addr, ResKind::Mutex}, Mode::Sync);
        // A condition variable's: a node of its tree that leaves no waiter (with one, either is a misuse that fails
        // its thread: waitersAt skips it); a wait or signal after a destroy is a misuse.
        if (l.isCondLifecycle()) push({l.addr, ResKind::Cond}, Mode::Sync);
        break;
    case EventKind::CondWait: // two resources of different kinds: never the same
        push({l.addr, ResKind::Cond}, Mode::Sync);
        push({l.addr2, ResKind::Mutex}, Mode::Sync);
        break;
    case EventKind::CondSignal:
    case EventKind::CondBroadcast: push({l.addr, ResKind::Cond}, Mode::Sync); break;
    default: break;
    }
}

UEvent* QporExplorer::eventFor(ThreadId t, uint32_t choice, const model::Event& pending,
                               const std::vector<Access>* accesses, const std::vector<ThreadId>* joins) {
    EventSpec& spec = specScratch_; // reused: its vectors keep their capacity
    spec.causes.clear();
    spec.thread = t;
    spec.choice = choice;
    spec.label = pending;
    spec.label.tid = t;
    spec.pt = F_.threadMax(t);
    if (!spec.pt && t < createOf_.size() && createOf_[t]) spec.causes.push_back(createOf_[t]);
    if (t < joinedSince_.size()) // the joins t took since its last event (autoSteps)
        spec.causes.insert(spec.causes.end(), joinedSince_[t].begin(), joinedSince_[t].end());
    // A join follows the end of the joined thread's history.
    if (pending.kind == EventKind::ThreadJoin) historyEndOf(ThreadId(pending.value), spec.causes);
    if (joins)
        for (ThreadId c : *joins) historyEndOf(c, spec.causes); // joins inside an atomic section
    if (pending.kind == EventKind::Lock && spec.pt && spec.pt->label.kind == EventKind::CondWait && t < wakers_.size() &&
        wakers_[t])
        spec.causes.push_back(wakers_[t]); // the re-acquire after a wait follows the signal that woke it
    spec.baseCauses = uint32_t(spec.causes.size());
    if (accesses) spec.accesses = *accesses;
    else accessesInto(pending, spec.accesses);
    for (Access& a : spec.accesses) a.parent = F_.treeMax(a.res);
    if (!accesses && casByOutcome(pending, spec.accesses.size(), /*section=*/false)) { // sections pass `accesses`
        UEvent* const parents[2] = {spec.accesses[0].parent, spec.accesses.back().parent};
        if (casFailsAfter(pending, spec.accesses, std::span(parents, spec.accesses.size())))
            for (Access& a : spec.accesses) a.mode = Mode::Read; // a compare-exchange that fails here only reads
    }
    for (Access& a : spec.accesses) {
        if (a.mode == Mode::Write) {
            // The reads of the word's current value by other threads precede this write (they are dependent).
            // Once each: a read of many words (a memcpy) is the last read of every one of them.
            F_.forEachLastRead(a.res, [&](ThreadId reader, UEvent* r) {
                if (reader != t && r->access(a.res)->parent == a.parent &&
                    std::find(spec.causes.begin() + spec.baseCauses, spec.causes.end(), r) == spec.causes.end())
                    spec.causes.push_back(r);
            });
        }
    }
    return es_.findOrCreate(spec);
}

// The event thread t's pending action is at C_depth, when the parent configuration's en already had it: the
// event is determined by pt, the base causes and the resource parents (and, for a write, the last reads of its
// words), and the parent's last event e changes none of these unless it is t's own, shares a resource with the
// action that one of them writes or locks, creates or wakes threads, or is the thread a join waits for. Saves a
// look-up per thread and node.
UEvent* QporExplorer::reusableEnabled(size_t depth, ThreadId t, uint32_t choice, const model::Event& pending) const {
    if (depth == 0) return nullptr;
    const Node& parent = stack_[depth - 1];
    const UEvent* e = parent.e;
    if (!e || e->thread == t) return nullptr;
    switch (e->label.kind) {
    case EventKind::ThreadCreate:
    case EventKind::CondSignal:
    case EventKind::CondBroadcast:
    case EventKind::CondWait: return nullptr;
    default: break;
    }
    for (UEvent* x : parent.en) {
        if (x->thread != t || x->choice != choice) continue;
        if (x->label.kind != pending.kind || x->label.addr != pending.addr || x->label.addr2 != pending.addr2 ||
            x->label.size != pending.size || x->label.size2 != pending.size2 || x->pt != F_.threadMax(t))
            return nullptr;
        if (x->label.kind == EventKind::ThreadJoin) return nullptr;
        // Two reads of a word leave each other's event as it was: a read's parent is the word's last write, and only
        // a write's history holds the word's last reads.
        auto changes = [](const Access& a, const Access& b) { return a.mode != Mode::Read || b.mode != Mode::Read; };
        if (x->accesses.size() > UEvent::kAccessScan || e->accesses.size() > UEvent::kAccessScan) [[unlikely]] {
            const UEvent* few = x->accesses.size() <= e->accesses.size() ? x : e;
            const UEvent* many = few == x ? e : x;
            for (const Access& a : few->accesses)
                if (const Access* b = many->access(a.res); b && changes(a, *b)) return nullptr;
            return x;
        }
        for (const Access& a : x->accesses)
            for (const Access& b : e->accesses)
                if (a.res == b.res && changes(a, b)) return nullptr;
        return x;
    }
    return nullptr;
}

// Thread t's atomic section events at C_depth, taken over from the parent configuration's en when they are what
// atomicSectionEvents would make again: a run reads only words and mutexes of its site's footprint (which holds every
// resource of every run seen, and what the runs that blocked touched before), so when the parent's last event e is
// another thread's, shares no resource with the footprint that either writes or locks, and is no wait or signal,
// every run from C_depth is the run from C_{depth-1} step by step, and its event — the parents and causes of its
// accesses — is the same (as for reusableEnabled). Not for a site some run of which blocked waiting for another
// thread (whether it gets past then depends on more than the footprint: on a thread's exit, which autoSteps take
// after e), nor where the sites learned something since the parent's en was made (their events would differ). Each
// reuse saves probing every run of the section on a copy of the executor (sectionRunsAt).
bool QporExplorer::reusableSectionEvents(size_t depth, ThreadId t, EnabledList& en) {
    if (depth == 0) return false;
    const Node& parent = stack_[depth - 1];
    const UEvent* e = parent.e;
    if (!e || e->thread == t || !parent.enKnown || parent.enSectionsVersion != sectionsVersion_) return false;
    switch (e->label.kind) {
    case EventKind::ThreadCreate:
    case EventKind::CondSignal:
    case EventKind::CondBroadcast:
    case EventKind::CondWait: return false;
    default: break;
    }
    const model::Event& pending = ex_.thread(t).pending;
    auto site = sections_->find(pending.loc);
    if (site == sections_->end() || site->second.waitsOnThreads || !site->second.used) return false;
    UEvent* const pt = F_.threadMax(t);
    size_t found = 0;
    for (UEvent* x : parent.en) {
        if (x->thread != t) continue;
        if (!x->section || x->label.loc != pending.loc || x->label.kind != pending.kind || x->pt != pt) return false;
        ++found;
    }
    if (found == 0) return false; // no run completed there: its placements are made again (atomicSectionEvents)
    for (const Access& a : site->second.footprint) {
        const Access* b = e->access(a.res);
        if (b && (a.mode != Mode::Read || b->mode != Mode::Read)) return false;
    }
    for (UEvent* x : parent.en)
        if (x->thread == t) {
            es_.addToU(x);
            en.push_back(x);
        }
    enReused_ += found;
    return true;
}

const EnabledList& QporExplorer::enabledEvents(size_t depth) {
    Node& node = stack_[depth];
    EnabledList& en = node.en; // in place: the child reuses it (reusableEnabled)
    // Before such an object's operation is made an event (or a blocked one a placement).
    using exec::Executor;
    if (const uint8_t use = ex_.syncUse();
        use & (Executor::kSyncInitLate | Executor::kBarrierRoundsVary | Executor::kSyncDestroyLate)) {
        unsupported_ = use & Executor::kSyncInitLate      ? kSyncInitLate
                       : use & Executor::kSyncDestroyLate ? kSyncDestroyLate
                                                          : kBarrierRoundsVary;
        return en;
    }
    if (node.enKnown && (!node.enSections || node.enSectionsVersion == sectionsVersion_)) {
        // The node chooses again after Alt (Alg. 1, line 12 calls Explore(C, D', J) on the same C): en(C) is what it
        // was, the same events (unique by their histories, and kept from collection as a live node's en). Only U may
        // have lost them in a pruning since, with the placements of blocked acquires (remade unless still there) and
        // of sections that have no event at C. An atomic section's events are the same as long as its site knows
        // the same (the same runs from the same state, made into the same events); before, they were made again at
        // every choice — each of a section's R runs is one, so its R runs were enumerated R times.
        // (Only after a pruning that dropped events: each pass is linear in en(C), and a node with an action of R
        // outcomes chooses R times.)
        const bool pruned = node.enEpoch != pruneEpoch_;
        node.enEpoch = pruneEpoch_;
        if (pruned)
            for (UEvent* e : en) es_.addToU(e);
        for (ThreadId t = 0; t < ex_.numThreads(); ++t) {
            const exec::ThreadView& v = ex_.thread(t);
            if (v.state == exec::ThreadState::BlockedLock) {
                blockedPlacements(t);
            } else if (pruned && node.enSections && v.state == exec::ThreadState::Ready && ex_.enabled(t) &&
                       ex_.inAtomicSection(t) &&
                       std::none_of(en.begin(), en.end(), [&](const UEvent* e) { return e->thread == t; })) {
                sectionPlacementsWithoutEvent(t);
            }
            if (unsupported_ || footprintGrew_) return en;
        }
        enReused_ += en.size();
        return en;
    }
    en.clear();
    lookaheadRuns_.clear(); // (another C's)
    bool sections = false; // an atomic section's events and placements are learned as the exploration goes
    if (ex_.exclusiveThread() != model::kNoThread) {
        // Sections are executed whole (execute()); C never ends inside one.
        unsupported_ = "internal: a configuration ends inside an atomic section";
        return en;
    }
    blockedScratch_.clear();
    for (ThreadId t = 0; t < ex_.numThreads(); ++t) {
        const exec::ThreadView& v = ex_.thread(t);
        if (v.state == exec::ThreadState::BlockedLock) blockedScratch_.push_back(t);
        if (v.state != exec::ThreadState::Ready || !ex_.enabled(t)) continue;
        if (ex_.inAtomicSection(t)) {
            sections = true;
            if (reusableSectionEvents(depth, t, en)) continue;
            const size_t before = en.size();
            for (UEvent* e : atomicSectionEvents(t)) {
                es_.addToU(e);
                en.push_back(e);
            }
            if (!unsupported_ && !footprintGrew_ && en.size() == before) sectionPlacementsWithoutEvent(t);
            if (unsupported_) {
                en.clear();
                return en;
            }
            continue;
        }
        for (uint32_t c = 0; c < v.choices; ++c) {
            UEvent* e = reusableEnabled(depth, t, c, v.pending);
            if (e) ++enReused_;
            else e = eventFor(t, c, v.pending), ++enLookups_;
            es_.addToU(e);
            en.push_back(e);
        }
    }
    // A thread blocked on a mutex has no event at C, but its acquire placed before the operations that made
    // the mutex busy is a conflicting extension of C (ABBA: the second thread's acquire of A before the first
    // thread's). cexp (Alg. 1) only walks acquires in C; the pending one needs the same walk.
    for (ThreadId t : blockedScratch_) {
        sections = sections || ex_.inAtomicSection(t);
        blockedPlacements(t);
    }
    node.enKnown = !unsupported_ && !footprintGrew_;
    node.enEpoch = pruneEpoch_;
    node.enSections = sections;
    node.enSectionsVersion = sectionsVersion_;
    return en;
}

// The causes of thread t's pending action besides its thread predecessor pt, as at C: its create (for its first
// event), the joins it took since pt, and for the mutex re-acquire after a wait the signal that woke it.
std::vector<UEvent*> QporExplorer::pendingCauses(ThreadId t, UEvent* pt) const {
    std::vector<UEvent*> causes;
    pendingCausesInto(t, pt, causes);
    return causes;
}

void QporExplorer::pendingCausesInto(ThreadId t, UEvent* pt, std::vector<UEvent*>& causes) const {
    causes.clear();
    if (!pt && t < createOf_.size() && createOf_[t]) causes.push_back(createOf_[t]);
    if (t < joinedSince_.size()) causes.insert(causes.end(), joinedSince_[t].begin(), joinedSince_[t].end());
    if (pt && pt->label.kind == EventKind::CondWait && t < wakers_.size() && wakers_[t]) causes.push_back(wakers_[t]);
}

void QporExplorer::describePending(ThreadId t, const model::Event& pending, UEvent* pt, std::span<UEvent* const> causes,
                                   UEvent& like) const {
    like.thread = t;
    like.label = pending;
    like.label.tid = t;
    like.pt = pt;
    like.causes.assign(causes.begin(), causes.end());
    like.baseCauses = uint32_t(like.causes.size());
    accessesInto(pending, like.accesses);
}

void QporExplorer::blockedPlacements(ThreadId t) {
    const model::Event& pending = ex_.thread(t).pending;
    if (pending.kind == EventKind::SemWait || pending.kind == EventKind::RwLock)
        return blockedSyncPlacements(t, pending);
    // A departure waits for the last arrival of its round: no history within C holds it.
    if (pending.kind == EventKind::BarrierLeave) return;
    if (ex_.inAtomicSection(t)) {
        if (auto it = sections_->find(pending.loc); it != sections_->end() && !it->second.footprint.empty())
            return sectionPlacementsWithoutEvent(t); // every resource it touches, not only the mutex
    }
    UEvent* pt = F_.threadMax(t);
    std::vector<UEvent*>& causes = pendingCausesScratch_; // no allocation while the walk below is known
    pendingCausesInto(t, pt, causes);
    Resource res{pending.addr, ResKind::Mutex};
    // While t stays blocked behind the same history, the walk of an earlier node already made the placements
    // below the mutex tree's maximum of that time: walk only the part of the chain added since (the cache is
    // dropped whenever pruning takes events out of U, which would then have to be made again).
    UEvent* top = F_.treeMax(res);
    UEvent* stopAt = nullptr;
    if (blockedWalks_.size() <= t) blockedWalks_.resize(t + 1);
    BlockedWalk& w = blockedWalks_[t];
    if (w.valid && w.pt == pt && w.causes == causes && w.mutex == res.addr()) {
        if (w.top == top) return;
        const Access* wa = w.top ? w.top->access(res) : nullptr;
        const Access* ta = top ? top->access(res) : nullptr;
        if (wa && ta && isAncestorOrSelf(&wa->node, &ta->node, es_.step())) stopAt = w.top;
    }
    w.valid = true, w.pt = pt, w.causes = causes, w.mutex = res.addr(), w.top = top, w.word = {}, w.reads.clear();
    // The event the acquire would be if the mutex were free now.
    UEvent like;
    describePending(t, pending, pt, causes, like);
    // An acquire that starts an atomic section is the section's event (its footprint, its runs there): placed by
    // replay, once the site's footprint is known (Sections.cpp).
    like.section = ex_.inAtomicSection(t);
    for (UEvent* child = top; child && child != stopAt;) {
        bool forced = es_.leq(child, like.pt);
        for (UEvent* c : like.causes) forced = forced || es_.leq(child, c);
        if (forced) break;
        UEvent* earlier = ownerOf(child->access(res)->node.parent);
        if (mutexFreeAfter(earlier)) {
            if (like.section && !learnBlockedSection(like, earlier)) return;
            if (!like.section || !like.accesses.empty()) makeEvent(like, std::span(&earlier, 1), {});
            if (footprintGrew_ || unsupported_) return;
        }
        child = earlier;
    }
}

} // namespace skein::explore::unfolding
