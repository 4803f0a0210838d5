#include "core/explore/vhb/WaiterSets.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

namespace skein::explore::vhb {

namespace {
// Append-only: an index, once given, names the same set for the life of the process (explorers run on several
// threads of the language server at once, hence the lock; sets of 63 threads or more are rare).
struct Table {
    std::mutex m;
    std::deque<std::vector<model::ThreadId>> sets;
    std::map<std::vector<model::ThreadId>, uint64_t> index;
};
Table& table() {
    static Table t;
    return t;
}
} // namespace

uint64_t encodeWaiters(const std::vector<model::ThreadId>& sorted) {
    if (sorted.empty() || sorted.back() < 63) {
        uint64_t v = 0;
        for (model::ThreadId t : sorted) v |= uint64_t(1) << t;
        return v;
    }
    Table& tb = table();
    std::lock_guard lock(tb.m);
    auto [it, fresh] = tb.index.try_emplace(sorted, tb.sets.size());
    if (fresh) tb.sets.push_back(sorted);
    return kInternedWaiters | it->second;
}

std::vector<model::ThreadId> decodeWaiters(uint64_t waiters) {
    if (waiters & kInternedWaiters) {
        Table& tb = table();
        std::lock_guard lock(tb.m);
        return tb.sets.at(waiters & ~kInternedWaiters);
    }
    std::vector<model::ThreadId> out;
    for (model::ThreadId t = 0; t < 63; ++t)
        if ((waiters >> t) & 1) out.push_back(t);
    return out;
}

bool internedHasWaiter(uint64_t waiters, model::ThreadId t) {
    Table& tb = table();
    std::lock_guard lock(tb.m);
    const auto& s = tb.sets.at(waiters & ~kInternedWaiters);
    return std::binary_search(s.begin(), s.end(), t);
}

uint64_t withWaiter(uint64_t waiters, model::ThreadId t) {
    if (!(waiters & kInternedWaiters) && t < 63) return waiters | (uint64_t(1) << t);
    std::vector<model::ThreadId> s = decodeWaiters(waiters);
    if (auto it = std::lower_bound(s.begin(), s.end(), t); it == s.end() || *it != t) s.insert(it, t);
    return encodeWaiters(s);
}

uint64_t withoutWaiter(uint64_t waiters, model::ThreadId t) {
    if (!(waiters & kInternedWaiters)) return t < 63 ? waiters & ~(uint64_t(1) << t) : waiters;
    std::vector<model::ThreadId> s = decodeWaiters(waiters);
    if (auto it = std::lower_bound(s.begin(), s.end(), t); it != s.end() && *it == t) s.erase(it);
    return encodeWaiters(s); // (a bitmask again when what is left fits)
}

} // namespace skein::explore::vhb
