#pragma once
// Events of the unfolding (QPOR Sec. 2, Def. 1): an event is an action of one thread after a history. The
// history is kept implicitly: the thread predecessor pt(e), the extra causes (thread creation, join, the signal
// that woke a waiter), and for every shared resource the event accesses, its parent in that resource's tree
// (Sec. 5.1). Memory words are resources too (the paper's model has only mutexes; Skein's has memory): a write
// is a node of the word's write tree, a read points at the write it reads from. See DESIGN.md.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <utility>
#include <memory>
#include <span>
#include <vector>

#include "core/explore/unfolding/SmallVector.h"
#include "core/explore/unfolding/Tree.h"
#include "core/model/Event.h"

namespace skein::explore::unfolding {

using model::ThreadId;

enum class ResKind : uint8_t { Memory, Mutex, Cond };

// A resource in 8 bytes: the kind in the top two bits of the address (an executor address is an object id < 2^30
// shifted by 32, plus an offset: core/exec/Memory.h), since every event stores several of them in its summary.
struct Resource {
    uint64_t key = 0;
    Resource() = default;
    Resource(uint64_t addr, ResKind kind) : key(addr | uint64_t(kind) << 62) {}
    uint64_t addr() const { return key & ~(uint64_t(3) << 62); } // Memory: a 4-byte word; Mutex/Cond: the object
    ResKind kind() const { return ResKind(key >> 62); }
    auto operator<=>(const Resource&) const = default;
};

struct ResourceHash { // for hash maps keyed by resource (std::hash of an integer is the integer here)
    size_t operator()(const Resource& r) const { return std::hash<uint64_t>()(r.key); }
};

enum class Mode : uint8_t {
    Read,  // reads a memory word: `parent` is the write read from (null: the initial value)
    Write, // writes a memory word (an RMW too: it reads its parent): a node of the word's write tree
    Sync,  // an operation on a mutex or condition variable: a node of its tree (all such pairs are dependent)
};

struct UEvent;

// A list of events that most often holds none or one: the children of an event in one resource tree, the reads of
// one write, an event's thread successors. The first is kept in place, so such a list takes 16 bytes (a vector:
// 24) and allocates nothing until a second event comes; an event of U has one per access and one of its own, and
// their first allocations were a good part of making an event on small programs (bench/README.md).
class EventList {
public:
    EventList() = default;
    EventList(const EventList& o) { assignFrom(o); }
    EventList(EventList&& o) noexcept : one_(o.one_), size_(o.size_), cap_(o.cap_) { o.size_ = 0, o.cap_ = 1; }
    EventList& operator=(const EventList& o) {
        if (this != &o) {
            release();
            assignFrom(o);
        }
        return *this;
    }
    EventList& operator=(EventList&& o) noexcept {
        if (this != &o) {
            release();
            one_ = o.one_, size_ = o.size_, cap_ = o.cap_;
            o.size_ = 0, o.cap_ = 1;
        }
        return *this;
    }
    ~EventList() { release(); }

