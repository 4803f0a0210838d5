#include "core/model/Event.h"

namespace skein::model {

std::string_view eventKindName(EventKind k) {
    switch (k) {
#define SKEIN_EVENT(Name, Wire, Mem)                                                                         \
    case EventKind::Name:                                                                                    \
        return Wire;
#include "core/model/Events.def"
    }
    return "?";
}

bool isMemoryAccess(EventKind k) {
    switch (k) {
#define SKEIN_EVENT(Name, Wire, Mem)                                                                         \
    case EventKind::Name:                                                                                    \
        return Mem;
#include "core/model/Events.def"
    }
    return false;
}

bool dependent(const Event& a, const Event& b) {
    // ProgramExit only ends its own thread (the executor lets the others run on): it conflicts with nothing.
    if (a.kind == EventKind::ProgramExit || b.kind == EventKind::ProgramExit) return false;
    if (a.isMemory() && b.isMemory()) {
        // Locations are 4-byte words (kWordSize): two accesses to one word are dependent even when their bytes
        // differ. The unfolding explorer uses the same granularity, so both count the same traces.
        auto meet = [](std::pair<uint64_t, uint64_t> x, std::pair<uint64_t, uint64_t> y) {
            if (x.first >= x.second || y.first >= y.second) return false;
            uint64_t xl = x.first & ~uint64_t(kWordSize - 1), xh = (x.second + kWordSize - 1) & ~uint64_t(kWordSize - 1);
            uint64_t yl = y.first & ~uint64_t(kWordSize - 1), yh = (y.second + kWordSize - 1) & ~uint64_t(kWordSize - 1);
            return xl < yh && yl < xh;
        };
        auto wa = a.writeFootprint(), wb = b.writeFootprint();
        if (meet(wa, wb)) return true;
        for (int k = 0; k < 2; ++k)
            if (meet(wa, b.readFootprint(k)) || meet(wb, a.readFootprint(k))) return true;
        return false;
    }
    if (a.isMemory() || b.isMemory()) return false;
    // An initialisation sets its object's whole state, a destruction ends it: either conflicts with every operation
    // on the object (a mutex's: its locks and unlocks, the waits that release it, its other inits and destroys).
    if (a.isMutexLifecycle() || b.isMutexLifecycle()) {
        const Event& life = a.isMutexLifecycle() ? a : b;
        const Event& other = &life == &a ? b : a;
        if (other.isMutexLifecycle()) return other.addr == life.addr;
        const bool releases = other.kind == EventKind::CondWait && other.addr2 == life.addr; // the wait's mutex
        return other.isMutexOp() && (other.addr == life.addr || releases);
    }
    // A condition variable's initialisation or destruction: with its waits (one that waits makes either a misuse),
    // signals, broadcasts, inits and destroys.
    if (a.isCondLifecycle() || b.isCondLifecycle()) {
        const Event& life = a.isCondLifecycle() ? a : b;
        const Event& other = &life == &a ? b : a;
        const bool condOp = other.kind == EventKind::CondWait || other.kind == EventKind::CondSignal ||
                            other.kind == EventKind::CondBroadcast || other.isCondLifecycle();
        return condOp && other.addr == life.addr;
    }
    if (a.isSyncObjectLifecycle() || b.isSyncObjectLifecycle()) { // a semaphore's, lock's or barrier's
        const Event& life = a.isSyncObjectLifecycle() ? a : b;
        const Event& other = &life == &a ? b : a;
        return other.isSyncObjectOp() && other.addr == life.addr;
    }
    // Operations on one semaphore: a wait or trywait may disable or fail another, a post enables one; two posts
    // only add, and commute. sem_getvalue reads what every other operation changes — and two of them are taken as
    // dependent too (qpor's semaphore word then needs no third kind of access besides reads and writes).
    if (a.isSemaphoreOp() || b.isSemaphoreOp())
        return a.isSemaphoreOp() && b.isSemaphoreOp() && a.addr == b.addr &&
               !(a.kind == EventKind::SemPost && b.kind == EventKind::SemPost);
    // A reader-writer lock's operations in read mode commute with each other (a read acquisition is enabled by the
    // absence of a writer alone); one in write mode conflicts with every operation on the lock.
    if (a.isRwLockOp() || b.isRwLockOp())
        return a.isRwLockOp() && b.isRwLockOp() && a.addr == b.addr && (a.value2 == 1 || b.value2 == 1);
    // One barrier's arrivals decide its rounds (and which thread is the serial one), and a departure waits for the
    // arrivals of its own round (value2); an arrival of a later round, or another departure, commutes with it.
    if (a.isBarrierOp() || b.isBarrierOp()) {
        if (!a.isBarrierOp() || !b.isBarrierOp() || a.addr != b.addr) return false;
        if (a.kind == EventKind::BarrierArrive && b.kind == EventKind::BarrierArrive) return true;
        if (a.kind == EventKind::BarrierLeave && b.kind == EventKind::BarrierLeave) return false;
        return a.value2 == b.value2;
    }
    auto syncish = [](const Event& e) {
        return e.isMutexOp() || e.kind == EventKind::CondSignal || e.kind == EventKind::CondBroadcast;
    };
    if (syncish(a) && syncish(b)) {
        // A CondWait touches two objects: the condition variable and the mutex it releases.
        auto touches = [](const Event& e, uint64_t obj) {
            return e.addr == obj || (e.kind == EventKind::CondWait && e.addr2 == obj);
        };
        return touches(b, a.addr) || (a.kind == EventKind::CondWait && touches(b, a.addr2));
    }
    // create(t) precedes t's events and t's last event precedes join(t): causal edges, not conflicts (they are
    // added by whoever builds the happens-before order).
    return false;
}

} // namespace skein::model
