#pragma once
// A map from resources to records whose first N records live in the map itself, found by a scan; the rest in a hash
// map. A small program touches a handful of words and objects, and there the hash map's node and bucket allocations
// and its division by the bucket count were a good part of C's bookkeeping and of linking an event into U's trees
// (bench/README.md, thirty-fifth session). Records never move once made (the first N stay in place; the hash map's
// nodes do not move), so callers may keep pointers to them; records are never erased.
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "core/explore/unfolding/Event.h"

namespace skein::explore::unfolding {

template <class V, uint32_t N> class ResourceMap {
public:
    ResourceMap() = default;
    ResourceMap(const ResourceMap&) = delete; // callers point at the records
    ResourceMap& operator=(const ResourceMap&) = delete;

    V* find(const Resource& r) {
        for (uint32_t i = 0; i < n_; ++i)
            if (keys_[i] == r) return &values_[i];
        if (rest_.empty()) return nullptr;
        auto it = rest_.find(r);
        return it == rest_.end() ? nullptr : &it->second;
    }
    const V* find(const Resource& r) const { return const_cast<ResourceMap*>(this)->find(r); }
    // r's record, made (value-initialised) when absent.
    V& operator[](const Resource& r) {
        if (V* v = find(r)) return *v;
        if (n_ < N) {
            keys_[n_] = r;
            return values_[n_++];
        }
        return rest_[r];
    }
    size_t size() const { return n_ + rest_.size(); }

private:
    uint32_t n_ = 0;
    std::array<Resource, N> keys_{};
    std::array<V, N> values_{};
    std::unordered_map<Resource, V, ResourceHash> rest_;
};

} // namespace skein::explore::unfolding
