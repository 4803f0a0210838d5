#pragma once
// The index of U's events by identity (thread, choice, action, maximal predecessors — EventStructure's key): an
// open-addressing hash table of (hash, event) slots. Every step of the exploration looks events up here, and the
// table holds millions of them: a look-up that misses costs one cache line, and one that hits one more (the
// event's key), where a node-based std::unordered_set costs three or four.
#include <cstdint>
#include <span>
#include <vector>

namespace skein::explore::unfolding {

struct UEvent;

class EventIndex {
public:
    static uint64_t hash(std::span<const uint64_t> key);
    // The event with this key (whose hash is `h`), or null.
    UEvent* find(std::span<const uint64_t> key, uint64_t h) const;
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
};

} // namespace skein::explore::unfolding
