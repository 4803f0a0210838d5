#include "core/explore/unfolding/EventStructure.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

namespace skein::explore::unfolding {

namespace {
const SummaryEntry* findIn(std::span<const SummaryEntry> all, const SummaryEntry& key) {
    auto it = std::lower_bound(all.begin(), all.end(), key);
    return it != all.end() && it->sameKey(key) ? &*it : nullptr;
}
} // namespace

const SummaryEntry* Summary::find(const Resource& r, ThreadId reader) const {
    SummaryEntry key{r, reader, nullptr};
    if (const SummaryEntry* mine = findIn(own(), key)) return mine;
    const Summary* b = base();
    return b ? findIn(b->own(), key) : nullptr;
}

const Access* UEvent::accessSorted(const Resource& r) const {
    auto it = std::lower_bound(accesses.begin(), accesses.end(), r,
                               [](const Access& a, const Resource& x) { return a.res < x; });
    return it != accesses.end() && it->res == r ? &*it : nullptr;
}

// ---- Frontier ------------------------------------------------------------------------------------------------

void Frontier::push(UEvent* e) {
    undoMarks_.push_back(undo_.size());
    e->cPos = uint32_t(events_.size());
    events_.push_back(e);
    e->inC = true;
    if (tmax_.size() <= e->thread) tmax_.resize(e->thread + 1, nullptr);
    undo_.push_back({Undo::Tmax, e->thread, nullptr, tmax_[e->thread]});
    tmax_[e->thread] = e;
    for (const Access& a : e->accesses) {
        Word& w = wordFor(a.res);
        if (a.mode == Mode::Read) {
            if (w.lastRead.size() <= e->thread) w.lastRead.resize(e->thread + 1, nullptr);
            undo_.push_back({Undo::LastRead, e->thread, &w, w.lastRead[e->thread]});
            w.lastRead[e->thread] = e;
            w.reads.push_back(e);
            undo_.push_back({Undo::Read, 0, &w, nullptr});
        } else {
            undo_.push_back({Undo::Max, 0, &w, w.max});
            w.max = e;
        }
    }
}

void Frontier::pop() {
    size_t mark = undoMarks_.back();
    undoMarks_.pop_back();
    while (undo_.size() > mark) {
        Undo u = undo_.back();
        undo_.pop_back();
        switch (u.kind) {
        case Undo::Tmax: tmax_[u.t] = u.old; break;
        case Undo::Max: u.word->max = u.old; break;
        case Undo::LastRead: u.word->lastRead[u.t] = u.old; break; // lastRead only grows: index t is still there
        case Undo::Read: u.word->reads.pop_back(); break;
        }
    }
    events_.back()->inC = false;
    events_.pop_back();
}

UEvent* Frontier::treeMax(const Resource& r) const {
    const Word* w = word(r);
    return w ? w->max : nullptr;
}

UEvent* Frontier::lastRead(const Resource& r, ThreadId t) const {
    const Word* w = word(r);
    return w && t < w->lastRead.size() ? w->lastRead[t] : nullptr;
}

std::span<UEvent* const> Frontier::readsOf(const Resource& r) const {
    const Word* w = word(r);
    return w ? std::span<UEvent* const>(w->reads.data(), w->reads.size()) : std::span<UEvent* const>();
}

bool Frontier::contains(const UEvent* e) const { return e->inC; }

// ---- Causality and conflict -----------------------------------------------------------------------------------

namespace {
const TreeNode* nodeIn(const UEvent* e, const Resource& r) {
    if (!e) return nullptr;
    const Access* a = e->access(r);
    return a && a->mode != Mode::Read ? &a->node : nullptr;
}
} // namespace

// a ≤ b for a created before b: a is in [b] iff it is an ancestor of b's maximal event of a's thread (Def. 7).
bool EventStructure::leqByTree(const UEvent* a, const UEvent* b) const {
    const UEvent* m = b->summary.threadMax(a->thread);
    return m && isAncestorOrSelf(&a->tnode, &m->tnode, step_);
}

// The memory part of Theorem 5.1 generalised: a's last reads of a word must not be overtaken by a write of b's
// chain that a does not know about. For a read r of word x by thread j reading from w, and b's last write to x
// w_b with w a strict ancestor of w_b in x's write tree, the write right after w on the way to w_b must
// causally follow r; otherwise r and that write are dependent and unordered: conflict.
bool EventStructure::memoryConflict(const UEvent* a, const Summary& b, const UEvent*) const {
    for (Summary::Cursor cur = summaryOf(a).entries(); !cur.done(); cur.next()) {
        const SummaryEntry& en = *cur;
        if (en.res.kind() != ResKind::Memory || en.reader == model::kNoThread) continue;
        const SummaryEntry* wb = b.find(en.res, model::kNoThread);
        if (!wb) continue;
        const UEvent* r = en.ev;
        const Access* ra = r->access(en.res);
        const UEvent* rf = ra ? ra->parent : nullptr;
        if (rf == wb->ev) continue;
        const TreeNode* whi = nodeIn(wb->ev, en.res);
        const TreeNode* rfNode = nodeIn(rf, en.res);
        if (!isAncestorOrSelf(rfNode, whi, step_)) continue; // b's chain is shorter, or branched (tree check)
        const UEvent* next = ownerOf(ancestorAtDepth(whi, rfNode ? rfNode->depth + 1 : 1, step_));
        if (!leq(r, next)) return true;
    }
    return false;
}

bool EventStructure::conflict(const UEvent* a, const UEvent* b) const {
    if (a == b || leq(a, b) || leq(b, a)) return false;
    const std::span<UEvent* const> ta = a->summary.tmax(), tb = b->summary.tmax();
    size_t n = std::min(ta.size(), tb.size());
    for (size_t t = 0; t < n; ++t) {
        const UEvent* x = ta[t];
        const UEvent* y = tb[t];
        if (x && y && !ordered(&x->tnode, &y->tnode, step_)) return true;
    }
    // Resource trees: merge the two sorted entry lists. (Both made first: making b's does not touch a's.)
    const Summary& sa = summaryOf(a);
    const Summary& sb = summaryOf(b);
    Summary::Cursor ia = sa.entries(), ib = sb.entries();
    while (!ia.done() && !ib.done()) {
        if (*ia < *ib) ia.next();
        else if (*ib < *ia) ib.next();
        else {
            if (ia->reader == model::kNoThread && ia->ev != ib->ev &&
                !ordered(nodeIn(ia->ev, ia->res), nodeIn(ib->ev, ib->res), step_))
                return true;
            ia.next();
            ib.next();
        }
    }
    return memoryConflict(a, sb, b) || memoryConflict(b, sa, a);
}

bool EventStructure::conflictsWith(const UEvent* e, const Frontier& c) const {
    if (e->inC) return false;
    // A conflict with C is a conflict with some event w of C, and it lasts as long as w stays in C: remembered as
    // w's position in C and its id (ids are never reused), so a candidate the comb meets again is refuted at once.
    if (e->conflictId && e->conflictPos < c.size() && c.events()[e->conflictPos]->id == e->conflictId) return true;
    const UEvent* w = conflictWitness(e, c);
    if (!w) return false;
    e->conflictPos = w->cPos;
    e->conflictId = w->id;
    return true;
}

// For two unordered nodes of one tree, `cNode` on C's chain: the node of C's chain just below their last common
// ancestor — the earliest event of C in conflict with the other branch, hence the witness that stays in C longest.
const UEvent* EventStructure::branchWitness(const TreeNode* other, const TreeNode* cNode) const {
    uint32_t lo = 0, hi = std::min(other->depth, cNode->depth); // common ancestor at depth lo (the root: 0)
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (ancestorAtDepth(other, mid, step_) == ancestorAtDepth(cNode, mid, step_)) lo = mid;
        else hi = mid - 1;
    }
    return ownerOf(ancestorAtDepth(cNode, lo + 1, step_));
}

