// cex(C), the conflicting extensions of C (Alg. 1, line 5), computed incrementally as C grows: when e joins C, the
// conflicting extensions it creates are (1) e's own action placed earlier in one of its resource trees — cexp
// (Alg. 1, lines 14-25) generalised from mutexes to condition variables and memory words — and (2) when e writes a
// word, every read of that word in C placed after e (it then reads e's value). makeEvent names the event of an
// action at a history given by its anchors. DESIGN.md argues why nothing else is needed.
#include <algorithm>
#include <optional>

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

// The events with `like`'s action whose history is [pt(like)] ∪ its base causes ∪ [anchors] ∪ [readers]: the
// resource parents follow from that history. For each word the action writes, the reads of the word's current
// value (in C) that are not forced into the history may or may not precede the write: one event per choice (a
// prefix of each thread's reads). Nothing is made where the union is not a configuration.
UEvent* QporExplorer::makeEvent(const UEvent& like, std::span<UEvent* const> anchors, std::span<UEvent* const> readers,
                                int choice) {
    // Called a few times per executed event, mostly to name an event that exists already: the buffers are the
    // explorer's (nothing below calls makeEvent again), so a call allocates nothing unless it creates an event.
    PlaceEvents& base = mkBase_;
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
    PlaceEvents& baseMax = mkBaseMax_;
    baseMax.clear();
    for (const Access& l : like.accesses) baseMax.push_back(treeMaxIn(base, l.res));
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
    auto placeAt = [&](std::span<UEvent* const> chosen) {
        PlaceEvents& preds = mkPreds_;
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
            a.parent = chosen.empty() ? baseMax[i] : treeMaxIn(preds, a.res);
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
    // A sibling walk (siblingsAfterNewAccess) makes only the placements whose history holds the new event of C it
    // follows: each other one was made by the walk of the newest event of C in its history, or by the section
    // event's own placement — its anchors and readers were options then, and their events, in conflict with that
    // event of C, are still in U. (Cross-checked: made, they must make no event nor bring one back into U.)
    auto place = [&](std::span<UEvent* const> chosen) {
        if (!siblingsAfter_ || holdsSiblingsAfter(base) || holdsSiblingsAfter(chosen)) return placeAt(chosen);
        if (!crossCheck_) return true;
        const uint64_t allocated = es_.allocated();
        const size_t inU = es_.uSize();
        const bool goOn = placeAt(chosen);
        crossChecked(siblingWalkChecks_, es_.allocated() == allocated && es_.uSize() == inU);
        return goOn;
    };
    if (optional.empty()) {
        place({});
        return placed;
    }
    optional.forEachPrefix([&](std::span<UEvent* const> chosen, std::span<const uint32_t>) { return place(chosen); });
    return nullptr;
}

// When every event is in C, the writes of r in the union of their local configurations are a prefix of C's chain of
// r (C is a configuration, so r's tree restricted to it is a chain, and a local configuration is causally closed):
// the maximum is the first write down C's chain that one of them has in its history. Causality needs only the
// events' tmax, where EventStructure::treeMaxOf asks their summaries for entries — made, in a small exploration,
// for these queries alone (use_after_free.c). A chain longer than the walk goes to the summaries.
UEvent* QporExplorer::treeMaxIn(std::span<UEvent* const> events, const Resource& r) const {
    constexpr int kWalk = 8;
    if (std::all_of(events.begin(), events.end(), [](const UEvent* x) { return !x || x->inC; })) {
        UEvent* w = F_.treeMax(r);
        for (int steps = 0; steps < kWalk; ++steps) {
            if (!w) return crossCheck_ ? treeMaxChecked(events, r, nullptr) : nullptr;
            for (const UEvent* x : events)
                if (x && es_.leq(w, x)) return crossCheck_ ? treeMaxChecked(events, r, w) : w;
            w = ownerOf(w->access(r)->node.parent);
        }
    }
    return es_.treeMaxOf(events, r);
}

UEvent* QporExplorer::treeMaxChecked(std::span<UEvent* const> events, const Resource& r, UEvent* walked) const {
    UEvent* max = es_.treeMaxOf(events, r);
    crossChecked(treeMaxChecks_, walked == max);
    return max;
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


// Most executed events of a small exploration have nothing to place (use_after_free.c: five of seven): every
// parent is in the history that every placement keeps (or at the root), so no walk goes up a chain, and no access
// writes a value that reads of other threads take, so no subset of readers is left out at its own position. Said
// here before the walk's code and buffers are touched (an instruction-cache miss each, on a small exploration).
bool QporExplorer::onlyItsOwnPlacement(const UEvent& e) const {
    if (e.section) return false;
    for (const Access& a : e.accesses) {
        if (a.parent && !isForced(e, a.parent)) return false;
        if (a.mode != Mode::Write) continue;
        for (const UEvent* r : F_.readsOf(a.res))
            if (r->thread != e.thread && r->access(a.res)->parent == a.parent && !afterSiblingsOf(r) &&
                !isForced(e, r))
                return false;
    }
    return true;
}

void QporExplorer::earlierPlacements(UEvent* e) {
    const bool ownOnly = onlyItsOwnPlacement(*e);
    if (ownOnly && !crossCheck_) return;
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
            PlaceEvents& own = placeCombo_;
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
    if (ownOnly) crossChecked(ownPlacementChecks_, placeOpts_.size() == accesses); // what it said without the walk
    if (placeOpts_.size() == accesses || ownOnly) return; // every access has its original option only: that is e
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
    PlaceIndices& idx = placeIdx_;
    idx.assign(accesses, 0);
    PlaceEvents& anchors = placeCombo_;
    anchors.clear();
    PlaceEvents& preds = placePreds_;
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
            if (treeMaxIn(preds, e->accesses[j].res) != expected(j)) return false;
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
    PlaceIndices& marks = placeMarks_;
    std::vector<std::pair<bool, int>>& entry = placeEntry_;
    marks.assign(accesses, 0);
    entry.assign(accesses, {false, -1});
    // An action that reads memory and touches nothing else that has another option (a memcpy from a buffer another
    // thread writes into one only its thread touches, strlen, strcmp): option k of a read is the k-th write up its
    // word's chain, and a placement P met in this walk whose own earlier placements are made (P->placed) has made
    // every combination at or above its options on every access — its walk is this one's from there: the same thread
    // predecessor and base causes, so the same stops, the same single option where this walk has one (that access's
    // parent is in [pt], nothing of C writes the word later, and no reader of it is left to choose), and the same
    // check of each combination. Those combinations are skipped, whole subtrees where the levels below are
    // unconstrained (the counterpart of the single-access walk's stop: each execution of snapshot_memcpy.c placed
    // its copy at all 17 snapshots again). An atomic section's event is such an action too when it is placed as a
    // plain event (its site's runs are the same at every history: not sectionPlacedByReplay) — main's section of
    // twelve reads in section_snapshot.c; one placed by replay has its own runs at each history (and makeEvent
    // returns no event of it).
    bool onlyReads = !cas && (!e->section || !sectionPlacedByReplay(*e));
    for (size_t j = 0; j < accesses && onlyReads; ++j)
        onlyReads = e->accesses[j].res.kind() == ResKind::Memory &&
                    (e->accesses[j].mode == Mode::Read || placeRanges_[j + 1] - placeRanges_[j] == 1);
    // (Cross-checked after the walk: the walk first, with every event it makes listed.)
    if (onlyReads && !crossCheck_ && singleWriterPlacements(*e, nullptr)) return;
    std::vector<const UEvent*>& walkMade = placeWalkMade_;
    walkMade.clear();
    std::vector<uint32_t>& covered = placeCovered_;
    covered.clear();
    constexpr size_t kMaxCovered = 64; // placed placements remembered per walk
    auto isCovered = [&](size_t upTo) { // idx[0..upTo] with any options below: every one made already
        for (size_t b = 0; b < covered.size(); b += accesses) {
            bool all = true;
            for (size_t j = 0; j < accesses && all; ++j)
                all = j <= upTo ? covered[b + j] <= idx[j] : covered[b + j] == 0;
            if (all) return true;
        }
        return false;
    };
    size_t i = 0;
    for (;;) {
        const size_t options = placeRanges_[i + 1] - placeRanges_[i];
        if (idx[i] == options) { // level i is done: back to the level above, its next option
            if (i == 0) break;
            --i;
            anchors.resize(marks[i]);
            ++idx[i];
            continue;
        }
        // (Cross-checked: nothing is skipped, and each combination it would skip must make no new event.)
        if (!crossCheck_ && !covered.empty() && isCovered(i)) {
            ++placementsCut_;
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
            if (moved) {
                const bool wouldCut = crossCheck_ && !covered.empty() && isCovered(i);
                const uint64_t allocated = es_.allocated();
                const UEvent* p = makeEvent(*e, anchors, {}, choice);
                if (wouldCut) crossChecked(readCutChecks_, es_.allocated() == allocated);
                if (onlyReads && p && p != e && p->placed && covered.size() < kMaxCovered * accesses)
                    covered.insert(covered.end(), idx.begin(), idx.end());
                if (crossCheck_ && p && p != e) walkMade.push_back(p);
            }
            if (footprintGrew_ || unsupported_) return;
        }
        anchors.resize(marks[i]);
        ++idx[i];
    }
    if (!crossCheck_ || !onlyReads) return;
    // The single-writer enumeration must name the events the walk made, and make none the walk did not.
    std::vector<const UEvent*> fast;
    const uint64_t allocated = es_.allocated();
    if (!singleWriterPlacements(*e, &fast) || footprintGrew_ || unsupported_) return;
    auto asSet = [](std::vector<const UEvent*>& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    asSet(walkMade);
    asSet(fast);
    crossChecked(singleWriterChecks_, es_.allocated() == allocated && fast == walkMade);
}

// earlierPlacements' walk for a read of several words (onlyReads there) whose options past the history every
// placement keeps ([pt(e)] and the base causes) are all writes of one thread u — strlen of a string u lengthens, a
// section reading words u updates. All of them lie in [e], where u's events form a chain (u's program order), and so
// does every write of those words in the history of a placement: one of u's at an option, or a write the history of
// every placement holds. The history of a combination is then [pt, base causes, x] for its latest anchor x, and the
// write it puts last on word j is the latest of j's options that is not after x in u's order (or j's last option,
// the write every placement's history holds). So the consistent combinations are one per x — the one whose options
// name x on some word — and one with no anchor of u: in u's order from the latest x, each word's option only moves
// up its chain, and the combinations come in the walk's (lexicographic) order without a consistency check (the
// walk's treeMaxIn per level and option: ~290 calls per placement of strlen_growing.c's strlen). As in the walk, a
// placement met whose own earlier placements are made has made all that follow (each word's option at or above
// it). False: the options are not of that shape (the walk places them). `made`: list every event placed, with no
// early stop (the cross-check).
bool QporExplorer::singleWriterPlacements(const UEvent& e, std::vector<const UEvent*>* made) {
    const size_t accesses = placeRanges_.size() - 1;
    ThreadId u = model::kNoThread;
    std::vector<UEvent*>& xs = placeWriters_;
    xs.clear();
    for (size_t j = 0; j < accesses; ++j) {
        const uint32_t first = placeRanges_[j], last = placeRanges_[j + 1] - 1;
        for (uint32_t k = first; k <= last; ++k) {
            const PlacementOption& o = placeOpts_[k];
            if (k == last) { // (a level's only option is its last) in every placement's history
                for (uint32_t a = 0; a < o.count; ++a)
                    if (UEvent* x = placeAnchors_[o.first + a]; x && !isForced(e, x)) return false;
                continue;
            }
            UEvent* x = o.count == 1 ? placeAnchors_[o.first] : nullptr;
            if (!x || (u != model::kNoThread && x->thread != u) || isForced(e, x)) return false;
            u = x->thread;
            xs.push_back(x);
        }
    }
    if (xs.empty()) return true; // nothing moves
    // Latest first (depth in u's tree: u's events in [e] are one chain), each once.
    auto later = [](const UEvent* a, const UEvent* b) { return a->tnode.depth > b->tnode.depth; };
    std::sort(xs.begin(), xs.end(), later);
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    PlaceIndices& idx = placeIdx_;
    idx.assign(accesses, 0);
    PlaceEvents& anchors = placeCombo_;
    auto place = [&]() { // the combination idx; true: go on
        anchors.clear();
        bool moved = false;
        for (size_t j = 0; j < accesses; ++j) {
            moved = moved || idx[j] != 0;
            const PlacementOption& o = placeOpts_[placeRanges_[j] + idx[j]];
            for (uint32_t a = 0; a < o.count; ++a) {
                UEvent* x = placeAnchors_[o.first + a];
                if (x && std::find(anchors.begin(), anchors.end(), x) == anchors.end()) anchors.push_back(x);
            }
        }
        if (!moved) return true; // e itself
        const UEvent* p = makeEvent(e, anchors, {}, -1);
        if (footprintGrew_ || unsupported_) return false;
        if (made) {
            if (p && p != &e) made->push_back(p);
            return true;
        }
        if (p && p != &e && p->placed) { // its walk made every combination that follows
            ++placementsCut_;
            return false;
        }
        return true;
    };
    for (const UEvent* x : xs) {
        // Some word's option is x; else this combination's latest anchor is an earlier write of u, whose turn
        // comes further on.
        bool named = false;
        for (size_t j = 0; j < accesses; ++j) {
            const uint32_t first = placeRanges_[j], last = placeRanges_[j + 1] - 1;
            auto at = [&] { return placeAnchors_[placeOpts_[first + idx[j]].first]; }; // (not the last option)
            while (first + idx[j] < last && at()->tnode.depth > x->tnode.depth) ++idx[j];
            named = named || (first + idx[j] < last && at() == x);
        }
        if (named && !place()) return true;
    }
    for (size_t j = 0; j < accesses; ++j) idx[j] = placeRanges_[j + 1] - 1 - placeRanges_[j];
    place();
    return true;
}

void QporExplorer::readsFromNewWrite(UEvent* w) {
    // A read of several of w's words (an atomic section, a string function) is placed after w once.
    PlaceEvents& done = placePreds_;
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
// beside a write of x, missed the run that writes x after it: tests/unit/QporSectionsTest.cpp.) The walk makes only
// the placements whose history holds n (siblingsAfter_, makeEvent), and none at all after a read of what a read when
// the runs there cannot differ (siblingsFixedBy).
void QporExplorer::siblingsAfterNewAccess(const UEvent* n) {
    // The events of C are the stack's, the top's (n) last.
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
        UEvent* a = stack_[i].e;
        if (!a || !hasRunAccesses(*a) || es_.leq(a, n)) continue;
        const std::vector<Access>& footprint = sections_->at(a->label.loc).footprint;
        bool leftAlone = false; // n touches a word of the footprint a leaves alone
        std::vector<Resource>& fixed = siblingFixedScratch_; // ... or reads one a reads, from the same write
        fixed.clear();
        for (const Access& x : n->accesses) {
            if (std::none_of(footprint.begin(), footprint.end(), [&](const Access& f) { return f.res == x.res; }))
                continue;
            const Access* own = a->access(x.res);
            if (!own) leftAlone = true;
            else if (own->mode == Mode::Read && x.mode == Mode::Read && own->parent == x.parent) fixed.push_back(x.res);
        }
        if (!leftAlone && fixed.empty()) continue;
        const bool unchanged = !leftAlone && siblingsFixedBy(*a, fixed);
        if (unchanged && !crossCheck_) {
            ++siblingWalksSkipped_;
            continue;
        }
        const uint64_t allocated = es_.allocated();
        const size_t inU = es_.uSize();
        UEvent like;
        footprintLike(*a, like);
        std::vector<UEvent*> parents;
        for (const Access& x : like.accesses)
            if (x.parent) parents.push_back(x.parent);
        siblingsOf_ = a;
        siblingsAfter_ = n;
        makeEvent(like, parents, {});
        if (!footprintGrew_ && !unsupported_) earlierPlacements(&like);
        siblingsOf_ = siblingsAfter_ = nullptr;
        if (unchanged) // the walk siblingsFixedBy spares must make no event nor bring one back into U
            crossChecked(siblingSkipChecks_, es_.allocated() == allocated && es_.uSize() == inU && !footprintGrew_);
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
