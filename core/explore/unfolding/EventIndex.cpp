#include "core/explore/unfolding/EventIndex.h"

#include <algorithm>

#include "core/explore/unfolding/Event.h"

namespace skein::explore::unfolding {


uint64_t EventIndex::hash(std::span<const uint64_t> key) {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t v : key) h = (h ^ v) * 1099511628211ull;
    return h ^ (h >> 29); // the low bits pick the slot: fold the high ones in
}

void EventIndex::insert(UEvent* e) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    size_t i = e->keyHash & mask;
    while (slots_[i].e && slots_[i].e != tombstone()) i = (i + 1) & mask;
    if (!slots_[i].e) ++used_;
    slots_[i] = {e->keyHash, e};
    ++size_;
}

void EventIndex::erase(const UEvent* e) {
    if (slots_.empty()) return;
    size_t mask = slots_.size() - 1;
    for (size_t i = e->keyHash & mask; slots_[i].e; i = (i + 1) & mask)
        if (slots_[i].e == e) {
            slots_[i].e = tombstone();
            --size_;
            return;
        }
}

void EventIndex::grow() {
    // Twice the live events (tombstones are dropped), at least 1024 slots.
    size_t cap = 1024;
    while (cap < 4 * (size_ + 1)) cap *= 2;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{});
    used_ = size_ = 0;
    for (const Slot& s : old)
        if (s.e && s.e != tombstone()) insert(s.e);
}

} // namespace skein::explore::unfolding
