#pragma once
// The global event set U of Alg. 1 and the queries on it: causality, conflict (Sec. 5.1, Theorem 5.1 generalised
// to memory words), and the summary of the current configuration C (its "frontier").
#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/explore/unfolding/Event.h"
#include "core/explore/unfolding/EventIndex.h"
#include "core/explore/unfolding/ResourceMap.h"
#include "core/explore/unfolding/SmallVector.h"

namespace skein::explore::unfolding {

// What the event to find or create is: its thread's action and its immediate predecessors.
struct EventSpec {
    ThreadId thread = 0;
    uint32_t choice = 0;
    model::Event label;
    UEvent* pt = nullptr;
    std::vector<UEvent*> causes;  // create / join / waking signal, then (writes) the reads that precede them
    uint32_t baseCauses = 0;      // leading causes that are not reads-before-writes
    std::vector<Access> accesses; // res, mode, parent (node unused)
};

// The configuration C being explored, as a summary with an undo log (C grows and shrinks at its end).
class Frontier {
public:
    explicit Frontier(unsigned step) : step_(step) { reserveSmall(); }
    Frontier(const Frontier&) = delete; // the undo log points into the maps
    Frontier& operator=(const Frontier&) = delete;
    void push(UEvent* e);
    void pop();
    size_t size() const { return events_.size(); }
    const std::vector<UEvent*>& events() const { return events_; }
    UEvent* threadMax(ThreadId t) const { return t < tmax_.size() ? tmax_[t] : nullptr; }
    UEvent* treeMax(const Resource& r) const;
    UEvent* lastRead(const Resource& r, ThreadId t) const;
    // The last reads of word r by every thread: (thread, event), in thread order.
    template <class F> void forEachLastRead(const Resource& r, F f) const {
        if (const Word* w = word(r))
            for (ThreadId t = 0; t < w->lastRead.size(); ++t)
                if (w->lastRead[t]) f(t, w->lastRead[t]);
    }
    // Every pure read of word r in C (for reads-from-a-later-write extensions).
    std::span<UEvent* const> readsOf(const Resource& r) const;
    bool contains(const UEvent* e) const;
    size_t numThreads() const { return tmax_.size(); }

private:
    // A small exploration's buffers in one allocation each, not grown from one element by doubling.
    void reserveSmall() {
        events_.reserve(64);
        undoMarks_.reserve(64);
        undo_.reserve(64);
    }
    unsigned step_;
    // What C holds of one resource: its tree maximum, each thread's last read of it, and (a memory word) every pure
    // read of it in C's order. One look-up per resource and event, where two ordered maps (keyed by resource and by
    // (resource, thread)) cost two tree descents. Words are never erased (a cleared field is null, which every query
    // reads as absent) and the map's records do not move (ResourceMap), so the undo log can point at them.
    struct Word {
        UEvent* max = nullptr;
        SmallVector<UEvent*, 4> lastRead; // by thread (a few threads read a word: no allocation)
        SmallVector<UEvent*, 2> reads;
    };
    struct Undo {
        enum Kind { Tmax, Max, LastRead, Read } kind;
        ThreadId t;  // Tmax, LastRead: the thread
        Word* word;  // Max, LastRead, Read
        UEvent* old; // Tmax, Max, LastRead: the value before
    };
    std::vector<UEvent*> events_;
    std::vector<size_t> undoMarks_;
    std::vector<Undo> undo_;
    SmallVector<UEvent*, 8> tmax_; // by thread
    ResourceMap<Word, 8> words_;
    // The last record looked up: the walks ask for one word's state over and over (each of its reads, its tree
    // maximum), and a look-up past the map's first records divides by the bucket count — among the slowest
    // instructions of a small exploration. (Records never move nor go.)
    mutable Resource lastKey_;
    mutable Word* lastWord_ = nullptr;
    const Word* word(const Resource& r) const {
        if (lastWord_ && lastKey_ == r) return lastWord_;
        const Word* w = words_.find(r);
        if (!w) return nullptr;
        lastKey_ = r, lastWord_ = const_cast<Word*>(w);
        return lastWord_;
    }
    Word& wordFor(const Resource& r) { // made when absent
        if (lastWord_ && lastKey_ == r) return *lastWord_;
        Word& w = words_[r];
        lastKey_ = r, lastWord_ = &w;
        return w;
    }
};

// Storage for U's events: chunks of events carved in creation order, and a free list for the events the garbage
// collection frees. jemalloc's small-object path cost ~220 instructions per event here (its thread cache is
// refilled constantly when nearly nothing is freed), a chunk ~10; consecutive events also share cache lines. The
// chunks double from 16 events up to 1024: a small exploration (a dozen events) does not pay for a 256 KB chunk
// (a large allocation, ~3 k instructions, and its pages).
class EventPool {
public:
    EventPool() = default;
    EventPool(const EventPool&) = delete;
    EventPool& operator=(const EventPool&) = delete;
    ~EventPool() = default; // the chunks go; the events' destructors are the owner's business (EventStructure)
    UEvent* make() {
        void* slot;
        if (!free_.empty()) {
            slot = free_.back();
            free_.pop_back();
        } else {
            if (used_ == chunkSize_) {
                chunkSize_ = chunks_.empty() ? kFirstChunk : std::min(2 * chunkSize_, kMaxChunk);
                chunks_.push_back(std::make_unique_for_overwrite<Slot[]>(chunkSize_)); // constructed per event
                used_ = 0;
            }
            slot = &chunks_.back()[used_++];
        }
        return ::new (slot) UEvent; // default-initialised: every member has its initialiser (no zero fill first)
    }
    void destroy(UEvent* e) {
        e->~UEvent();
        free_.push_back(e);
    }

private:
    static constexpr size_t kFirstChunk = 16, kMaxChunk = 1024;
    struct alignas(UEvent) Slot {
        std::byte bytes[sizeof(UEvent)];
    };
    std::vector<std::unique_ptr<Slot[]>> chunks_;
    size_t chunkSize_ = 0, used_ = 0; // the last chunk's size and how much of it is carved
    std::vector<void*> free_;
};

class EventStructure {
public:
    explicit EventStructure(unsigned skipStep) : step_(skipStep) { reserveSmall(); }
    EventStructure(const EventStructure&) = delete;
    EventStructure& operator=(const EventStructure&) = delete;
    ~EventStructure() {
        if (!abandoned_)
            for (UEvent* e : events_) pool_.destroy(e);
    }

