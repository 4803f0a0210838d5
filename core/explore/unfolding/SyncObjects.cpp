// Semaphores, reader-writer locks and barriers in the unfolding (DESIGN.md, "Semaphores, reader-writer locks and
// barriers"): their operations are reads and writes of the object's words (accessesInto), and what a word lacks is
// here — whether an operation is enabled at a history (a wait where the count is above 0, a lock where it is free
// enough, a departure where its round is complete), derived from the executor's state at C and the operations of C
// outside that history, and the placements of a blocked one.
#include <algorithm>
#include <optional>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

bool QporExplorer::syncEnabledAt(const UEvent& like, const EventSpec& spec, std::span<UEvent* const> preds) {
    const model::Event& l = like.label;
    if (l.kind == EventKind::SemWait) return syncCountAt(spec.accesses[0].res, l.addr, preds) > 0;
    if (l.kind == EventKind::BarrierLeave) {
        // A departure reads its round's word; it is enabled once the round is complete: where the last write of the
        // word in the history is the arrival of that round that made it so (the rounds before it are in the history:
        // the thread's own arrival followed its departure from the round before).
        const UEvent* p = spec.accesses[0].parent;
        if (p && (p->section || p->label.kind != EventKind::BarrierArrive)) {
            unsupported_ = kSyncWritten;
            return false;
        }
        return p && p->label.value2 == l.value2 && p->label.value >= ex_.syncValue(l.addr); // arrivals ≥ its size
    }
    if (l.kind != EventKind::RwLock) return true; // posts, tries, sem_getvalue, unlocks, arrivals: always enabled
    // Whether a writer holds the lock after the write-mode operation p (its parent: the last one in the history);
    // a try that failed left it as it was.
    UEvent* p = spec.accesses[0].parent;
    const Resource& res = spec.accesses[0].res;
    while (p && !p->section && p->label.kind == EventKind::RwTryLock && p->label.value2 == 1 && !p->label.value)
        p = ownerOf(p->access(res)->node.parent);
    if (p && (p->section || !p->label.isRwLockOp())) {
        unsupported_ = kSyncWritten;
        return false;
    }
    const bool writerHolds = p && p->label.kind != EventKind::RwUnlock;
    if (writerHolds) return false;
    return l.value2 != 1 || syncCountAt(res, l.addr, preds) == 0; // a writer also waits for every reader to leave
}

int64_t QporExplorer::syncCountAt(const Resource& res, uint64_t addr, std::span<UEvent* const> preds) {
    // Every history asked about is a subset of C (its events are C's, with their histories), and the count at C is
    // the executor's: an operation of C outside the history is undone. (The initialisation precedes every thread, so
    // every history holds it: Executor::kSyncInitLate.)
    auto inHistory = [&](const UEvent* x) {
        return std::any_of(preds.begin(), preds.end(), [&](const UEvent* p) { return es_.leq(x, p); });
    };
    // What an operation of C did to the count (the readers); nullopt for a change it does not tell.
    auto delta = [](const UEvent* x) -> std::optional<int64_t> {
        if (x->section) return std::nullopt; // a section's label is only its first step
        const model::Event& l = x->label;
        switch (l.kind) {
        case EventKind::SemWait: return -1;
        case EventKind::SemTryWait: return -int64_t(l.value); // 1 when it took a unit
        case EventKind::SemPost: return 1;
        case EventKind::SemGetValue: return 0;
        case EventKind::RwLock: return l.value2 == 1 ? 0 : 1;
        case EventKind::RwTryLock: return l.value2 == 1 ? 0 : int64_t(l.value); // 1 when it took the lock
        case EventKind::RwUnlock: return l.value2 == 1 ? 0 : -1;
        default: return std::nullopt;
        }
    };
    int64_t count = ex_.syncValue(addr);
    // The word's writes in C are a chain: once one is in the history, so is everything below it.
    for (UEvent* w = F_.treeMax(res); w && !inHistory(w); w = ownerOf(w->access(res)->node.parent)) {
        const auto d = delta(w);
        if (!d) {
            unsupported_ = kSyncWritten;
            return 0;
        }
        count -= *d;
    }
    for (UEvent* r : F_.readsOf(res)) {
        if (r->section) {
            unsupported_ = kSyncWritten;
            return 0;
        }
        if (inHistory(r)) continue;
        count -= delta(r).value_or(0); // a plain read of the word changes nothing
    }
    return count;
}