const UEvent* EventStructure::conflictWitness(const UEvent* e, const Frontier& c) const {
    // Constant-time refutations first (most of the comb's candidates fail here): e ∉ C, so if C went on past one
    // of e's immediate predecessors in its tree (the thread's, or a resource's: the write a read reads, the node a
    // write or a lock follows), the event after it in C and e (or e's history) are siblings there.
    const UEvent* m = c.threadMax(e->thread);
    if (e->pt ? e->pt->inC && e->pt != m : m != nullptr)
        return ownerOf(ancestorAtDepth(&m->tnode, e->pt ? e->pt->tnode.depth + 1 : 1, step_));
    for (const Access& a : e->accesses)
        if ((!a.parent || a.parent->inC) && c.treeMax(a.res) != a.parent) {
            const UEvent* y = c.treeMax(a.res);
            const TreeNode* p = nodeIn(a.parent, a.res);
            return ownerOf(ancestorAtDepth(nodeIn(y, a.res), p ? p->depth + 1 : 1, step_));
        }
    if (m && e->pt != m && !isAncestorOrSelf(&m->tnode, &e->tnode, step_))
        return branchWitness(&e->tnode, &m->tnode); // branched further up
    // Fast path, the common case for the comb's candidates: every immediate predecessor of e is in C, so e is an
    // extension of C, and it conflicts with C exactly when C already went past one of its parents (checked above)
    // or a read of the value e overwrites does not precede e.
    bool extension = forEachPredecessor(*e, [&](UEvent* q) { return c.contains(q); });
    if (extension) {
        for (const Access& a : e->accesses) {
            if (a.mode != Mode::Write) continue;
            const UEvent* bad = nullptr;
            c.forEachLastRead(a.res, [&](ThreadId t, UEvent* r) {
                if (!bad && t != e->thread && r->access(a.res)->parent == a.parent && !leq(r, e)) bad = r;
            });
            if (bad) return bad;
        }
        return nullptr;
    }
    // A few events of [e] outside C (a candidate a step or two off C, as in a small exploration): each checked as
    // an extension is above, for the tree parents and read values it has in C — an event of [e] \ C and one of C in
    // conflict have an immediate conflict in their histories (forEachImmediateConflict), and one whose parent there
    // is outside C is found from the event of [e] \ C above it on that tree (DESIGN.md, "Conflict with C"). No
    // summary entries are needed: a small exploration then makes none (use_after_free.c).
    if (const std::optional<const UEvent*> w = witnessOutsideC(e, c)) return *w;
    // A part of [e] that lies in C is consistent with C (C is a configuration): only the maxima outside C need the
    // tree queries — on the comb's candidates, most of the history is in C.
    const std::span<UEvent* const> te = e->summary.tmax();
    for (size_t t = 0; t < te.size(); ++t) {
        const UEvent* x = te[t];
        if (!x || x->inC) continue;
        const UEvent* y = c.threadMax(ThreadId(t));
        if (y && !ordered(&x->tnode, &y->tnode, step_)) return branchWitness(&x->tnode, &y->tnode);
    }
    for (Summary::Cursor cur = summaryOf(e).entries(); !cur.done(); cur.next()) {
        const SummaryEntry& en = *cur;
        if (en.ev->inC) continue;
        if (en.reader == model::kNoThread) {
            const UEvent* y = c.treeMax(en.res);
            if (y && !ordered(nodeIn(en.ev, en.res), nodeIn(y, en.res), step_))
                return branchWitness(nodeIn(en.ev, en.res), nodeIn(y, en.res));
            if (en.res.kind() != ResKind::Memory) continue;
            // C's last reads of the word against e's chain (symmetric to memoryConflict).
            const TreeNode* whi = nodeIn(en.ev, en.res);
            const UEvent* bad = nullptr;
            c.forEachLastRead(en.res, [&](ThreadId, UEvent* r) {
                if (bad) return;
                const UEvent* rf = r->access(en.res)->parent;
                if (rf == en.ev) return;
                const TreeNode* rfNode = nodeIn(rf, en.res);
                if (!isAncestorOrSelf(rfNode, whi, step_)) return;
                const UEvent* next = ownerOf(ancestorAtDepth(whi, rfNode ? rfNode->depth + 1 : 1, step_));
                if (!leq(r, next)) bad = r;
            });
            if (bad) return bad;
        } else if (en.res.kind() == ResKind::Memory) {
            // e's last read against C's chain of the word.
            const UEvent* wc = c.treeMax(en.res);
            if (!wc) continue;
            const UEvent* r = en.ev;
            const UEvent* rf = r->access(en.res)->parent;
            if (rf == wc) continue;
            const TreeNode* whi = nodeIn(wc, en.res);
            const TreeNode* rfNode = nodeIn(rf, en.res);
            if (!isAncestorOrSelf(rfNode, whi, step_)) continue;
            const UEvent* next = ownerOf(ancestorAtDepth(whi, rfNode ? rfNode->depth + 1 : 1, step_));
            if (!leq(r, next)) return next;
        }
    }
    return nullptr;
}

