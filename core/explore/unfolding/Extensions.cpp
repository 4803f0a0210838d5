// ex(C) = en(C) ∪ cex(C) (Alg. 1, line 5). en(C) comes from the executor: one event per enabled thread and
// outcome. cex(C) is computed incrementally as C grows: when e joins C, the conflicting extensions it creates
// are (1) e's own action placed earlier in one of its resource trees — cexp (Alg. 1, lines 14-25) generalised
// from mutexes to condition variables and memory words — and (2) when e writes a word, every read of that word
// in C placed after e (it then reads e's value). DESIGN.md argues why nothing else is needed.
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

// ---- ReaderGroups -----------------------------------------------------------------------------------------------

void ReaderGroups::clear() {
    evs_.clear();
    bounds_.assign(1, 0);
}

void ReaderGroups::add(UEvent* r) { evs_.push_back(r); }

void ReaderGroups::group() {
    // A handful of reads, each thread's in program order (the order of C): a stable insertion sort by thread.
    for (size_t i = 1; i < evs_.size(); ++i)
        for (size_t j = i; j > 0 && evs_[j - 1]->thread > evs_[j]->thread; --j) std::swap(evs_[j - 1], evs_[j]);
    bounds_.assign(1, 0);
    for (size_t i = 1; i <= evs_.size(); ++i)
        if (i == evs_.size() || evs_[i]->thread != evs_[i - 1]->thread) bounds_.push_back(uint32_t(i));
}

template <class Skip>
void ReaderGroups::readersOf(const Frontier& F, const Resource& word, const UEvent* w, ThreadId self, Skip skip) {
    clear();
    for (UEvent* r : F.readsOf(word))
        if (r->thread != self && r->access(word)->parent == w && !skip(r)) add(r);
    group();
}

std::vector<Access> QporExplorer::accessesFor(const model::Event& l) const {
    std::vector<Access> out;
    accessesInto(l, out);
    return out;
}

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

const std::vector<UEvent*>& QporExplorer::enabledEvents(size_t depth) {
    Node& node = stack_[depth];
    std::vector<UEvent*>& en = node.en; // in place: the child reuses it (reusableEnabled)
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
    if (!pt && t < createOf_.size() && createOf_[t]) causes.push_back(createOf_[t]);
    if (t < joinedSince_.size()) causes.insert(causes.end(), joinedSince_[t].begin(), joinedSince_[t].end());
    if (pt && pt->label.kind == EventKind::CondWait && t < wakers_.size() && wakers_[t]) causes.push_back(wakers_[t]);
    return causes;
}

