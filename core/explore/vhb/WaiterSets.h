#pragma once
// The value of a condition variable's location in the vhb explorer: the set of its waiting threads (DESIGN.md
// "Condition variables"). A set of threads numbered below 63 is its bitmask (bit 63 clear), so that the common
// case costs no look-up; any other set is interned in a process-wide append-only table and is (1 << 63 | its
// index). Equal sets get equal values either way, which is all the explorer compares.
#include <cstdint>
#include <vector>

#include "core/model/Event.h"

namespace skein::explore::vhb {

constexpr uint64_t kInternedWaiters = uint64_t(1) << 63;

uint64_t encodeWaiters(const std::vector<model::ThreadId>& sorted); // ascending, no repeats
std::vector<model::ThreadId> decodeWaiters(uint64_t waiters);
bool internedHasWaiter(uint64_t waiters, model::ThreadId t);

inline bool hasWaiter(uint64_t waiters, model::ThreadId t) {
    if (!(waiters & kInternedWaiters)) return t < 63 && ((waiters >> t) & 1);
    return internedHasWaiter(waiters, t);
}

// The set with t added / removed.
uint64_t withWaiter(uint64_t waiters, model::ThreadId t);
uint64_t withoutWaiter(uint64_t waiters, model::ThreadId t);

} // namespace skein::explore::vhb