std::optional<const UEvent*> EventStructure::witnessOutsideC(const UEvent* e, const Frontier& c) const {
    constexpr size_t kWalk = 16; // past that, the summaries' tree queries
    auto& todo = walkTodo_;
    auto& outside = walkOutside_;
    todo.assign(1, e);
    outside.clear();
    while (!todo.empty()) {
        const UEvent* x = todo.back();
        todo.pop_back();
        if (x->inC || std::find(outside.begin(), outside.end(), x) != outside.end()) continue;
        if (outside.size() == kWalk) return std::nullopt;
        outside.push_back(x);
        forEachPredecessor(*x, [&](UEvent* p) {
            if (!p->inC) todo.push_back(p);
            return true;
        });
    }
    for (const UEvent* x : outside) {
        // x's thread: C went past its thread predecessor (in C, or x is its thread's first event).
        const UEvent* m = c.threadMax(x->thread);
        if ((!x->pt || x->pt->inC) && (x->pt ? x->pt != m : m != nullptr))
            return ownerOf(ancestorAtDepth(&m->tnode, x->pt ? x->pt->tnode.depth + 1 : 1, step_));
        for (const Access& a : x->accesses) {
            if (a.parent && !a.parent->inC) continue; // checked at the event of [e] \ C above it
            const UEvent* y = c.treeMax(a.res);
            if (y != a.parent) { // C went past the parent: its next node there and x are siblings
                const TreeNode* p = nodeIn(a.parent, a.res);
                return ownerOf(ancestorAtDepth(nodeIn(y, a.res), p ? p->depth + 1 : 1, step_));
            }
            if (a.mode != Mode::Write) continue;
            const UEvent* bad = nullptr; // a read of C of the value x overwrites, not before x
            c.forEachLastRead(a.res, [&](ThreadId t, UEvent* r) {
                if (!bad && t != x->thread && r->access(a.res)->parent == a.parent && !leq(r, x)) bad = r;
            });
            if (bad) return bad;
        }
    }
    return nullptr;
}