void QporExplorer::describePending(ThreadId t, const model::Event& pending, UEvent* pt, std::vector<UEvent*> causes,
                                   UEvent& like) const {
    like.thread = t;
    like.label = pending;
    like.label.tid = t;
    like.pt = pt;
    like.causes = std::move(causes);
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
    std::vector<UEvent*> causes = pendingCauses(t, pt);
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
    w = {true, pt, causes, res.addr(), top, {}, {}};
    // The event the acquire would be if the mutex were free now.
    UEvent like;
    describePending(t, pending, pt, std::move(causes), like);
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

// The events with `like`'s action whose history is [pt(like)] ∪ its base causes ∪ [anchors] ∪ [readers]: the
// resource parents follow from that history. For each word the action writes, the reads of the word's current
// value (in C) that are not forced into the history may or may not precede the write: one event per choice (a
// prefix of each thread's reads). Nothing is made where the union is not a configuration.
UEvent* QporExplorer::makeEvent(const UEvent& like, std::span<UEvent* const> anchors, std::span<UEvent* const> readers,
                                int choice) {
    // Called a few times per executed event, mostly to name an event that exists already: the buffers are the
    // explorer's (nothing below calls makeEvent again), so a call allocates nothing unless it creates an event.
    std::vector<UEvent*>& base = mkBase_;
    base.clear();
    if (like.pt) base.push_back(like.pt);
    for (uint32_t i = 0; i < like.baseCauses; ++i) base.push_back(like.causes[i]);
    for (UEvent* a : anchors)
        if (a) base.push_back(a);
    for (UEvent* r : readers) base.push_back(r);
    // Most placements name an event that exists already (made as an enabled event of another configuration, or
    // by an earlier placement): it is looked up first, and the configuration checks are made only before
    // creating one. A history that is not a configuration is never found (EventStructure::find).
    std::optional<bool> baseOk;
    auto baseIsConfiguration = [&] {
        if (!baseOk) {
            baseOk = true;
            for (size_t i = 0; i < base.size() && *baseOk; ++i)
                for (size_t j = i + 1; j < base.size(); ++j)
                    if (es_.conflict(base[i], base[j])) {
                        baseOk = false;
                        break;
                    }
        }
        return *baseOk;
    };
    // Optional readers, per written word; each read once, however many of the words it reads (a memcpy reads every
    // word a memset writes: listed per word, its prefixes — one per copy — named one history over and over, and
    // the placements of a 1 KB memset took 160 M instructions).
    // Each resource's tree maximum in [base]: the parents of the placement that adds no optional reader.
    std::vector<UEvent*>& baseMax = mkBaseMax_;
    baseMax.clear();
    for (const Access& l : like.accesses) baseMax.push_back(es_.treeMaxOf(base, l.res));
    // A compare-exchange's mode is its outcome after the write it reads here, which need not be like's.
    const bool cas = casByOutcome(like);
    const Mode casMode = cas && casFailsAfter(like.label, like.accesses, baseMax) ? Mode::Read : Mode::Write;
    auto modeOf = [&](size_t i) { return cas ? casMode : like.accesses[i].mode; };
    ReaderGroups& optional = mkOptional_;
    optional.clear();
    for (size_t i = 0; i < like.accesses.size(); ++i) {
        const Access& l = like.accesses[i];
        if (modeOf(i) != Mode::Write) continue;
        UEvent* p = baseMax[i];
        for (UEvent* r : F_.readsOf(l.res)) {
            if (r->thread == like.thread || r->access(l.res)->parent != p || afterSiblingsOf(r))
                continue; // readersOf, without the map
            if (optional.contains(r)) continue;
            bool inHistory = false;
            for (UEvent* b : base) inHistory = inHistory || es_.leq(r, b);
            if (!inHistory) optional.add(r);
        }
    }
    optional.group();
    UEvent* placed = nullptr; // the event of `place({})`
    auto place = [&](std::span<UEvent* const> chosen) {
        std::vector<UEvent*>& preds = mkPreds_;
        preds.assign(base.begin(), base.end());
        preds.insert(preds.end(), chosen.begin(), chosen.end());
        EventSpec& spec = mkSpec_;
        spec.thread = like.thread;
        spec.choice = choice >= 0 ? uint32_t(choice) : like.choice;
        spec.label = like.label;
        spec.pt = like.pt;
        spec.causes.assign(like.causes.begin(), like.causes.begin() + like.baseCauses);
        spec.baseCauses = like.baseCauses;
        for (UEvent* a : anchors)
            if (a) spec.causes.push_back(a);
        spec.causes.insert(spec.causes.end(), readers.begin(), readers.end());
        spec.causes.insert(spec.causes.end(), chosen.begin(), chosen.end());
        // The same accesses as `like` (for an atomic section, the union of its events'), parents from the history.
        spec.accesses.resize(like.accesses.size());
        for (size_t i = 0; i < like.accesses.size(); ++i) {
            Access& a = spec.accesses[i];
            a.res = like.accesses[i].res;
            a.mode = modeOf(i);
            a.parent = chosen.empty() ? baseMax[i] : es_.treeMaxOf(preds, a.res);
        }
        if (like.section && sectionPlacedByReplay(like)) {
            // Which runs the section has here (if any) depends on the history: run it there (Sections.cpp).
            if (!baseIsConfiguration()) return false;
            for (size_t i = base.size(); i < preds.size(); ++i)
                for (size_t j = 0; j < i; ++j)
                    if (es_.conflict(preds[i], preds[j])) return true;
            sectionPlacements(like, spec, preds);
            return !footprintGrew_ && !unsupported_;
        }
        UEvent* e = es_.find(spec);
        if (!e) {
            if (!baseIsConfiguration()) return false; // no prefix of readers can help
            for (size_t i = base.size(); i < preds.size(); ++i)
                for (size_t j = 0; j < i; ++j)
                    if (es_.conflict(preds[i], preds[j])) return true;
            // A wait is an event only where the semaphore's count is above 0, a lock only where it is free enough
            // (one made elsewhere would only lead to sleep-set blocked explorations); another prefix of the readers
            // may hold the posts (the unlocks) it needs.
            if (!like.section && !syncEnabledAt(like, spec, preds)) return !unsupported_;
            bool created = false;
            e = es_.findOrCreate(spec, &created);
            if (created) ++cexEvents_;
            e->section = like.section;
            // A section placed without replay has one run wherever it is placed, with the same accesses
            // (variesByHistory), but the values it stores are its run's there only if it reads nothing: `x1 = x0 + 1`
            // stores another value where x0 has another. Those of one that reads stay unknown here (casFailsAfter
            // then takes a compare-exchange reading them as a write): copied, a compare-exchange placed after it was
            // taken to fail where it succeeded — an internal error (the long differential run, seed 20262062).
            auto site = e->section && like.id ? sections_->find(like.label.loc) : sections_->end();
            if (site != sections_->end() && !site->second.runsRead)
                if (auto w = sectionWrites_.find(like.id); w != sectionWrites_.end())
                    sectionWrites_.try_emplace(e->id, w->second);
        }
        if (chosen.empty()) placed = e;
        if (e == &like) return true;
        es_.addToU(e);
        return true;
    };
    if (optional.empty()) {
        place({});
        return placed;
    }
    optional.forEachPrefix([&](std::span<UEvent* const> chosen, std::span<const uint32_t>) { return place(chosen); });
    return nullptr;
}

bool QporExplorer::mutexFreeAfter(const UEvent* n) const {
    // Walk up the mutex tree from n: the lock state after the last operation of the chain.
    while (n) {
        // An atomic section is one event whose label is its first action (often the lock it takes): what counts is
        // how it ends. Taken as a lock, a section that locks and unlocks had no acquire placed after it, and a
        // deadlock that needs one (another thread's lock right after the section) was never explored — by any mode
        // (tests/unit/QporSectionsTest.cpp).
        if (n->section) {
            auto site = sections_->find(n->label.loc);
            return site != sections_->end() && !site->second.holdsMutex;
        }
        // An operation that failed (a misuse: a lock of a destroyed mutex, an init or destroy of a held one) left
        // the state as it was before it: the walk goes past it.
        if (!n->label.failed) {
            switch (n->label.kind) {
            case EventKind::Unlock:
            case EventKind::CondWait: return true;
            case EventKind::Lock: return false;
            case EventKind::TryLock:
                if (n->label.value) return false; // acquired
                break;                            // failed: the state before it
            default: return true;
            }
        }
        const Access* a = nullptr;
        for (const Access& x : n->accesses)
            if (x.res.kind() == ResKind::Mutex) a = &x;
        n = a ? a->parent : nullptr;
    }
    return true;
}

uint32_t QporExplorer::waitersAt(const Resource& cond, const UEvent* n) const {
    // The waiters of the condition variable after n: its chain from the root to n, replayed.
    std::vector<const UEvent*> path;
    for (; n; n = ownerOf(n->access(cond)->node.parent)) path.push_back(n);
    std::vector<ThreadId> waiting;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
        const UEvent* x = *it;
        if (x->label.failed) continue; // a wait, signal or broadcast on a destroyed one: a misuse that changed nothing
        if (x->label.kind == EventKind::CondWait) waiting.push_back(x->thread);
        else if (x->label.kind == EventKind::CondBroadcast) waiting.clear();
        else if (x->label.kind == EventKind::CondSignal && x->label.value) {
            auto w = std::find(waiting.begin(), waiting.end(), ThreadId(x->label.value - 1));
            if (w != waiting.end()) waiting.erase(w);
        }
    }
    return uint32_t(waiting.size());
}