    unsigned step() const { return step_; }
    // a ≤ b (causality, reflexive). Inline for its O(1) answers: an event is created after every event of its
    // history (ids are creation order), so a later one cannot precede — most queries of the comb end there.
    bool leq(const UEvent* a, const UEvent* b) const {
        if (a == b || !a) return true;
        if (!b || a->id > b->id) return false;
        return leqByTree(a, b);
    }
    // a # b.
    bool conflict(const UEvent* a, const UEvent* b) const;
    // The events of thread t whose thread predecessor is pt (the thread's first events when pt is null), in the
    // order they were made until a collection unlinks some: the outcomes of an action at a history are among them.
    const EventList* threadSuccessors(const UEvent* pt, ThreadId t) const {
        return pt ? &pt->threadChildren : t < threadRoots_.size() ? &threadRoots_[t] : nullptr;
    }
    // [e] ∪ C is not a configuration.
    bool conflictsWith(const UEvent* e, const Frontier& c) const;
    // An event of C in conflict with e, or null when [e] ∪ C is a configuration.
    const UEvent* conflictWitness(const UEvent* e, const Frontier& c) const;
    const UEvent* branchWitness(const TreeNode* other, const TreeNode* cNode) const;

    // The unique event with this thread, choice and history (Def. 1: events are (action, history) pairs).
    UEvent* findOrCreate(const EventSpec& spec, bool* created = nullptr);
    // The same event if it exists already; null otherwise. A spec whose history is not a configuration is never
    // found (its maximal predecessors conflict, and no event's do).
    UEvent* find(const EventSpec& spec) const;
    // The maximal event of resource r's tree in the union of the local configurations of `events` (assumed to be
    // a configuration); null when none of them has one.
    UEvent* treeMaxOf(std::span<UEvent* const> events, const Resource& r) const;
    // The same for thread t's last read of word r there (the summaries' per-thread read entries); null when none.
    UEvent* lastReadOf(std::span<UEvent* const> events, const Resource& r, ThreadId t) const;