// ---- Creation ------------------------------------------------------------------------------------------------

namespace {
// (thread, choice, action, canonical set of maximal predecessors): determines the history, hence the event.
// `preds` are the maximal predecessors, latest first (EventStructure::maximalInto). Events do not keep their key
// (it would cost ~80 bytes each), only its 128-bit fingerprint (EventIndex.h).
void keyInto(std::vector<uint64_t>& key, ThreadId thread, uint32_t choice, const model::Event& label, const UEvent* pt,
             std::span<UEvent* const> preds) {
    key.resize(5);
    key[0] = thread, key[1] = choice, key[2] = uint64_t(label.kind), key[3] = label.addr, key[4] = pt ? pt->id : 0;
    for (size_t i = preds.size(); i-- > 0;) key.push_back(preds[i]->id); // ascending ids
}
} // namespace

void EventStructure::maximalInto(PredList& preds) const {
    // Latest first, duplicates dropped: an event precedes only events created after it (ids are creation order),
    // so p can be dominated only by one of the preds before it. An insertion sort: there are a handful of preds.
    size_t n = 0;
    for (UEvent* x : preds) {
        size_t j = n;
        while (j > 0 && preds[j - 1]->id < x->id) --j;
        if (j > 0 && preds[j - 1] == x) continue; // a duplicate
        for (size_t k = n; k > j; --k) preds[k] = preds[k - 1];
        preds[j] = x;
        ++n;
    }
    // Only the maximal ones: a dominated predecessor's history is contained in its dominator's, so it adds nothing
    // to the key's history, nor its summary to the merge (mergeSummariesInto).
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) { // latest first: only an earlier-listed pred can dominate preds[i]
        bool dominated = false;
        for (size_t j = 0; j < kept && !dominated; ++j) dominated = leq(preds[i], preds[j]);
        if (!dominated) preds[kept++] = preds[i];
    }
    preds.resize(kept);
}

EventIndex::Fingerprint EventStructure::keyOf(const UEvent* e) const {
    if (!e->keyKnown) {
        // The same key findOrCreate would compute from the spec that made e: its predecessors are the spec's.
        reserveKeyScratch();
        predecessorsOf(*e, keyPreds_);
        maximalInto(keyPreds_);
        keyInto(keyScratch_, e->thread, e->choice, e->label, e->pt, keyPreds_);
        const EventIndex::Fingerprint fp = EventIndex::fingerprint(keyScratch_);
        e->keyHash = fp.hash, e->keyCheck = fp.check, e->keyKnown = true;
    }
    return {e->keyHash, e->keyCheck};
}

