#pragma once
// A visible event: the label the executor hands to an explorer for every operation that can interfere with
// another thread (QPOR Sec. 2 "actions"; VC-DPOR Sec. 2 "events"). Plain data: no LLVM, no JSON.
#include <cstdint>
#include <string_view>
#include <utility>

namespace skein::model {

using ThreadId = uint32_t;
inline constexpr ThreadId kNoThread = ~0u;
// Memory locations for dependence are aligned words of this many bytes (see model::dependent).
inline constexpr uint64_t kWordSize = 4;
// Addresses are an object id above this many bits and a byte offset below (program::makePointer).
inline constexpr unsigned kObjectShift = 32;

enum class EventKind : uint8_t {
#define SKEIN_EVENT(Name, Wire, Mem) Name,
#include "core/model/Events.def"
};

std::string_view eventKindName(EventKind k);
bool isMemoryAccess(EventKind k);

struct Event {
    EventKind kind = EventKind::Read;
    // Flags in one byte, so that an event stays 64 bytes (the unfolding's UEvent embeds one and fills 256).
    bool atomic : 1 = false;   // an atomic access (C11/GCC atomics, SV-COMP atomic sections do not count)
    bool rmwWrote : 1 = true;  // Rmw: false for a failed compare-exchange (then it only reads)
    bool builtin : 1 = false;  // a library function's access (memcpy, memset, strlen, ...): `value` is not the bytes
    bool cas : 1 = false;      // Rmw: a compare-exchange, which may fail; `addr2` holds the value it expects
    // Performing it failed its thread (a misuse: a lock of a destroyed mutex, an init of a held one): the object's
    // state is as before it (qpor's mutexFreeAfter and waitersAt skip it). Set by Executor::step.
    bool failed : 1 = false;
    uint32_t size = 0;      // bytes accessed (memory events)
    uint32_t size2 = 0;     // Copy: bytes read at addr2; Read: a second range read at addr2 (strcmp), or 0
    ThreadId tid = 0;
    uint32_t indexInThread = 0; // position in the thread's program order, from 0
    uint32_t loc = 0;           // index into Program::locations
    uint64_t addr = 0;          // memory address; mutex/cond address; for create/join the other thread id
    uint64_t addr2 = 0;         // CondWait: the mutex released; Copy/Read: second (read) range; Rmw with `cas`:
                                // the expected value (masked to `size`), known before the event runs
    uint64_t value = 0;         // read / old value, written value for Write, chosen value for Nondet
    uint64_t value2 = 0;        // Rmw: the value written (equal to `value` when a failed CAS writes nothing);
                                // Free: 1 when it is a realloc (which also reads the object to copy it)

    bool reads() const { return kind == EventKind::Read || kind == EventKind::Rmw || kind == EventKind::Copy; }
    bool writes() const {
        return kind == EventKind::Write || kind == EventKind::Free || kind == EventKind::Copy ||
               (kind == EventKind::Rmw && rmwWrote);
    }
    // The byte range this event writes (empty when it writes nothing).
    std::pair<uint64_t, uint64_t> writeRange() const {
        return writes() ? std::pair{addr, addr + size} : std::pair{addr, addr};
    }
    // Up to two ranges it reads.
    std::pair<uint64_t, uint64_t> readRange(int which) const {
        if (kind == EventKind::Copy) return which == 0 ? std::pair{addr2, addr2 + size2} : std::pair{addr2, addr2};
        if (kind == EventKind::Read) return which == 0 ? std::pair{addr, addr + size} : std::pair{addr2, addr2 + size2};
        if (kind == EventKind::Rmw && which == 0) return {addr, addr + size};
        return {addr, addr};
    }
    // A string function (strlen, strcpy, strcat, strcmp, ...) reads up to a NUL, so the bytes it touches depend on
    // the bytes it finds; its ranges above are those of the state it ran in. `span` / `span2` are the sizes of the
    // objects holding addr / addr2 (0 for every other event: their ranges do not depend on memory).
    uint32_t span = 0, span2 = 0;
    // The footprint for dependence: the ranges, or for a string function the whole objects they lie in. An
    // action's dependence may not depend on the state (QPOR Sec. 2: independence is a relation on actions, and
    // a Mazurkiewicz trace is a class under it), and which bytes strlen reads does: strlen commutes with a write
    // past the NUL in one state and not in another, where that byte is the NUL.
    std::pair<uint64_t, uint64_t> writeFootprint() const { return widen(writeRange(), span); }
    std::pair<uint64_t, uint64_t> readFootprint(int which) const {
        return widen(readRange(which), kind == EventKind::Copy || which == 1 ? span2 : span);
    }
    bool isMemory() const { return isMemoryAccess(kind); }
    bool isMutexOp() const {
        return kind == EventKind::Lock || kind == EventKind::TryLock || kind == EventKind::Unlock ||
               kind == EventKind::CondWait;
    }
    bool isSemaphoreOp() const {
        return kind == EventKind::SemWait || kind == EventKind::SemTryWait || kind == EventKind::SemPost ||
               kind == EventKind::SemGetValue;
    }
    bool isBarrierOp() const { return kind == EventKind::BarrierArrive || kind == EventKind::BarrierLeave; }
    bool isRwLockOp() const {
        return kind == EventKind::RwLock || kind == EventKind::RwTryLock || kind == EventKind::RwUnlock;
    }
    // SyncInit's and SyncDestroy's value2: which kind of object it initialises or destroys.
    static constexpr uint64_t kSemaphore = 0, kRwLock = 1, kBarrier = 2, kMutex = 3, kCond = 4;
    // The initialisation or destruction of a semaphore, reader-writer lock or barrier once other threads exist: it
    // sets or ends the object's whole state.
    bool isSyncObjectLifecycle() const {
        return (kind == EventKind::SyncInit || kind == EventKind::SyncDestroy) && value2 <= kBarrier;
    }
    // An operation on a semaphore, reader-writer lock or barrier, or its initialisation or destruction.
    bool isSyncObjectOp() const { return isSemaphoreOp() || isRwLockOp() || isBarrierOp() || isSyncObjectLifecycle(); }
    bool isMutexInit() const { return kind == EventKind::SyncInit && value2 == kMutex; }
    bool isMutexDestroy() const { return kind == EventKind::SyncDestroy && value2 == kMutex; }
    // A mutex's initialisation or destruction once other threads exist: it sets or ends the mutex's whole state.
    bool isMutexLifecycle() const { return isMutexInit() || isMutexDestroy(); }
    bool isCondDestroy() const { return kind == EventKind::SyncDestroy && value2 == kCond; }
    // A condition variable's initialisation or destruction once other threads exist.
    bool isCondLifecycle() const {
        return (kind == EventKind::SyncInit || kind == EventKind::SyncDestroy) && value2 == kCond;
    }

private:
    // [lo, hi) widened to its whole object (the address with its offset bits cleared: kObjectShift).
    static std::pair<uint64_t, uint64_t> widen(std::pair<uint64_t, uint64_t> r, uint32_t objectSize) {
        if (!objectSize || r.first >= r.second) return r;
        const uint64_t base = r.first >> kObjectShift << kObjectShift;
        return {base, base + objectSize};
    }
};
static_assert(sizeof(Event) == 64, "model::Event grew: the unfolding's UEvent (256 bytes) embeds one");


// The standard dependence used for Mazurkiewicz traces (issue 2): accesses to overlapping memory with a write
// among them; operations on the same mutex or condition variable; thread-lifecycle edges; program exit with
// everything. Same-thread events are ordered by program order, not by this relation.
bool dependent(const Event& a, const Event& b);

} // namespace skein::model
