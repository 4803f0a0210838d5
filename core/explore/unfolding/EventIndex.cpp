#include "core/explore/unfolding/EventIndex.h"

#include <algorithm>

#include "core/explore/unfolding/Event.h"

namespace skein::explore::unfolding {


namespace {
// The 128-bit product of a and b, folded to 64 bits (wyhash's "mum"): one multiplication that spreads every bit of
// both inputs over the result.
uint64_t mum(uint64_t a, uint64_t b) {
    unsigned __int128 p = (unsigned __int128)a * b;
    return uint64_t(p) ^ uint64_t(p >> 64);
}
} // namespace

EventIndex::Fingerprint EventIndex::fingerprint(std::span<const uint64_t> key) {
    // Two hashes of different construction over the words: FNV-1a (folded, since the low bits pick the slot) and a
    // polynomial in another odd multiplier, finished by a folded 128-bit product. The key's length is in both.
    uint64_t h = 1469598103934665603ull ^ key.size();
    uint64_t c = 0x243f6a8885a308d3ull ^ key.size();
    for (uint64_t v : key) {
        h = (h ^ v) * 1099511628211ull;
        c = (c + v) * 0x9e3779b97f4a7c15ull;
    }
    return {h ^ (h >> 29), mum(c ^ (c >> 32), 0xa0761d6478bd642full)};
}

void EventIndex::insert(UEvent* e, uint64_t check) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    size_t i = e->keyHash & mask;
    while (slots_[i].e && slots_[i].e != tombstone()) i = (i + 1) & mask;
    if (!slots_[i].e) ++used_;
    slots_[i] = {e->keyHash, check, e};
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
    // Four slots per live event (tombstones are dropped), at least 64: a small exploration's table stays a few KB.
    size_t cap = 64;
    while (cap < 4 * (size_ + 1)) cap *= 2;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{});
    used_ = size_ = 0;
    for (const Slot& s : old)
        if (s.e && s.e != tombstone()) insert(s.e, s.check);
}

} // namespace skein::explore::unfolding