void EventStructure::mergeSummariesInto(std::span<UEvent* const> events, std::vector<UEvent*>& tmax,
                                        std::vector<SummaryEntry>& entries) const {
    // Built in the caller's scratch vectors: the event's own summary is then copied out at its exact size, since
    // summaries are most of an event's memory and fresh pages are costly here (DESIGN.md, "Where time goes").
    tmax.clear();
    entries.clear();
    for (UEvent* p : events) {
        if (!p) continue;
        const Summary& ps = p->summary;
        if (tmax.size() < ps.tmax().size()) tmax.resize(ps.tmax().size(), nullptr);
        for (size_t t = 0; t < ps.tmax().size(); ++t) {
            UEvent* x = ps.tmax()[t];
            // Often the same event (the preds share most of their history): no depth to fetch then.
            if (x && x != tmax[t] && (!tmax[t] || tmax[t]->tnode.depth < x->tnode.depth)) tmax[t] = x;
        }
        if (entries.empty()) {
            for (Summary::Cursor cur = ps.entries(); !cur.done(); cur.next()) entries.push_back(*cur);
            continue;
        }
        mergeScratch_.clear();
        auto ia = entries.cbegin();
        Summary::Cursor ib = ps.entries();
        auto later = [&](const SummaryEntry& x, const SummaryEntry& y) {
            // Both entries lie in one configuration: they are ordered; keep the later one.
            if (x.ev == y.ev) return x; // the preds share most of their history
            if (x.reader == model::kNoThread) return nodeIn(x.ev, x.res)->depth >= nodeIn(y.ev, y.res)->depth ? x : y;
            return x.ev->tnode.depth >= y.ev->tnode.depth ? x : y;
        };
        while (ia != entries.cend() || !ib.done()) {
            if (ib.done() || (ia != entries.cend() && *ia < *ib)) {
                mergeScratch_.push_back(*ia++);
            } else if (ia == entries.cend() || *ib < *ia) {
                mergeScratch_.push_back(*ib);
                ib.next();
            } else {
                mergeScratch_.push_back(later(*ia++, *ib));
                ib.next();
            }
        }
        entries.swap(mergeScratch_);
    }
}

void EventStructure::predecessorsOf(const EventSpec& spec, PredList& preds) {
    preds.clear();
    if (spec.pt) preds.push_back(spec.pt);
    for (UEvent* c : spec.causes)
        if (c) preds.push_back(c);
    for (const Access& a : spec.accesses)
        if (a.parent) preds.push_back(a.parent);
}

void EventStructure::predecessorsOf(const UEvent& e, PredList& preds) {
    preds.clear();
    forEachPredecessor(e, [&](UEvent* p) {
        preds.push_back(p);
        return true;
    });
}

UEvent* EventStructure::find(const EventSpec& spec) const {
    const EventList* successors = threadSuccessors(spec.pt, spec.thread);
    if (!successors || successors->empty()) return nullptr; // no key needed to know
    reserveKeyScratch();
    predecessorsOf(spec, preds_);
    maximalInto(preds_);
    keyInto(key_, spec.thread, spec.choice, spec.label, spec.pt, preds_);
    return lookUp(*successors, EventIndex::fingerprint(key_));
}

// The key holds the thread and pt's id, so an event with this key has pt as its thread predecessor and is among
// pt's thread successors (or the thread's roots: link() keeps both lists). A short list is searched by fingerprint;
// only the events of a list longer than kSuccessorScan are in the index (findOrCreate puts them there), which is
// probed for those. Nearly every look-up of a large unfolding makes a new event — a successor of an event made a
// step earlier, which has none yet — and the probe into a table of every event (and the insertion after it) was a
// cache miss each time: 18 % of ase14_fig8's run, on one instruction (bench/README.md, twelfth session).
UEvent* EventStructure::lookUp(const EventList& successors, const EventIndex::Fingerprint& fp) const {
    if (successors.size() > kSuccessorScan) return index_.find(fp);
    for (UEvent* s : successors)
        if (keyOf(s) == fp) return s;
    return nullptr;
}

UEvent* EventStructure::treeMaxOf(std::span<UEvent* const> events, const Resource& r) const {
    UEvent* best = nullptr;
    uint32_t bestDepth = 0;
    for (const UEvent* p : events) {
        if (!p) continue;
        const SummaryEntry* m = summaryOf(p).find(r, model::kNoThread);
        if (!m) continue;
        uint32_t d = nodeIn(m->ev, r)->depth;
        if (!best || d > bestDepth) best = m->ev, bestDepth = d;
    }
    return best;
}

