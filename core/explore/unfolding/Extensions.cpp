// ex(C) = en(C) ∪ cex(C) (Alg. 1, line 5). en(C) comes from the executor: one event per enabled thread and
// outcome. cex(C) is computed incrementally as C grows: when e joins C, the conflicting extensions it creates
// are (1) e's own action placed earlier in one of its resource trees — cexp (Alg. 1, lines 14-25) generalised
// from mutexes to condition variables and memory words — and (2) when e writes a word, every read of that word
// in C placed after e (it then reads e's value). DESIGN.md argues why nothing else is needed.
#include <algorithm>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

std::vector<Access> QporExplorer::accessesFor(const model::Event& l) const {
    std::vector<Access> out;
    auto add = [&](Resource r, Mode m) {
        for (Access& a : out)
            if (a.res == r) {
                if (m != Mode::Read) a.mode = m; // read and written: one Write access (it reads its parent)
                return;
            }
        Access a;
        a.res = r;
        a.mode = m;
        out.push_back(std::move(a));
    };
    auto words = [&](uint64_t addr, uint64_t size, Mode m) {
        for (uint64_t w : wordsOf(addr, size)) add({w, ResKind::Memory}, m);
    };
    switch (l.kind) {
    case EventKind::Read:
        words(l.addr, l.size, Mode::Read);
        if (l.size2) words(l.addr2, l.size2, Mode::Read);
        break;
    case EventKind::Write:
    case EventKind::Free:
    case EventKind::Rmw: words(l.addr, l.size, Mode::Write); break;
    case EventKind::Copy:
        words(l.addr2, l.size2, Mode::Read);
        words(l.addr, l.size, Mode::Write);
        break;
    case EventKind::Lock:
    case EventKind::TryLock:
    case EventKind::Unlock: add({l.addr, ResKind::Mutex}, Mode::Sync); break;
    case EventKind::CondWait:
        add({l.addr, ResKind::Cond}, Mode::Sync);
        add({l.addr2, ResKind::Mutex}, Mode::Sync);
        break;
    case EventKind::CondSignal:
    case EventKind::CondBroadcast: add({l.addr, ResKind::Cond}, Mode::Sync); break;
    default: break;
    }
    return out;
}

UEvent* QporExplorer::eventFor(ThreadId t, uint32_t choice, const model::Event& pending) {
    EventSpec spec;
    spec.thread = t;
    spec.choice = choice;
    spec.label = pending;
    spec.label.tid = t;
    spec.pt = F_.threadMax(t);
    if (!spec.pt && t < createOf_.size() && createOf_[t]) spec.causes.push_back(createOf_[t]);
    if (pending.kind == EventKind::ThreadJoin) {
        ThreadId child = ThreadId(pending.value);
        UEvent* last = F_.threadMax(child);
        if (!last && child < createOf_.size()) last = createOf_[child];
        if (last) spec.causes.push_back(last);
    }
    if (pending.kind == EventKind::Lock && spec.pt && spec.pt->label.kind == EventKind::CondWait && t < wakers_.size() &&
        wakers_[t])
        spec.causes.push_back(wakers_[t]); // the re-acquire after a wait follows the signal that woke it
    spec.baseCauses = uint32_t(spec.causes.size());
    spec.accesses = accessesFor(pending);
    for (Access& a : spec.accesses) {
        a.parent = F_.treeMax(a.res);
        if (a.mode == Mode::Write) {
            // The reads of the word's current value by other threads precede this write (they are dependent).
            F_.forEachLastRead(a.res, [&](ThreadId reader, UEvent* r) {
                if (reader != t && r->access(a.res)->parent == a.parent) spec.causes.push_back(r);
            });
        }
    }
    return es_.findOrCreate(spec);
}

std::vector<UEvent*> QporExplorer::enabledEvents() {
    std::vector<UEvent*> en;
    if (ex_.exclusiveThread() != model::kNoThread) {
        unsupported_ = "SV-COMP atomic sections are not supported by qpor yet (use --algo=dfs)";
        return en;
    }
    for (ThreadId t = 0; t < ex_.numThreads(); ++t) {
        if (!ex_.enabled(t)) continue;
        const exec::ThreadView& v = ex_.thread(t);
        for (uint32_t c = 0; c < v.choices; ++c) {
            UEvent* e = eventFor(t, c, v.pending);
            es_.addToU(e);
            en.push_back(e);
        }
    }
    // A thread blocked on a mutex has no event at C, but its acquire placed before the operations that made
    // the mutex busy is a conflicting extension of C (ABBA: the second thread's acquire of A before the first
    // thread's). cexp (Alg. 1) only walks acquires in C; the pending one needs the same walk.
    for (ThreadId t = 0; t < ex_.numThreads(); ++t)
        if (ex_.thread(t).state == exec::ThreadState::BlockedLock) blockedPlacements(t);
    return en;
}

