#include "core/explore/unfolding/Segments.h"

#include <algorithm>
#include <cstddef>

namespace skein::explore::unfolding {

Segments::Object* Segments::add(uint32_t id, bool words) {
    Object& o = objects_.emplace_back();
    o.id = id;
    o.words = words;
    auto place = [this](uint32_t oid, uint32_t index) {
        const size_t mask = table_.size() - 1;
        size_t j = (oid * 0x9E3779B1u) & mask;
        while (table_[j].index) j = (j + 1) & mask;
        table_[j] = {oid, index};
    };
    if (2 * objects_.size() > table_.size()) { // at most half full: grow, and place every object again
        table_.assign(2 * table_.size(), Slot{0, 0});
        for (size_t k = 0; k < objects_.size(); ++k) place(objects_[k].id, uint32_t(k + 1));
    } else {
        place(id, uint32_t(objects_.size()));
    }
    return &o;
}

size_t Segments::indexOf(const Object& o, uint64_t x) {
    return size_t(std::lower_bound(o.cuts.begin(), o.cuts.end(), x) - o.cuts.begin());
}

bool Segments::cut(Object& o, uint32_t id, uint64_t x) {
    const size_t i = indexOf(o, x);
    if (i < o.cuts.size() && o.cuts[i] == x) return true;
    // x lies in segment i - 1 when 0 < i < size; before the first cut or after the last, no access has been.
    if ((i > 0 && i < o.cuts.size() && o.used[i - 1]) || o.cuts.size() >= kMaxCuts) {
        pending_.emplace_back(id, o.cuts.size() >= kMaxCuts ? kNoCut : x);
        return false;
    }
    // Both halves of an unused segment are unused.
    o.cuts.insert(o.cuts.begin() + std::ptrdiff_t(i), x);
    o.used.insert(o.used.begin() + std::ptrdiff_t(i), 0);
    return true;
}

bool Segments::restart() {
    if (pending_.empty()) return false;
    for (const auto& [id, x] : pending_) {
        Object& o = *find(id);
        if (x == kNoCut || o.cuts.size() >= kMaxCuts) {
            o.words = true;
            o.cuts.clear();
            o.used.clear();
        } else if (!o.words) {
            auto it = std::lower_bound(o.cuts.begin(), o.cuts.end(), x);
            if (it == o.cuts.end() || *it != x) o.cuts.insert(it, x);
        }
    }
    pending_.clear();
    if (++restarts_ >= kMaxRestarts) allWords_ = true;
    return true;
}

void Segments::startExploration() {
    pending_.clear();
    for (Object& o : objects_) o.used.assign(o.cuts.size(), 0);
}

size_t Segments::segmentedObjects() const {
    if (allWords_) return 0;
    return size_t(std::count_if(objects_.begin(), objects_.end(), [](const Object& o) { return !o.words; }));
}

} // namespace skein::explore::unfolding