void QporExplorer::earlierPlacements(UEvent* e) {
    // For each resource the action touches, the positions it can take in that resource's tree (or, for a read,
    // the writes it can read); an action touching several resources (an atomic section) takes every combination.
    // A placement names the events its history must include; everything else follows from that history.
    // Options are kept flat in the explorer's buffers (this runs for every executed event): option i of access
    // j is placeOpts_[placeRanges_[j] + i]; its anchors are placeAnchors_[first, first + count).
    placeOpts_.clear();
    placeAnchors_.clear();
    placeExcluded_.clear();
    placeRanges_.clear();
    auto option = [&](std::span<UEvent* const> anchors, int choice, bool coversAbove = false) {
        placeOpts_.push_back({uint32_t(placeAnchors_.size()), uint32_t(anchors.size()), choice, coversAbove});
        placeAnchors_.insert(placeAnchors_.end(), anchors.begin(), anchors.end());
    };
    // In the history of every placement: [pt(e)] and its base causes' histories.
    auto forced = [&](const UEvent* child) { return isForced(*e, child); };
    // A compare-exchange placed before writes of its word reads each earlier one: there it fails (a read of that
    // write) or not (a write after it, with the readers' choices of any write).
    const bool cas = casByOutcome(*e);
    for (const Access& a : e->accesses) {
        const Resource res = a.res;
        placeRanges_.push_back(uint32_t(placeOpts_.size()));
        // The original placement, first: a write's with the readers of its parent it follows (its causes), so
        // that a combination holding this one and a placement before one of those readers is seen to be none.
        if (a.mode == Mode::Write && e->accesses.size() > 1) {
            std::vector<UEvent*>& own = placeCombo_;
            own.assign(1, a.parent);
            for (size_t i = e->baseCauses; i < e->causes.size(); ++i)
                if (const Access* r = e->causes[i]->access(res); r && r->mode == Mode::Read && r->parent == a.parent)
                    own.push_back(e->causes[i]);
            option(own, -1);
        } else {
            option(std::span(&a.parent, 1), -1);
        }
        if (a.mode == Mode::Read && !cas) {
            // A read placed before writes of its word: it reads each earlier write of the chain.
            for (UEvent* child = a.parent; child && !forced(child);) {
                UEvent* earlier = ownerOf(child->access(res)->node.parent);
                option(std::span(&earlier, 1), -1, true);
                child = earlier;
            }
            continue;
        }
        // cond_wait's mutex access is its release of a mutex it holds: its place is fixed.
        if (e->label.kind == EventKind::CondWait && res.kind() == ResKind::Mutex) continue;
        bool isWrite = a.mode == Mode::Write || cas;
        bool acquires = res.kind() == ResKind::Mutex && e->label.kind == EventKind::Lock;
        const bool waits = e->label.kind == EventKind::SemWait && !e->section;
        auto place = [&](UEvent* after, bool same) {
            if (acquires && !mutexFreeAfter(after)) return;
            // A wait where no prefix of the posts can give it a unit: makeEvent would refuse every option, after
            // building each (semaphore_buffer: at their own places, three waits without the post they took).
            if (waits && !semWaitCanFollow(*e, res, after, same)) return;
            if (e->label.kind == EventKind::CondSignal && !same) {
                // Which waiter a signal wakes is its outcome: one event per waiter present at that point.
                uint32_t n = std::max<uint32_t>(1, waitersAt(res, after));
                for (uint32_t c = 0; c < n; ++c) option(std::span(&after, 1), int(c));
                return;
            }
            if (!isWrite) {
                if (!same) option(std::span(&after, 1), -1);
                return;
            }
            // A write also chooses which of the readers of the write before it precede it (a prefix of each
            // thread's reads); at its own position, every strict subset of its current readers.
            ReaderGroups& readers = placeReaders_;
            // A reader already in every placement's history (forced: a prefix of its thread's reads) is no choice:
            // leaving it out names the same history — at e's own position, e itself (semaphore_buffer's second
            // write of the slot made itself again: bench/README.md, twenty-ninth session).
            readers.readersOf(F_, res, after, e->thread,
                              [&](const UEvent* r) { return afterSiblingsOf(r) || forced(r); });
            if (readers.empty()) {
                if (!same) option(std::span(&after, 1), -1, true);
                return;
            }
            readers.forEachPrefix([&](std::span<UEvent* const> chosen, std::span<const uint32_t> len) {
                bool all = true;
                for (size_t i = 0; i < readers.groups(); ++i) all &= len[i] == readers.groupSize(i);
                if (same && all) return true; // that is e itself
                PlacementOption o{uint32_t(placeAnchors_.size()), uint32_t(1 + chosen.size()), -1, !same && all};
                o.xfirst = uint32_t(placeExcluded_.size());
                for (size_t g = 0; g < readers.groups(); ++g)
                    if (UEvent* x = readers.after(g, len[g])) placeExcluded_.push_back(x);
                o.xcount = uint32_t(placeExcluded_.size()) - o.xfirst;
                placeOpts_.push_back(o);
                placeAnchors_.push_back(after);
                placeAnchors_.insert(placeAnchors_.end(), chosen.begin(), chosen.end());
                return true;
            });
        };
        if (a.mode != Mode::Read) place(a.parent, true); // a failed compare-exchange has no readers to choose
        for (UEvent* child = a.parent; child && !forced(child);) {
            UEvent* earlier = ownerOf(child->access(res)->node.parent);
            if (cas && casFailsAt(*e, earlier)) option(std::span(&earlier, 1), -1);
            else place(earlier, false);
            child = earlier;
        }
    }
    placeRanges_.push_back(uint32_t(placeOpts_.size()));
    size_t accesses = placeRanges_.size() - 1;
    if (placeOpts_.size() == accesses) return; // every access has its original option only: that combination is e
    if (accesses == 1 && !e->section && e->accesses[0].res.kind() == ResKind::Memory) {
        // One memory access: the options in walk order, up the word's chain. Where the placement P at an earlier
        // position with every reader there before it (a read: reading that earlier write) has had its own earlier
        // placements made (P->placed), the rest of this walk is P's walk — the same thread predecessor and base
        // causes, so the same stop (`forced`), and the same readers at each position (they precede the next write
        // of the chain, which is in [P]); P's own strict subsets of readers are this position's other options,
        // made before it. So the walk stops there.
        for (size_t i = 1; i < placeOpts_.size(); ++i) {
            const PlacementOption& o = placeOpts_[i];
            UEvent* p = makeEvent(*e, std::span(placeAnchors_.data() + o.first, o.count), {}, o.choice);
            // (Not for a compare-exchange: whether it reads or writes at a position is its own, not P's.)
            if (o.coversAbove && !cas && p && p != e && p->placed) {
                ++placementsCut_;
                break;
            }
        }
        return;
    }
    // Every combination but the original one, access by access. The placement's parent on a resource is the
    // latest write of it in the history the anchors imply (makeEvent), and every option's anchors lie in [e]; so
    // where the anchors chosen so far already put a later write of access j's resource in the history than j's
    // own option names, the combination is the placement of the options naming those later writes — made when
    // they are chosen — and this branch is dropped with everything below it. (The product itself, 3^12 for an
    // atomic section reading twelve words written twice each, was once cut at 4,096 combinations: placements
    // past the cut were never made.)
    std::vector<uint32_t>& idx = placeIdx_;
    idx.assign(accesses, 0);
    std::vector<UEvent*>& anchors = placeCombo_;
    anchors.clear();
    std::vector<UEvent*>& preds = placePreds_;
    auto expected = [&](size_t j) { // the write the option of access j puts first: its parent there
        const PlacementOption& o = placeOpts_[placeRanges_[j] + idx[j]];
        return o.count ? placeAnchors_[o.first] : nullptr;
    };
    // Level upTo's option against the history the anchors imply; the levels above it too when that history grew
    // (they held before it did, and what they check depends on the history alone).
    auto consistent = [&](size_t upTo, bool grew) {
        preds.clear();
        if (e->pt) preds.push_back(e->pt);
        for (uint32_t i = 0; i < e->baseCauses; ++i) preds.push_back(e->causes[i]);
        for (UEvent* x : anchors) preds.push_back(x);
        for (size_t j = grew ? 0 : upTo; j <= upTo; ++j) {
            if (placeRanges_[j + 1] - placeRanges_[j] == 1 || e->accesses[j].res.kind() != ResKind::Memory) continue;
            if (es_.treeMaxOf(preds, e->accesses[j].res) != expected(j)) return false;
            // A write before only some readers of its parent, where the history already holds one it leaves out.
            const PlacementOption& o = placeOpts_[placeRanges_[j] + idx[j]];
            for (uint32_t k = 0; k < o.xcount; ++k)
                for (UEvent* p : preds)
                    if (es_.leq(placeExcluded_[o.xfirst + k], p)) return false;
        }
        return true;
    };
    // Whether x adds to the history of pt, the base causes and the anchors: most levels of a many-word access name
    // an event already there (a memcpy's words all read one memset), and then only their own option needs checking
    // — with every level re-checked at every level, a 4 KB memcpy placed before a concurrent memset took minutes.
    auto adds = [&](const UEvent* x) {
        if (e->pt && es_.leq(x, e->pt)) return false;
        for (uint32_t i = 0; i < e->baseCauses; ++i)
            if (es_.leq(x, e->causes[i])) return false;
        for (const UEvent* a : anchors)
            if (es_.leq(x, a)) return false;
        return true;
    };
    // Depth-first over the accesses, iteratively: an event has an access per word it touches, and a calloc or free
    // of a megabyte is 262,144 of them — a recursion per access overflowed the stack. At level i, idx[i] is the
    // option being tried, placeMarks_[i] the anchors' size before its anchors, and placeEntry_[i] what the levels
    // above chose: whether some access left its original placement, and the outcome (the waiter a signal wakes).
    // An anchor already among the anchors is not added again (the history is the same; makeEvent drops repeats).
    if (accesses == 0) return;
    std::vector<uint32_t>& marks = placeMarks_;
    std::vector<std::pair<bool, int>>& entry = placeEntry_;
    marks.assign(accesses, 0);
    entry.assign(accesses, {false, -1});
    size_t i = 0;
    for (;;) {
        const size_t options = placeRanges_[i + 1] - placeRanges_[i];
        if (idx[i] == options) { // level i is done: back to the level above, its next option
            if (i == 0) return;
            --i;
            anchors.resize(marks[i]);
            ++idx[i];
            continue;
        }
        const PlacementOption& o = placeOpts_[placeRanges_[i] + idx[i]];
        marks[i] = uint32_t(anchors.size());
        bool grew = false;
        for (uint32_t j = 0; j < o.count; ++j) {
            UEvent* x = placeAnchors_[o.first + j];
            if (!x || std::find(anchors.begin(), anchors.end(), x) != anchors.end()) continue;
            grew = grew || adds(x);
            anchors.push_back(x);
        }
        if (options == 1 || consistent(i, grew)) {
            const bool moved = entry[i].first || idx[i] != 0;
            const int choice = o.choice >= 0 ? o.choice : entry[i].second;
            if (i + 1 < accesses) { // down to the next access
                entry[i + 1] = {moved, choice};
                idx[++i] = 0;
                continue;
            }
            if (moved) makeEvent(*e, anchors, {}, choice);
            if (footprintGrew_ || unsupported_) return;
        }
        anchors.resize(marks[i]);
        ++idx[i];
    }
}

