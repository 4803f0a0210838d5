#pragma once
// The global event set U of Alg. 1 and the queries on it: causality, conflict (Sec. 5.1, Theorem 5.1 generalised
// to memory words), and the summary of the current configuration C (its "frontier").
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/explore/unfolding/Event.h"

namespace skein::explore::unfolding {

// The memory words an access of [addr, addr+size) touches: the dependence granularity (model::kWordSize).
std::vector<uint64_t> wordsOf(uint64_t addr, uint64_t size);

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
    explicit Frontier(unsigned step) : step_(step) {}
    void push(UEvent* e);
    void pop();
    size_t size() const { return events_.size(); }
    const std::vector<UEvent*>& events() const { return events_; }
    UEvent* threadMax(ThreadId t) const { return t < tmax_.size() ? tmax_[t] : nullptr; }
    UEvent* treeMax(const Resource& r) const;
    UEvent* lastRead(const Resource& r, ThreadId t) const;
    // The last reads of word r by every thread: (thread, event).
    template <class F> void forEachLastRead(const Resource& r, F f) const {
        for (auto it = entries_.lower_bound({r, 0}); it != entries_.end() && it->first.first == r; ++it)
            if (it->first.second != model::kNoThread && it->second) f(it->first.second, it->second);
    }
    // Every pure read of word r in C (for reads-from-a-later-write extensions).
    const std::vector<UEvent*>& readsOf(const Resource& r) const;
    bool contains(const UEvent* e) const;
    size_t numThreads() const { return tmax_.size(); }

private:
    unsigned step_;
    struct Undo {
        enum Kind { Tmax, Entry, Read } kind;
        ThreadId t;
        std::pair<Resource, ThreadId> key;
        UEvent* old;
    };
    std::vector<UEvent*> events_;
    std::vector<size_t> undoMarks_;
    std::vector<Undo> undo_;
    std::vector<UEvent*> tmax_;
    std::map<std::pair<Resource, ThreadId>, UEvent*> entries_;
    std::map<Resource, std::vector<UEvent*>> reads_;
    void setEntry(const Resource& r, ThreadId reader, UEvent* e);
};

class EventStructure {
public:
    explicit EventStructure(unsigned skipStep) : step_(skipStep) {}

    unsigned step() const { return step_; }
    // a ≤ b (causality, reflexive).
    bool leq(const UEvent* a, const UEvent* b) const;
    // a # b.
    bool conflict(const UEvent* a, const UEvent* b) const;
    // [e] ∪ C is not a configuration.
    bool conflictsWith(const UEvent* e, const Frontier& c) const;

    // The unique event with this thread, choice and history (Def. 1: events are (action, history) pairs).
    UEvent* findOrCreate(const EventSpec& spec, bool* created = nullptr);

    // U bookkeeping.
    void addToU(UEvent* e);
    void removeFromU(UEvent* e);
    size_t uSize() const { return uSize_; }
    size_t allocated() const { return events_.size(); }
    template <class F> void forEachInU(F f) const {
        for (const auto& e : events_)
            if (e->inU) f(e.get());
    }
    // The causal summary of the union of the local configurations of `events` (a configuration).
    Summary mergeSummaries(const std::vector<UEvent*>& events) const;
    // Frees every event outside the histories of `roots` and of U (mark and sweep).
    void collect(const std::vector<UEvent*>& roots);

private:
    unsigned step_;
    uint64_t nextId_ = 1;
    size_t uSize_ = 0;
    std::vector<std::unique_ptr<UEvent>> events_;
    struct KeyHash {
        size_t operator()(const std::vector<uint64_t>& k) const;
    };
    std::unordered_map<std::vector<uint64_t>, UEvent*, KeyHash> index_;
    std::vector<uint64_t> keyOf(const UEvent& e) const;
    bool memoryConflict(const UEvent* a, const Summary& bSummary, const UEvent* bEvent) const;
};

// Immediate predecessors of e (pt, causes, access parents), without nulls.
std::vector<UEvent*> predecessors(const UEvent& e);

} // namespace skein::explore::unfolding