bool QporExplorer::semWaitCanFollow(const UEvent& e, const Resource& res, UEvent* after, bool same) {
    // Every placement of e after `after` has a history within [pt(e)] ∪ its base causes ∪ [after] ∪ the posts of C
    // that read `after` (with their histories): the anchors and the optional readers makeEvent adds are among those
    // posts. Those histories hold no other operation of the word — a post that reads `after` precedes the write
    // after it, and a write below `after` is in [after] — so growing a history within that largest one adds posts
    // only (a reader that is a section sets unsupported_ at any history), and the count there bounds every
    // placement's. At e's own place, the walk offers only histories that leave out at least one of those posts
    // (the one with all of them is e's), so the bound is one less.
    std::vector<UEvent*>& preds = semPreds_;
    preds.clear();
    if (e.pt) preds.push_back(e.pt);
    for (uint32_t i = 0; i < e.baseCauses; ++i) preds.push_back(e.causes[i]);
    if (after) preds.push_back(after);
    for (UEvent* r : F_.readsOf(res))
        if (r->access(res)->parent == after) preds.push_back(r);
    return syncCountAt(res, e.label.addr, preds) > (same ? 1 : 0);
}

// A thread blocked at C on a semaphore whose count is 0, or on a lock held by others, has no event, but its wait
// (lock) placed before the waits and tries that took the units (the locks that hold it) is a conflicting extension
// of C — the counterpart of a blocked mutex acquire. It is the walk of an executed operation (earlierPlacements) from
// the description of this one at C, whose own place, like every place where it is not enabled, makeEvent finds no
// event at.
void QporExplorer::blockedSyncPlacements(ThreadId t, const model::Event& pending) {
    if (ex_.inAtomicSection(t)) { // its runs would change the state: not modelled
        unsupported_ = kSyncWritten;
        return;
    }
    // The placements depend on the thread's history, the word's writes (a chain ending at its maximum) and its reads
    // in C — the count at C follows from those — and stay in U until a pruning drops events (which clears this): a
    // thread blocked while others run on is walked again only when one of those changed.
    UEvent* pt = F_.threadMax(t);
    std::vector<UEvent*>& causes = pendingCausesScratch_; // no allocation while the walk is known
    pendingCausesInto(t, pt, causes);
    if (blockedWalks_.size() <= t) blockedWalks_.resize(t + 1);
    BlockedWalk& w = blockedWalks_[t];
    if (w.valid && w.pt == pt && w.causes == causes && w.mutex == pending.addr && w.word.key &&
        w.top == F_.treeMax(w.word) && std::ranges::equal(w.reads, F_.readsOf(w.word)))
        return;
    std::vector<Access>& accesses = blockedAccessesScratch_; // the description below only when there is a walk
    accessesInto(pending, accesses);
    if (accesses.size() != 1) return; // (an object's operation is one access of its word)
    const Resource res = accesses[0].res;
    UEvent* parent = F_.treeMax(res);
    w.valid = true, w.pt = pt, w.causes = causes, w.mutex = pending.addr, w.top = parent, w.word = res;
    const std::span<UEvent* const> reads = F_.readsOf(res);
    w.reads.assign(reads.begin(), reads.end());
    // A wait whose semaphore's every wait and try in C is in its history already (the word's last write is, or
    // there is none) has no placement: each one's history then holds every operation of C on the word but some
    // posts, and the count at C is 0 (it is blocked). semaphore_buffer's consumer, blocked on `full` before the
    // producer's post, is this case at three of its configurations (bench/README.md, thirtieth session). (Asked from
    // the parts of the description made below — its base causes are all of `causes` —: making it costs more.)
    if (pending.kind == EventKind::SemWait && (!parent || isForced(pt, causes, parent))) return;
    UEvent like;
    describePending(t, pending, pt, causes, like);
    like.accesses[0].parent = parent;
    earlierPlacements(&like);
}

} // namespace skein::explore::unfolding