UEvent* EventStructure::lastReadOf(std::span<UEvent* const> events, const Resource& r, ThreadId t) const {
    UEvent* best = nullptr; // t's reads are ordered by its thread tree: the deepest is the last
    for (const UEvent* p : events) {
        if (!p) continue;
        const SummaryEntry* m = summaryOf(p).find(r, t);
        if (m && (!best || m->ev->tnode.depth > best->tnode.depth)) best = m->ev;
    }
    return best;
}

UEvent* EventStructure::findOrCreate(const EventSpec& spec, bool* created) {
    predecessorsOf(spec, preds_);
    // The key only to compare: an action's first event after pt is made without one (keyOf makes it later, if a
    // second one comes) — in a small exploration, nearly every event (bench/README.md, thirty-fourth session).
    const EventList* successors = threadSuccessors(spec.pt, spec.thread);
    const bool compare = successors && !successors->empty();
    EventIndex::Fingerprint fp;
    if (compare) {
        reserveKeyScratch();
        maximalInto(preds_);
        keyInto(key_, spec.thread, spec.choice, spec.label, spec.pt, preds_);
        fp = EventIndex::fingerprint(key_);
        if (UEvent* found = lookUp(*successors, fp)) {
            if (created) *created = false;
            return found;
        }
    }
    UEvent* ev = pool_.make();
    ev->thread = spec.thread;
    ev->choice = spec.choice;
    ev->label = spec.label;
    ev->pt = spec.pt;
    ev->causes.assign(spec.causes.begin(), spec.causes.end());
    ev->baseCauses = spec.baseCauses;
    ev->accesses = spec.accesses;
    if (ev->accesses.size() > UEvent::kAccessScan) { // UEvent::access bisects them; one range's words come sorted
        auto byResource = [](const Access& a, const Access& b) { return a.res < b.res; };
        if (!std::is_sorted(ev->accesses.begin(), ev->accesses.end(), byResource))
            std::sort(ev->accesses.begin(), ev->accesses.end(), byResource);
    }
    ev->id = nextId_++;
    ev->tnode.owner = ev;
    ev->tnode.attach(ev->pt ? &ev->pt->tnode : nullptr, step_);
    for (Access& a : ev->accesses) {
        if (a.mode == Mode::Read) continue;
        a.node.owner = ev;
        a.node.attach(const_cast<TreeNode*>(nodeIn(a.parent, a.res)), step_);
    }
    // Summary of [e]: its tmax now (causality needs it), its entries when first asked for (summaryOf).
    tmaxInto(ev, preds_);
    ev->summary.assignPending(tmaxScratch_);
    if (compare) ev->keyHash = fp.hash, ev->keyCheck = fp.check, ev->keyKnown = true;
    link(ev);
    // A list of successors longer than kSuccessorScan is searched by the index (lookUp): when it becomes that long,
    // its events go in; once it is, each new one does. (A list that shrank and grows again holds some already.)
    const EventList& list = ev->pt ? ev->pt->threadChildren : threadRoot(ev->thread);
    auto enter = [&](UEvent* s) {
        if (s->indexed) return;
        index_.insert(s, keyOf(s).check);
        s->indexed = true;
    };
    if (list.size() == kSuccessorScan + 1)
        for (UEvent* s : list) enter(s);
    else if (list.size() > kSuccessorScan + 1)
        enter(ev);
    events_.push_back(ev);
    if (created) *created = true;
    return ev;
}

void EventStructure::tmaxInto(const UEvent* e, std::span<UEvent* const> preds) const {
    std::vector<UEvent*>& tmax = tmaxScratch_;
    size_t n = size_t(e->thread) + 1;
    for (const UEvent* p : preds) n = std::max(n, p->summary.tmax().size());
    // Filled element by element: a few threads, where resize's memset call cost more than the rest of the merge.
    tmax.clear();
    for (size_t t = 0; t < n; ++t) tmax.push_back(nullptr);
    for (const UEvent* p : preds) { // the deepest of each thread: they lie in one configuration
        const std::span<UEvent* const> pm = p->summary.tmax();
        for (size_t t = 0; t < pm.size(); ++t)
            if (UEvent* x = pm[t]; x && x != tmax[t] && (!tmax[t] || tmax[t]->tnode.depth < x->tnode.depth))
                tmax[t] = x;
    }
    tmax[e->thread] = const_cast<UEvent*>(e);
}

