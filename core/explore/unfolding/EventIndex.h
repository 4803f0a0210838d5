#pragma once
// The index of U's events by identity (thread, choice, action, maximal predecessors — EventStructure's key): an
// open-addressing hash table of (hash, event) slots. Every step of the exploration looks events up here, and the
// table holds millions of them: a look-up that misses costs one cache line, and one that hits one more (the
// event, to compare identities), where a node-based std::unordered_set costs three or four.
#include <cstdint>
#include <span>
#include <vector>

namespace skein::explore::unfolding {

struct UEvent;

class EventIndex {
public:
    static uint64_t hash(std::span<const uint64_t> key);
    // The event with hash `h` for which `same(event)` holds, or null.
    template <class Same> UEvent* find(uint64_t h, Same same) const;
    // Inserts e (its key must not be present); e->keyHash must be set.
    void insert(UEvent* e);
    void erase(const UEvent* e);
    size_t size() const { return size_; }

private:
    struct Slot {
        uint64_t hash = 0;
        UEvent* e = nullptr; // null: empty; kTombstone: erased
    };
    std::vector<Slot> slots_; // capacity a power of two
    size_t size_ = 0, used_ = 0; // live events; live + tombstones
    void grow();
    static UEvent* tombstone() { return reinterpret_cast<UEvent*>(uintptr_t(1)); }
};

template <class Same> UEvent* EventIndex::find(uint64_t h, Same same) const {
    if (slots_.empty()) return nullptr;
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (!s.e) return nullptr;
        if (s.e != tombstone() && s.hash == h && same(s.e)) return s.e;
    }
}

} // namespace skein::explore::unfolding