    UEvent* const* begin() const { return data(); }
    UEvent* const* end() const { return data() + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    UEvent* operator[](size_t i) const { return data()[i]; }
    void push_back(UEvent* e) {
        if (size_ == cap_) grow();
        data()[size_++] = e;
    }
    // Drops every occurrence of e, keeping the order of the others.
    void remove(const UEvent* e) {
        UEvent** d = data();
        size_ = uint32_t(std::remove(d, d + size_, e) - d);
    }

private:
    bool inPlace() const { return cap_ == 1; }
    UEvent** data() { return inPlace() ? &one_ : heap_; }
    UEvent* const* data() const { return inPlace() ? &one_ : heap_; }
    void grow() {
        const uint32_t cap = cap_ == 1 ? 4 : 2 * cap_;
        UEvent** bigger = std::allocator<UEvent*>().allocate(cap);
        std::copy(data(), data() + size_, bigger);
        release();
        heap_ = bigger, cap_ = cap;
    }
    void release() {
        if (!inPlace()) std::allocator<UEvent*>().deallocate(heap_, cap_);
        cap_ = 1;
    }
    void assignFrom(const EventList& o) {
        size_ = 0, cap_ = 1;
        for (UEvent* e : o) push_back(e);
    }
    union {
        UEvent* one_ = nullptr; // cap_ == 1: the list's only slot
        UEvent** heap_;         // otherwise: cap_ slots
    };
    uint32_t size_ = 0, cap_ = 1;
};

struct Access {
    Resource res;
    Mode mode = Mode::Read;
    UEvent* parent = nullptr; // see Mode
    TreeNode node;            // Write/Sync: this event's node in the resource tree
    // Indices for immediate conflicts (spikes of the comb): Write/Sync: the events whose parent in this
    // resource's tree is this event; Write on memory: the reads that read this write.
    EventList children, readers;
};

// The causal summary of a local configuration [e] (Def. 7 generalised): the <-maximal event of every thread
// (tmax), of every resource tree, and for every (word, thread) the last read of the word by the thread.
struct SummaryEntry {
    Resource res;
    ThreadId reader = model::kNoThread; // kNoThread: the tree maximum; otherwise that thread's last read
    UEvent* ev = nullptr;
    bool sameKey(const SummaryEntry& o) const { return res == o.res && reader == o.reader; }
    bool operator<(const SummaryEntry& o) const { return res != o.res ? res < o.res : reader < o.reader; }
};

// One exact-size block rather than two vectors — the entries, then tmax — since an event's summary is most of its
// memory and its allocations are a good part of making an event (DESIGN.md, "Memory"). Both element types are
// trivially copyable, so the bytes copied into the block are the objects (C++20 implicit object creation).
//
// A summary is either full (all its entries) or a delta over a full one — in practice the last full summary on its
// thread's chain — holding only the entries that differ from it (DESIGN.md, "Memory"): an event's history contains
// its base's, so every key of the base is a key of the event's summary, and the delta's own entry replaces the
// base's. Bases are never deltas, so a look-up searches two sorted arrays. A delta's base is in its history, so the
// garbage collection, which keeps histories, keeps it.
//
// The entries are made when first asked for (EventStructure::summaryOf), the tmax when the event is: causality
// (EventStructure::leq) needs only tmax, and a small exploration never asks most events for more — on
// semaphore_buffer.c, none of its twelve (bench/README.md, thirty-fourth session). Until then the summary is
// *pending*: its tmax is right and it has no entries; only EventStructure reads entries, through summaryOf.
class Summary {
public:
    // The entries in key order: the delta's own merged over its base's (its own entry wins on an equal key).
    class Cursor {
    public:
        Cursor(std::span<const SummaryEntry> own, std::span<const SummaryEntry> base)
            : a_(own.data()), aEnd_(own.data() + own.size()), b_(base.data()), bEnd_(base.data() + base.size()) {}
        bool done() const { return a_ == aEnd_ && b_ == bEnd_; }
        const SummaryEntry& operator*() const { return takeOwn() ? *a_ : *b_; }
        const SummaryEntry* operator->() const { return &**this; }
        void next() {
            if (takeOwn()) {
                if (b_ != bEnd_ && b_->sameKey(*a_)) ++b_;
                ++a_;
            } else {
                ++b_;
            }
        }

    private:
        bool takeOwn() const { return a_ != aEnd_ && (b_ == bEnd_ || !(*b_ < *a_)); }
        const SummaryEntry *a_, *aEnd_, *b_, *bEnd_;
    };

    // The entries are still to be made (EventStructure::summaryOf makes them): entries(), find(), own() and base()
    // are not to be called yet.
    bool pending() const { return nEntries_ & kPending; }
    std::span<UEvent* const> tmax() const { // by thread
        return {reinterpret_cast<UEvent* const*>(data_.get() + headerBytes() + ownCount() * sizeof(SummaryEntry)),
                nThreads_};
    }
    Cursor entries() const {
        const Summary* b = base();
        return Cursor(own(), b ? b->own() : std::span<const SummaryEntry>{});
    }
    UEvent* threadMax(ThreadId t) const { return t < nThreads_ ? tmax()[t] : nullptr; }
    const SummaryEntry* find(const Resource& r, ThreadId reader) const;
    // The full summary this one is a delta over; null when this one is full.
    const Summary* base() const {
        if (!(nEntries_ & kDelta)) return nullptr;
        const Summary* b;
        std::memcpy(&b, data_.get(), sizeof b);
        return b;
    }
    // The entries stored here: all of them for a full summary, the differing ones for a delta.
    std::span<const SummaryEntry> own() const {
        return {reinterpret_cast<const SummaryEntry*>(data_.get() + headerBytes()), ownCount()};
    }
    // tmax only: a pending summary.
    void assignPending(std::span<UEvent* const> tmax) {
        assign(tmax, {});
        nEntries_ |= kPending;
    }
    // `entries` sorted; `base` (a full summary, or null for a full one) is what `entries` overrides.
    void assign(std::span<UEvent* const> tmax, std::span<const SummaryEntry> entries, const Summary* base = nullptr) {
        static_assert(std::is_trivially_copyable_v<SummaryEntry> && alignof(SummaryEntry) == alignof(UEvent*));
        nThreads_ = uint32_t(tmax.size());
        nEntries_ = uint32_t(entries.size()) | (base ? kDelta : 0);
        const size_t header = headerBytes(), entryBytes = entries.size() * sizeof(SummaryEntry);
        data_ = std::make_unique_for_overwrite<std::byte[]>(header + entryBytes + tmax.size() * sizeof(UEvent*));
        if (base) std::memcpy(data_.get(), &base, sizeof base);
        if (!entries.empty()) std::memcpy(data_.get() + header, entries.data(), entryBytes);
        if (!tmax.empty()) std::memcpy(data_.get() + header + entryBytes, tmax.data(), tmax.size() * sizeof(UEvent*));
    }

private:
    static constexpr uint32_t kDelta = uint32_t(1) << 31; // in nEntries_: the block starts with the base pointer
    static constexpr uint32_t kPending = uint32_t(1) << 30; // in nEntries_: entries still to be made (no entries)
    size_t headerBytes() const { return nEntries_ & kDelta ? sizeof(const Summary*) : 0; }
    size_t ownCount() const { return nEntries_ & ~(kDelta | kPending); }
    std::unique_ptr<std::byte[]> data_;
    uint32_t nThreads_ = 0, nEntries_ = 0;
};

// Fields are grouped by size so that an event fits jemalloc's 256-byte class (one is allocated per event of U).
struct UEvent {
    uint64_t id = 0;       // creation order; deterministic
    UEvent* pt = nullptr;  // previous event of the same thread
    // EventIndex::Fingerprint::hash of its identity (thread, choice, action, pt, maximal preds), and
    // Fingerprint::check: an event is found among its pt's successors (findOrCreate). Made when first compared
    // (keyKnown): an event that is its pt's first successor is made without a look-up (EventStructure::keyOf).
    mutable uint64_t keyHash = 0;
    mutable uint64_t keyCheck = 0;
    ThreadId thread = 0;
    uint32_t choice = 0;   // which outcome of the thread's action (nondet value, woken waiter); 0 otherwise
    uint32_t baseCauses = 0;     // how many leading causes are not reads-before-writes
    uint32_t cPos = 0;     // position in C when inC (bookkeeping of the exploration, below)
    // create / joined thread's last event / waking signal, then reads before writes. Mostly none or one: in place.
    SmallVector<UEvent*, 1> causes;
    std::vector<Access> accesses;
    TreeNode tnode;        // node in the thread's tree
    EventList threadChildren; // events whose pt is this event
    mutable Summary summary; // of [e], e included; its entries made when first asked for (EventStructure::summaryOf)
    model::Event label;    // kind and address of the action (values are known once executed)