void EventStructure::makeEntries(const UEvent* target) const {
    // Predecessors first, iteratively (a thread's chain of pending summaries can be thousands long): an event is
    // made once none of its predecessors is pending. An event can be on the stack more than once (it is a
    // predecessor of several); the later copies find it made.
    reserveEntryScratch();
    std::vector<UEvent*>& todo = pendingStack_;
    todo.assign(1, const_cast<UEvent*>(target));
    while (!todo.empty()) {
        UEvent* x = todo.back();
        if (!x->summary.pending()) {
            todo.pop_back();
            continue;
        }
        const size_t before = todo.size();
        forEachPredecessor(*x, [&](UEvent* p) {
            if (p->summary.pending()) todo.push_back(p);
            return true;
        });
        if (todo.size() != before) continue;
        todo.pop_back();
        entriesOf(x);
    }
}

void EventStructure::entriesOf(UEvent* ev) const {
    PredList& preds = entryPreds_;
    predecessorsOf(*ev, preds);
    maximalInto(preds);
    if (summaryAfterThreadPredecessor(ev, preds)) return;
    mergeSummariesInto(preds, tmaxScratch_, entriesScratch_);
    if (tmaxScratch_.size() <= ev->thread) tmaxScratch_.resize(ev->thread + 1, nullptr);
    tmaxScratch_[ev->thread] = ev;
    auto ownEntry = [&](const Access& a) {
        return SummaryEntry{a.res, a.mode == Mode::Read ? ev->thread : model::kNoThread, ev};
    };
    if (ev->accesses.size() <= UEvent::kAccessScan) {
        for (const Access& a : ev->accesses) {
            const SummaryEntry own = ownEntry(a);
            auto pos = std::lower_bound(entriesScratch_.begin(), entriesScratch_.end(), own);
            if (pos != entriesScratch_.end() && pos->sameKey(own)) *pos = own;
            else entriesScratch_.insert(pos, own);
        }
    } else {
        // Many accesses (sorted by resource, hence their entries by key): one merge, where an insertion each
        // was quadratic on a large memset.
        std::vector<SummaryEntry>& merged = mergeScratch_;
        merged.clear();
        auto in = entriesScratch_.cbegin();
        for (const Access& a : ev->accesses) {
            const SummaryEntry own = ownEntry(a);
            while (in != entriesScratch_.cend() && *in < own) merged.push_back(*in++);
            if (in != entriesScratch_.cend() && in->sameKey(own)) ++in;
            merged.push_back(own);
        }
        merged.insert(merged.end(), in, entriesScratch_.cend());
        entriesScratch_.swap(merged);
    }
    storeSummary(ev);
}

// A delta over the last full summary of e's thread when few entries differ from it (DESIGN.md, "Memory"). Along a
// thread the delta grows by about g entries an event until it is stored full again: with W entries and deltas of
// up to D, an event stores about D/2 + W·g/D of them on average, least for D ≈ √(2gW); g is about 1 on the
// programs measured, hence D² ≤ 2W. Below 4 entries a delta (its base pointer included) saves nothing.
void EventStructure::storeSummary(UEvent* ev) const {
    const std::vector<SummaryEntry>& all = entriesScratch_;
    const Summary* base = nullptr;
    if (ev->pt && all.size() >= 4) base = ev->pt->summary.base() ? ev->pt->summary.base() : &ev->pt->summary;
    if (base) {
        std::vector<SummaryEntry>& delta = deltaScratch_;
        delta.clear();
        const size_t limit = size_t(std::sqrt(2.0 * double(all.size())));
        auto b = base->own();
        auto ib = b.begin();
        for (const SummaryEntry& en : all) { // every key of the base is here: [base] ⊆ [e]
            while (ib != b.end() && *ib < en) ++ib;
            if (ib != b.end() && ib->sameKey(en) && ib->ev == en.ev) continue;
            delta.push_back(en);
            if (delta.size() > limit) break;
        }
        if (delta.size() <= limit) {
            ev->summary.assign(tmaxScratch_, delta, base);
            return;
        }
    }
    ev->summary.assign(tmaxScratch_, all);
}