void QporExplorer::blockedPlacements(ThreadId t) {
    const model::Event& pending = ex_.thread(t).pending;
    // The event the acquire would be if the mutex were free now: a description only, never registered.
    UEvent like;
    like.thread = t;
    like.label = pending;
    like.label.tid = t;
    like.pt = F_.threadMax(t);
    if (!like.pt && t < createOf_.size() && createOf_[t]) like.causes.push_back(createOf_[t]);
    if (like.pt && like.pt->label.kind == EventKind::CondWait && t < wakers_.size() && wakers_[t])
        like.causes.push_back(wakers_[t]);
    like.baseCauses = uint32_t(like.causes.size());
    Resource res{pending.addr, ResKind::Mutex};
    for (UEvent* child = F_.treeMax(res); child;) {
        bool forced = es_.leq(child, like.pt);
        for (UEvent* c : like.causes) forced = forced || es_.leq(child, c);
        if (forced) break;
        UEvent* earlier = ownerOf(child->access(res)->node.parent);
        if (mutexFreeAfter(earlier)) makeEvent(like, {earlier}, {});
        child = earlier;
    }
}

// An event with `like`'s action whose history is [pt(like)] ∪ its base causes ∪ [anchors] ∪ [readers]; the
// resource parents follow from that history. Null when that union is not a configuration.
UEvent* QporExplorer::makeEvent(const UEvent& like, std::vector<UEvent*> anchors, std::vector<UEvent*> readers,
                                int choice) {
    std::vector<UEvent*> base;
    if (like.pt) base.push_back(like.pt);
    for (uint32_t i = 0; i < like.baseCauses; ++i) base.push_back(like.causes[i]);
    for (UEvent* a : anchors)
        if (a) base.push_back(a);
    for (UEvent* r : readers) base.push_back(r);
    for (size_t i = 0; i < base.size(); ++i)
        for (size_t j = i + 1; j < base.size(); ++j)
            if (es_.conflict(base[i], base[j])) return nullptr;
    Summary s = es_.mergeSummaries(base);
    EventSpec spec;
    spec.thread = like.thread;
    spec.choice = choice >= 0 ? uint32_t(choice) : like.choice;
    spec.label = like.label;
    spec.pt = like.pt;
    spec.causes.assign(like.causes.begin(), like.causes.begin() + like.baseCauses);
    spec.baseCauses = like.baseCauses;
    for (UEvent* a : anchors)
        if (a) spec.causes.push_back(a);
    spec.causes.insert(spec.causes.end(), readers.begin(), readers.end());
    spec.accesses = accessesFor(like.label);
    for (Access& a : spec.accesses) {
        const SummaryEntry* m = s.find(a.res, model::kNoThread);
        a.parent = m ? m->ev : nullptr;
    }
    bool created = false;
    UEvent* e = es_.findOrCreate(spec, &created);
    if (e == &like) return nullptr;
    if (created) ++cexEvents_;
    es_.addToU(e);
    return e;
}

bool QporExplorer::mutexFreeAfter(const UEvent* n) const {
    // Walk up the mutex tree from n: the lock state after the last operation of the chain.
    while (n) {
        switch (n->label.kind) {
        case EventKind::Unlock:
        case EventKind::CondWait: return true;
        case EventKind::Lock: return false;
        case EventKind::TryLock:
            if (n->label.value) return false; // acquired
            break;                            // failed: the state before it
        default: return true;
        }
        const Access* a = nullptr;
        for (const Access& x : n->accesses)
            if (x.res.kind == ResKind::Mutex) a = &x;
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
        if (x->label.kind == EventKind::CondWait) waiting.push_back(x->thread);
        else if (x->label.kind == EventKind::CondBroadcast) waiting.clear();
        else if (x->label.kind == EventKind::CondSignal && x->label.value) {
            auto w = std::find(waiting.begin(), waiting.end(), ThreadId(x->label.value - 1));
            if (w != waiting.end()) waiting.erase(w);
        }
    }
    return uint32_t(waiting.size());
}