    // Bookkeeping of the exploration.
    uint64_t stamp = 0;    // visit mark of the comb
    // EventStructure::conflictsWith's memo: the position and id of an event of C this event conflicts with.
    mutable uint64_t conflictId = 0;
    mutable uint32_t conflictPos = 0;
    uint32_t inD = 0;      // D membership count
    bool inU = false;
    bool marked = false;   // garbage collection
    bool inC = false;      // in the configuration being explored (Frontier), at position cPos
    bool section = false;  // an SV-COMP atomic section (a macro event: the union of its steps' accesses)
    bool sectionRuns = false; // ... with several runs: `choice` names the run (QporExplorer::runOf)
    // Its earlier placements (cexp, QporExplorer::earlierPlacements) are in U: they depend on [e] alone, so
    // executing e again in another configuration adds nothing while U has lost no event since (prune resets it).
    bool placed = false;
    // In EventStructure's index: only the events of a long list of thread successors are (EventStructure::lookUp).
    bool indexed = false;
    mutable bool keyKnown = false; // keyHash and keyCheck are set

    // An event's accesses are in any order up to kAccessScan of them, and sorted by resource past that
    // (EventStructure::findOrCreate sorts them): a memset or free of a large buffer has an access per word, and
    // looking one up by a scan made the queries on it quadratic.
    static constexpr size_t kAccessScan = 8;
    const Access* access(const Resource& r) const {
        if (accesses.size() > kAccessScan) [[unlikely]]
            return accessSorted(r);
        for (const Access& a : accesses)
            if (a.res == r) return &a;
        return nullptr;
    }
    const Access* accessSorted(const Resource& r) const; // out of line (EventStructure.cpp): the rare case
    Access* access(const Resource& r) { return const_cast<Access*>(std::as_const(*this).access(r)); }
    bool isWrite(const Resource& r) const {
        const Access* a = access(r);
        return a && a->mode != Mode::Read;
    }
    // Its action may have several outcomes at one history, siblings in conflict: a nondet value, the waiter a signal
    // wakes, the runs of an atomic section that differ.
    bool hasOutcomes() const {
        return label.kind == model::EventKind::Nondet || label.kind == model::EventKind::CondSignal || sectionRuns;
    }
    // o is an outcome of this event's action at the same history (this event itself included): same thread,
    // predecessors and accesses; only the choice may differ.
    bool sameAction(const UEvent& o) const {
        if (o.thread != thread || o.pt != pt || o.label.kind != label.kind || o.label.addr != label.addr ||
            o.causes != causes || o.accesses.size() != accesses.size())
            return false;
        for (size_t j = 0; j < accesses.size(); ++j) {
            const Access &p = o.accesses[j], &q = accesses[j];
            if (p.res != q.res || p.mode != q.mode || p.parent != q.parent) return false;
        }
        return true;
    }
};

static_assert(sizeof(UEvent) <= 256, "UEvent outgrew jemalloc's 256-byte class: see the comment above it");

inline UEvent* ownerOf(const TreeNode* n) { return n ? static_cast<UEvent*>(n->owner) : nullptr; }

} // namespace skein::explore::unfolding