// [e] = [pt(e)] ∪ {e} when pt(e) is e's only maximal predecessor (`preds`, after maximalInto) — the common case: an
// event whose other predecessors its thread has seen already. e's summary is then pt's with e's own entries over
// it, and what storeSummary would store — a delta over pt's base, or pt itself when pt's summary is full — is pt's
// delta with e's entries merged in: built here in time proportional to that delta and e's accesses, where merging
// pt's whole summary and comparing it with the base again cost every event the size of its history (a thread
// writing 4,000 words: half of the run). False when the summary must be stored full (or is too small for a delta):
// the general path then builds it.
bool EventStructure::summaryAfterThreadPredecessor(UEvent* ev, std::span<UEvent* const> preds) const {
    if (!ev->pt || preds.size() != 1 || preds[0] != ev->pt) return false;
    const Summary& ps = ev->pt->summary;
    const Summary* base = ps.base() ? ps.base() : &ps;
    const std::span<const SummaryEntry> baseEntries = base->own();
    const std::span<const SummaryEntry> ptDelta = ps.base() ? ps.own() : std::span<const SummaryEntry>{};
    // [e] has at most the base's keys, pt's delta's and e's own: under the bound below, no delta (the first events
    // of every thread, where this was a tenth of an event's creation for nothing).
    if (baseEntries.size() + ptDelta.size() + ev->accesses.size() < 4) return false;
    std::vector<SummaryEntry>& own = ownScratch_;
    own.clear();
    for (const Access& a : ev->accesses)
        own.push_back({a.res, a.mode == Mode::Read ? ev->thread : model::kNoThread, ev});
    if (!std::is_sorted(own.begin(), own.end())) std::sort(own.begin(), own.end()); // one entry per resource
    // pt's delta with e's entries over it (e's win on an equal key), and the number of keys of [e] — the base's and
    // those the delta adds — that storeSummary's bound depends on.
    std::vector<SummaryEntry>& delta = deltaScratch_;
    delta.clear();
    auto in = ptDelta.begin();
    for (const SummaryEntry& o : own) {
        while (in != ptDelta.end() && *in < o) delta.push_back(*in++);
        if (in != ptDelta.end() && in->sameKey(o)) ++in;
        delta.push_back(o);
    }
    delta.insert(delta.end(), in, ptDelta.end());
    size_t keys = baseEntries.size();
    for (const SummaryEntry& en : delta)
        if (!findIn(baseEntries, en)) ++keys;
    if (keys < 4 || delta.size() > size_t(std::sqrt(2.0 * double(keys)))) return false;
    tmaxScratch_.assign(ps.tmax().begin(), ps.tmax().end());
    if (tmaxScratch_.size() <= ev->thread) tmaxScratch_.resize(ev->thread + 1, nullptr);
    tmaxScratch_[ev->thread] = ev;
    ev->summary.assign(tmaxScratch_, delta, base);
    return true;
}

EventList& EventStructure::childrenList(UEvent* parent, const Resource& r, bool readers) {
    if (parent)
        if (Access* a = parent->access(r)) return readers ? a->readers : a->children;
    return readers ? initReaders_[r] : resourceRoots_[r];
}

EventList& EventStructure::threadRoot(ThreadId t) {
    if (threadRoots_.size() <= t) threadRoots_.resize(t + 1);
    return threadRoots_[t];
}

void EventStructure::link(UEvent* e) {
    (e->pt ? e->pt->threadChildren : threadRoot(e->thread)).push_back(e);
    for (const Access& a : e->accesses) childrenList(a.parent, a.res, a.mode == Mode::Read).push_back(e);
}

void EventStructure::unlink(UEvent* e) {
    auto drop = [&](EventList& v) { v.remove(e); };
    drop(e->pt ? e->pt->threadChildren : threadRoot(e->thread));
    for (const Access& a : e->accesses) drop(childrenList(a.parent, a.res, a.mode == Mode::Read));
}

void EventStructure::addToU(UEvent* e) {
    if (!e->inU) {
        e->inU = true;
        ++uSize_;
    }
}

void EventStructure::removeFromU(UEvent* e) {
    if (e->inU) {
        e->inU = false;
        --uSize_;
    }
}

void EventStructure::collect(const std::vector<UEvent*>& roots) {
    std::vector<UEvent*> stack(roots.begin(), roots.end());
    for (UEvent* e : events_)
        if (e->inU || e->inD) stack.push_back(e);
    while (!stack.empty()) {
        UEvent* e = stack.back();
        stack.pop_back();
        if (!e || e->marked) continue;
        e->marked = true;
        forEachPredecessor(*e, [&](UEvent* p) {
            stack.push_back(p);
            return true;
        });
    }
    // Unindex first (keys are stored), then free: no freed event is looked at.
    for (UEvent* e : events_)
        if (!e->marked) {
            if (e->indexed) index_.erase(e);
            unlink(e);
        }
    size_t kept = 0;
    for (UEvent* e : events_) {
        if (!e->marked) {
            pool_.destroy(e);
            continue;
        }
        e->marked = false;
        events_[kept++] = e;
    }
    events_.resize(kept);
}

} // namespace skein::explore::unfolding