void QporExplorer::readsFromNewWrite(UEvent* w) {
    // A read of several of w's words (an atomic section, a string function) is placed after w once.
    std::vector<UEvent*>& done = placePreds_;
    done.clear();
    for (const Access& a : w->accesses) {
        if (a.mode != Mode::Write || a.res.kind() != ResKind::Memory) continue;
        for (UEvent* r : F_.readsOf(a.res)) { // makeEvent does not change C
            if (r->thread == w->thread || es_.leq(r, w)) continue;
            if (w->accesses.size() > 1) {
                if (std::find(done.begin(), done.end(), r) != done.end()) continue;
                done.push_back(r);
            }
            makeEvent(*r, std::span(&w, 1), {});
        }
    }
}

// An event a of C at a section site whose runs differ (SectionSite::runAccesses) has siblings — its action at a
// history whose parents make it run otherwise — that follow events of C which a runs beside: a walk made before such
// an event n joined C did not have it. So when n touches a resource of a's footprint that a leaves alone, or reads
// the write a reads (a sibling may overwrite it after n), a's action is placed again: at the history that adds n and
// everything else of C beside a (footprintLike; the placement of that one history is made here, the walk makes the
// others below it). This is the sections' counterpart of placing reads after a new write (readsFromNewWrite): a
// plain action touches the same resources wherever it is placed, so n beside it changes nothing of its event.
// (Without it, `t = x; if (y == 0) x = t + 1;` run after y = 1, then a read of x, missed the final state where the
// section wrote x after that read; and a section that writes x only when a nondet value is set, run with it unset
// beside a write of x, missed the run that writes x after it: tests/unit/QporSectionsTest.cpp.)
void QporExplorer::siblingsAfterNewAccess(const UEvent* n) {
    // The events of C are the stack's, the top's (n) last.
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
        UEvent* a = stack_[i].e;
        if (!a || !hasRunAccesses(*a) || es_.leq(a, n)) continue;
        const std::vector<Access>& footprint = sections_->at(a->label.loc).footprint;
        const bool opens = std::any_of(n->accesses.begin(), n->accesses.end(), [&](const Access& x) {
            if (std::none_of(footprint.begin(), footprint.end(), [&](const Access& f) { return f.res == x.res; }))
                return false;
            const Access* own = a->access(x.res);
            return !own || (own->mode == Mode::Read && x.mode == Mode::Read && own->parent == x.parent);
        });
        if (!opens) continue;
        UEvent like;
        footprintLike(*a, like);
        std::vector<UEvent*> parents;
        for (const Access& x : like.accesses)
            if (x.parent) parents.push_back(x.parent);
        siblingsOf_ = a;
        makeEvent(like, parents, {});
        if (!footprintGrew_ && !unsupported_) earlierPlacements(&like);
        siblingsOf_ = nullptr;
        if (footprintGrew_ || unsupported_) return;
    }
}

void QporExplorer::addConflictingExtensions(UEvent* e) {
    phase_.enter(PhaseClock::Cex); // until the child's en(C)
    // e's action placed earlier depends on [e] only — every read of C that the walk or makeEvent looks at reads a
    // write of e's chain and is in [e] (a read of C outside [e] that is dependent with e would be in conflict with
    // it) — so the placements made when e was executed before are still in U unless pruning dropped events since.
    // Atomic sections are placed each time: what their runs touch is learned as the exploration goes.
    if (!e->placed || e->section) {
        if (hasRunAccesses(*e)) {
            UEvent like;
            footprintLike(*e, like);
            earlierPlacements(&like);
        } else {
            earlierPlacements(e);
        }
        e->placed = !footprintGrew_ && !unsupported_;
    } else {
        ++placementsReused_;
    }
    readsFromNewWrite(e);
    if (hasRunAccessSites_ && !footprintGrew_ && !unsupported_) siblingsAfterNewAccess(e);
}

} // namespace skein::explore::unfolding
