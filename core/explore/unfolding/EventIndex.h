#pragma once
// An index of events by identity (thread, choice, action, maximal predecessors — EventStructure's key): an
// open-addressing hash table of (fingerprint, event) slots. It holds the events that a short list cannot find:
// those of an event's thread successors once they are more than a few (EventStructure::lookUp). A look-up costs one
// cache line, where a node-based std::unordered_set costs three or four.
//
// Identity is decided by a 128-bit fingerprint of the canonical key (two independent 64-bit hashes), not by
// rebuilding the stored event's key: that rebuild (its maximal predecessors, one causality query per pair) was
// 3 % of a run, and touched every predecessor's cache lines. Two distinct keys with equal fingerprints would make
// two events one; the probability of any such collision among n events is about n²/2¹²⁹ — 10⁻²¹ for a billion
// events — far below the rate of undetected hardware memory errors. Model checkers accept the same kind of bound
// openly (SPIN's hash compaction, TLC's 64-bit fingerprints); this one is 2⁶⁴ times smaller than theirs.
#include <cstdint>
#include <span>
#include <vector>

namespace skein::explore::unfolding {

struct UEvent;

class EventIndex {
public:
    struct Fingerprint {
        uint64_t hash = 0;  // picks the slot; kept in the event (UEvent::keyHash)
        uint64_t check = 0; // an independent hash of the same key
        bool operator==(const Fingerprint&) const = default;
    };
    static Fingerprint fingerprint(std::span<const uint64_t> key);
    // The event with fingerprint `f`, or null.
    UEvent* find(const Fingerprint& f) const;
    // Inserts e (its key must not be present) with its fingerprint; e->keyHash must be f.hash.
    void insert(UEvent* e, uint64_t check);
    void erase(const UEvent* e);
    size_t size() const { return size_; }

private:
    struct Slot {
        uint64_t hash = 0, check = 0;
        UEvent* e = nullptr; // null: empty; kTombstone: erased
    };
    std::vector<Slot> slots_; // capacity a power of two
    size_t size_ = 0, used_ = 0; // live events; live + tombstones
    void grow();
    static UEvent* tombstone() { return reinterpret_cast<UEvent*>(uintptr_t(1)); }
};

inline UEvent* EventIndex::find(const Fingerprint& f) const {
    if (slots_.empty()) return nullptr;
    size_t mask = slots_.size() - 1;
    for (size_t i = f.hash & mask;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (!s.e) return nullptr;
        if (s.hash == f.hash && s.check == f.check && s.e != tombstone()) return s.e;
    }
}

} // namespace skein::explore::unfolding