namespace {
// The reads of `word` in C that read from `w` by threads other than `self`, grouped by thread in program order.
std::map<ThreadId, std::vector<UEvent*>> readersOf(const Frontier& F, const Resource& word, const UEvent* w,
                                                   ThreadId self) {
    std::map<ThreadId, std::vector<UEvent*>> out;
    for (UEvent* r : F.readsOf(word))
        if (r->thread != self && r->access(word)->parent == w) out[r->thread].push_back(r);
    return out;
}

// Every choice of a prefix of each thread's reads: calls f(lastReadOfEachChosenPrefix). At most `cap` choices.
template <class F> void forEachReaderPrefix(const std::map<ThreadId, std::vector<UEvent*>>& readers, size_t cap, F f) {
    std::vector<const std::vector<UEvent*>*> lists;
    for (auto& [t, v] : readers) lists.push_back(&v);
    std::vector<size_t> len(lists.size(), 0);
    for (size_t n = 0; n < cap; ++n) {
        std::vector<UEvent*> chosen;
        for (size_t i = 0; i < lists.size(); ++i)
            if (len[i]) chosen.push_back((*lists[i])[len[i] - 1]);
        if (!f(chosen, len)) return;
        size_t i = 0;
        while (i < lists.size() && len[i] == lists[i]->size()) len[i++] = 0;
        if (i == lists.size()) return;
        len[i]++;
    }
}
} // namespace

void QporExplorer::earlierPlacements(UEvent* e) {
    const Access* moving = nullptr;
    for (const Access& a : e->accesses)
        if (a.mode != Mode::Read && !moving && !(e->label.kind == EventKind::CondWait && a.res.kind == ResKind::Mutex))
            moving = &a;
    // Reads: earlier writes of the word's chain (for a multi-word read, the first word; the others follow).
    if (!moving) {
        for (const Access& a : e->accesses) {
            if (a.mode != Mode::Read || a.res.kind != ResKind::Memory) continue;
            for (UEvent* child = a.parent; child;) {
                bool forced = es_.leq(child, e->pt);
                for (uint32_t i = 0; i < e->baseCauses && !forced; ++i) forced = es_.leq(child, e->causes[i]);
                if (forced) break;
                UEvent* earlier = ownerOf(child->access(a.res)->node.parent);
                makeEvent(*e, {earlier}, {});
                child = earlier;
            }
            break;
        }
        return;
    }
    const Resource res = moving->res;
    bool isWrite = moving->mode == Mode::Write;
    bool acquires = res.kind == ResKind::Mutex && e->label.kind == EventKind::Lock;
    auto place = [&](UEvent* after) {
        if (acquires && !mutexFreeAfter(after)) return;
        if (e->label.kind == EventKind::CondSignal) {
            // Which waiter a signal wakes is its outcome: one event per waiter present at that point.
            uint32_t n = std::max<uint32_t>(1, waitersAt(res, after));
            for (uint32_t c = 0; c < n; ++c) makeEvent(*e, {after}, {}, int(c));
            return;
        }
        if (isWrite) {
            auto readers = readersOf(F_, res, after, e->thread);
            forEachReaderPrefix(readers, 64, [&](const std::vector<UEvent*>& chosen, const std::vector<size_t>&) {
                makeEvent(*e, {after}, chosen);
                return true;
            });
        } else {
            makeEvent(*e, {after}, {});
        }
    };
    for (UEvent* child = moving->parent; child;) {
        bool forced = es_.leq(child, e->pt);
        for (uint32_t i = 0; i < e->baseCauses && !forced; ++i) forced = es_.leq(child, e->causes[i]);
        if (forced) break;
        UEvent* earlier = ownerOf(child->access(res)->node.parent);
        place(earlier);
        child = earlier;
    }
    // A write right after the same write, but before some of the reads that precede it now.
    if (isWrite) {
        auto readers = readersOf(F_, res, moving->parent, e->thread);
        forEachReaderPrefix(readers, 64, [&](const std::vector<UEvent*>& chosen, const std::vector<size_t>& len) {
            bool all = true;
            size_t i = 0;
            for (auto& [t, v] : readers) all &= len[i++] == v.size();
            if (!all) makeEvent(*e, {moving->parent}, chosen);
            return true;
        });
    }
}

void QporExplorer::readsFromNewWrite(UEvent* w) {
    for (const Access& a : w->accesses) {
        if (a.mode != Mode::Write || a.res.kind != ResKind::Memory) continue;
        std::vector<UEvent*> reads = F_.readsOf(a.res); // copy: makeEvent does not touch F, but stay safe
        for (UEvent* r : reads) {
            if (r->thread == w->thread || es_.leq(r, w)) continue;
            makeEvent(*r, {w}, {});
        }
    }
}

void QporExplorer::addConflictingExtensions(UEvent* e) {
    auto t0 = std::chrono::steady_clock::now();
    earlierPlacements(e);
    readsFromNewWrite(e);
    msCex_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace skein::explore::unfolding
