#pragma once
// Which bytes a memory Resource of qpor stands for (DESIGN.md, "Segments").
//
// A resource per 4-byte word (model::kWordSize) makes a calloc, memset, memcpy or free of a large buffer an event
// with an access, a tree node and a summary entry per word: three workers over a 1 MB buffer took 488 MB. Most
// such buffers are only ever touched by a few large operations and a few small ones, so an object whose first
// access spans more than kLargeAccess bytes is cut into *segments* instead: maximal runs of words that no access
// of the exploration touches in part. A segment is one resource, named by its first word's address; each access
// covers whole segments, so two accesses share a resource exactly when they share a word — the dependence of
// Sec. 2 is unchanged, and with it every count (the differential tests compare with dfs, whose dependence is
// per word).
//
// The cuts are learned as the exploration meets accesses. A cut inside a segment no access has used yet costs
// nothing; a cut inside a used one would change resources that events already have, so the exploration stops and
// starts over with the cut (as it does when an atomic section's footprint grows: explore()). An object cut more
// than kMaxCuts times falls back to a resource per word, and after kMaxRestarts restarts every object does.
// Objects first touched by a small access keep a resource per word from the start: no restart can come from them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/model/Event.h"

namespace skein::explore::unfolding {

class Segments {
public:
    static constexpr uint64_t kWord = model::kWordSize;
    static constexpr uint64_t kLargeAccess = 64; // bytes: up to 16 words an object keeps a resource per word
    static constexpr size_t kMaxCuts = 64;      // per object, over all restarts
    static constexpr uint32_t kMaxRestarts = 16;

    // `enabled` false: a resource per word for every object (ExploreOptions::qporSegments).
    explicit Segments(bool enabled = true) : allWords_(!enabled) {
        table_.assign(16, Slot{0, 0});
        objects_.reserve(8);
    }

    // Calls f(resource address) for each resource an access of [addr, addr + size) covers, ascending. Returns false
    // when the access needs a cut inside a segment that an earlier access of this exploration used: the exploration
    // must start over (restart() applies the cut). The access is given its words then — a key space of its own for
    // a segmented object, which is harmless only because the exploration is discarded.
    // `objectSize` (called at the object's first access only) gives the size of the object addr points into, or 0
    // when unknown (an object a section's trial run allocated): the access's size decides then.
    template <class F, class S> bool forEach(uint64_t addr, uint64_t size, S objectSize, F f) {
        if (size == 0) return true;
        Object* o = allWords_ ? nullptr : object(uint32_t(addr >> 32), size, objectSize);
        if (!o || o->words) {
            forEachWord(addr, size, f);
            return true;
        }
        const uint64_t base = addr & ~uint64_t(0xffffffff), off = addr - base;
        const uint64_t lo = off & ~(kWord - 1), hi = (std::min(off + size, uint64_t(1) << 32) + kWord - 1) & ~(kWord - 1);
        const bool loCut = cut(*o, uint32_t(addr >> 32), lo), hiCut = cut(*o, uint32_t(addr >> 32), hi); // both
        if (!loCut || !hiCut) {
            forEachWord(addr, size, f);
            return false;
        }
        for (size_t i = indexOf(*o, lo); i < o->cuts.size() && o->cuts[i] < hi; ++i) {
            o->used[i] = 1;
            f(base | o->cuts[i]);
        }
        return true;
    }
    // Before the exploration starts over: applies the cuts found to be needed. True when a cut (or a fall-back to
    // words) was applied — knowledge keyed by resources (atomic sections' footprints) is then stale.
    bool restart();
    // Whether the object addr points into has its known resource per word (an object with no record yet is not
    // known to: the caller cannot tell which resource a word is then).
    bool perWord(uint64_t addr) {
        if (allWords_) return true;
        const Object* o = find(uint32_t(addr >> 32));
        return o && o->words;
    }
    // At the start of every exploration: no segment is used yet.
    void startExploration();
    uint32_t restarts() const { return restarts_; }
    size_t segmentedObjects() const;

private:
    struct Object {
        uint32_t id = 0;
        bool words = true;          // a resource per word
        std::vector<uint64_t> cuts; // ascending offsets; segment i is [cuts[i], cuts[i + 1])
        std::vector<uint8_t> used;  // used[i]: segment i stood for an access in this exploration
    };
    struct Slot {
        uint32_t id;
        uint32_t index; // into objects_, + 1 (0: empty)
    };
    std::vector<Slot> table_; // open addressing by object id, a power of two, at most half full
    std::vector<Object> objects_;
    std::vector<std::pair<uint32_t, uint64_t>> pending_; // (object, cut) — kNoCut: fall back to words
    static constexpr uint64_t kNoCut = UINT64_MAX;
    bool allWords_ = false;
    uint32_t restarts_ = 0;

    // f(word) for each 4-byte word [addr, addr + size) touches: the dependence granularity (model::kWordSize,
    // which model::dependent uses too), and the resources of an object kept per word.
    template <class F> static void forEachWord(uint64_t addr, uint64_t size, F f) {
        for (uint64_t a = addr & ~(kWord - 1); a < addr + size; a += kWord) f(a);
    }
    // The object's record, made at its first access: segments when the object or that access spans more than
    // kLargeAccess bytes. Null for no object.
    template <class S> Object* object(uint32_t id, uint64_t accessSize, S objectSize) {
        if (id == 0) return nullptr; // a null pointer: no object (the access fails)
        if (Object* o = find(id)) return o;
        return add(id, std::max(accessSize, uint64_t(objectSize())) <= kLargeAccess);
    }
    Object* find(uint32_t id) { // inline: every memory access of an event looks its object up
        const size_t mask = table_.size() - 1;
        for (size_t i = (id * 0x9E3779B1u) & mask; table_[i].index; i = (i + 1) & mask)
            if (table_[i].id == id) return &objects_[table_[i].index - 1];
        return nullptr;
    }
    Object* add(uint32_t id, bool words);
    static size_t indexOf(const Object& o, uint64_t x);
    // Makes x a cut of o; false (and x pending) when x falls inside a used segment.
    bool cut(Object& o, uint32_t id, uint64_t x);
};

} // namespace skein::explore::unfolding