    // U bookkeeping.
    void addToU(UEvent* e);
    void removeFromU(UEvent* e);
    size_t uSize() const { return uSize_; }
    size_t allocated() const { return events_.size(); }
    template <class F> void forEachEvent(F f) const { // every event not freed, in U or not
        for (UEvent* e : events_) f(e);
    }
    template <class F> void forEachInU(F f) const {
        for (UEvent* e : events_)
            if (e->inU) f(e);
    }
    bool leqByTree(const UEvent* a, const UEvent* b) const;
    // e's summary with its entries made (Summary: they are made when first asked for). Its tmax alone needs no call.
    const Summary& summaryOf(const UEvent* e) const {
        if (e->summary.pending()) [[unlikely]]
            makeEntries(e);
        return e->summary;
    }
    // The events in immediate conflict with e (Sec. 5: siblings in a thread or resource tree, and reads/writes
    // of a word that read the value e overwrites or that e's write overwrites). Every event in conflict with e
    // has one of these in its history.
    // `skip(x)` is asked first, before any causality query (the caller's "already seen / not in U").
    template <class Skip, class F> void forEachImmediateConflict(const UEvent* e, Skip skip, F f) const;
    // Frees every event outside the histories of `roots` and of U (mark and sweep).
    void collect(const std::vector<UEvent*>& roots);
    // Forgets every event's `placed` mark (after events left U).
    void clearPlaced() {
        for (auto& e : events_) e->placed = false;
    }
    // Lets go of every event without freeing it (ExploreOptions::freeAtEnd = false: the process is exiting).
    void abandon() { abandoned_ = true; } // the pool's chunks are still freed: only the events' own arrays stay

private:
    // As Frontier's. The buffers of keys and entries are not reserved: a small exploration may make neither.
    void reserveSmall() {
        events_.reserve(64);
        tmaxScratch_.reserve(8);
        threadRoots_.reserve(8);
    }
    unsigned step_;
    uint64_t nextId_ = 1;
    size_t uSize_ = 0;
    EventPool pool_;
    std::vector<UEvent*> events_; // every allocated event, in the pool
    bool abandoned_ = false;
    EventIndex index_;
    // Children of the roots: first events of each thread, first nodes of each resource tree, reads of initial
    // values.
    std::vector<EventList> threadRoots_; // thread → its first events (threadRoot)
    // Hashed: one look-up per access of every event made, and a buffer's calloc makes one per word of it (an
    // ordered map's descent through thousands of words missed the cache at every level).
    ResourceMap<EventList, 8> resourceRoots_, initReaders_;
    EventList& childrenList(UEvent* parent, const Resource& r, bool readers);
    EventList& threadRoot(ThreadId t); // grows threadRoots_ to t
    // The event with fingerprint fp among `successors` (an event's thread successors, or a thread's roots), or
    // null; the index is probed only for a long list.
    UEvent* lookUp(const EventList& successors, const EventIndex::Fingerprint& fp) const;
    static constexpr size_t kSuccessorScan = 2;
    // An event's predecessors (pt, causes, parents): a handful, in place.
    using PredList = SmallVector<UEvent*, 16>;
    static void predecessorsOf(const EventSpec& spec, PredList& preds);
    static void predecessorsOf(const UEvent& e, PredList& preds);
    // Keeps the maximal events of `preds` (a configuration's), latest first, once each.
    void maximalInto(PredList& preds) const;
    // e's identity's fingerprint, made at the first call (UEvent::keyKnown).
    EventIndex::Fingerprint keyOf(const UEvent* e) const;
    // The causal summary of the union of the local configurations of `events` (a configuration, none of them
    // pending), into tmax/entries.
    void mergeSummariesInto(std::span<UEvent* const> events, std::vector<UEvent*>& tmax,
                            std::vector<SummaryEntry>& entries) const;
    // The tmax of [e] from its predecessors' (pending or not) into tmaxScratch_.
    void tmaxInto(const UEvent* e, std::span<UEvent* const> preds) const;
    // Makes the entries of e's summary, and first those of every pending summary in its history.
    void makeEntries(const UEvent* e) const;
    void entriesOf(UEvent* e) const; // e's own, its predecessors' made
    // Scratch buffers of the look-ups (kept to avoid allocating on every one). Those of keys and of entries are
    // reserved at their first use, in one allocation each rather than grown by doubling (a small exploration may
    // use neither).
    void reserveKeyScratch() const {
        if (key_.capacity() == 0) key_.reserve(32), keyScratch_.reserve(32);
    }
    void reserveEntryScratch() const {
        if (pendingStack_.capacity() == 0) {
            pendingStack_.reserve(32), ownScratch_.reserve(8);
            mergeScratch_.reserve(32), entriesScratch_.reserve(32), deltaScratch_.reserve(32);
        }
    }
    mutable PredList preds_, keyPreds_, entryPreds_;
    mutable std::vector<UEvent*> pendingStack_;
    mutable std::vector<uint64_t> key_, keyScratch_;
    mutable std::vector<SummaryEntry> mergeScratch_, entriesScratch_, deltaScratch_;
    mutable std::vector<UEvent*> tmaxScratch_;
    // conflictWitness for an e with at most a few events of [e] outside C, without summaries; nullopt for more.
    std::optional<const UEvent*> witnessOutsideC(const UEvent* e, const Frontier& c) const;
    mutable SmallVector<const UEvent*, 16> walkTodo_, walkOutside_; // witnessOutsideC's (at most 16 events)
    void storeSummary(UEvent* e) const;
    bool summaryAfterThreadPredecessor(UEvent* e, std::span<UEvent* const> preds) const;
    mutable std::vector<SummaryEntry> ownScratch_;
    void link(UEvent* e);
    void unlink(UEvent* e);
    bool memoryConflict(const UEvent* a, const Summary& bSummary, const UEvent* bEvent) const;
};

template <class Skip, class F>
void EventStructure::forEachImmediateConflict(const UEvent* e, Skip skip, F f) const {
    // Siblings in a thread or resource tree always conflict with e; a read and a write of the same word that
    // share the write they follow conflict unless the read is in the write's history.
    auto siblings = [&](const EventList& v) {
        for (UEvent* x : v)
            if (x != e && !skip(x)) f(x);
    };
    // Thread siblings only for another outcome of the same action (a nondet value, the waiter a signal wakes):
    // a sibling with the same outcome differs from e in a resource parent, and then an event of its history is
    // a sibling of e in that resource's tree (DESIGN.md) — and the thread-root lists are long.
    auto otherOutcomes = [&](const EventList& v) {
        for (UEvent* x : v)
            if (x != e && x->choice != e->choice && !skip(x)) f(x);
    };
    const bool outcomes = e->hasOutcomes();
    if (outcomes && e->pt) otherOutcomes(e->pt->threadChildren);
    else if (outcomes)
        if (e->thread < threadRoots_.size()) otherOutcomes(threadRoots_[e->thread]);
    for (const Access& a : e->accesses) {
        const Access* pa = a.parent ? a.parent->access(a.res) : nullptr;
        const EventList* children = pa ? &pa->children : nullptr;
        if (!pa)
            children = resourceRoots_.find(a.res);
        if (a.mode == Mode::Read) {
            // Writes that overwrite the value e read, unless e precedes them.
            if (children)
                for (UEvent* w : *children)
                    if (w != e && !skip(w) && !leq(e, w)) f(w);
            continue;
        }
        if (children) siblings(*children);
        if (a.mode == Mode::Write) {
            // Reads of the value e overwrites, unless they precede e.
            const EventList* readers = pa ? &pa->readers : nullptr;
            if (!pa)
                readers = initReaders_.find(a.res);
            if (readers)
                for (UEvent* r : *readers)
                    if (r != e && !skip(r) && !leq(r, e)) f(r);
        }
    }
}

// Calls f on each immediate predecessor of e (pt, causes, access parents; no nulls, perhaps duplicates); f returns
// false to stop. Returns false when stopped.
template <class F> bool forEachPredecessor(const UEvent& e, F f) {
    if (e.pt && !f(e.pt)) return false;
    for (UEvent* c : e.causes)
        if (c && !f(c)) return false;
    for (const Access& a : e.accesses)
        if (a.parent && !f(a.parent)) return false;
    return true;
}

} // namespace skein::explore::unfolding
