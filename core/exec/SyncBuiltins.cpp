// Builtins of the synchronisation objects beyond mutexes and condition variables (Builtins.cpp has the rest): POSIX
// semaphores, barriers and reader-writer locks, whose state is kept in their own bytes (Executor::syncWord), and
// pthread_once / call_once, a lock on the once object around the first caller's init routine. Each operation is an
// event; which explorers model which object: Executor::syncUse.
#include <algorithm>
#include <cstring>

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using model::EventKind;
using program::Builtin;
using program::Instr;

bool Executor::callSyncBuiltin(ThreadId t, const Instr& in) {
    const BuiltinSite site(*threads_[t], program_, in);
    Thread& th = site.th;
    auto A = [&](uint32_t k) { return site.arg(k); };
    auto done = [&](uint64_t v) { return site.done(v); };
    auto pending = [&](Event ev) {
        setPending(t, ev);
        return false;
    };
    auto objectBytes = [&](uint64_t p, uint64_t n) { return checkedBytes(t, p, n, true); };
    const auto b = Builtin(in.aux);
    // Once another thread exists, an initialisation may race with its operations on the object (a post before the
    // init is lost, after it counts): it is an event then, dependent with every operation on the object, so that
    // every explorer orders it with them (performSyncBuiltin sets the state). Before, no other thread can see it.
    auto lateInit = [&](uint64_t object, uint64_t value) {
        syncUse_ |= kSyncInitLate; // qpor derives an object's state from an initialisation every history holds
        Event ev;
        ev.kind = EventKind::SyncInit;
        ev.addr = A(0);
        ev.value = value;
        ev.value2 = object;
        return pending(ev);
    };
    switch (b) {
    case Builtin::Once: {
        // pthread_once(o, init), call_once(o, init): a lock on o (a mutex of its own at that address), under which
        // the first caller runs init and marks o done; a later caller finds it done and unlocks, after init has
        // finished — as glibc, where it waits for the running init. Two events per call, a mutex's, so every
        // explorer orders the calls as it orders critical sections. The flag (o's word: 0 new, 1 done) is read and
        // written only under that lock: no event is needed for it (ExecutorImpl.h, Thread::onceInits).
        if (!th.onceInits.empty() && th.onceInits.back() == std::pair{A(0), uint32_t(th.frames.size())}) {
            th.onceInits.pop_back(); // init returned (Frame::reenter): o is done; release it
            setSyncWord(A(0), 1);
            Event ev;
            ev.kind = EventKind::Unlock;
            ev.addr = A(0);
            return pending(ev);
        }
        if (!objectBytes(A(0), 4)) return false;
        const uint32_t f = program_.functionAt(A(1));
        if (f == ~0u || !program_.functions[f].defined) {
            fail(t, report::ErrorKind::PthreadMisuse, "pthread_once with an invalid init routine");
            return false;
        }
        syncUse_ |= kUsesOnce;
        Event ev;
        ev.kind = EventKind::Lock;
        ev.addr = A(0);
        return pending(ev);
    }
    case Builtin::SemInit: { // sem_init(s, pshared, value): process-shared or not, one process here
        if (uint32_t(A(2)) > 0x7FFFFFFFu) { // above SEM_VALUE_MAX
            setErrno(t, kEINVAL);
            return done(uint64_t(-1));
        }
        if (!objectBytes(A(0), 4)) return false;
        if (numThreads() > 1) return lateInit(Event::kSemaphore, A(2));
        initSyncObject(b, A(0), A(2));
        return done(0);
    }
    case Builtin::BarrierInit: { // pthread_barrier_init(b, attr, count): its size, no arrivals, round 0
        if (uint32_t(A(2)) == 0) return done(kEINVAL);
        if (!objectBytes(A(0), 12)) return false;
        if (numThreads() > 1) return lateInit(Event::kBarrier, A(2));
        initSyncObject(b, A(0), A(2));
        return done(0);
    }
    case Builtin::BarrierWait: { // two events: the arrival, then (th.phase 1) the departure once the round is full
        if (!objectBytes(A(0), 12)) return false;
        syncUse_ |= kUsesBarrier;
        Event ev;
        ev.kind = th.phase == 0 ? EventKind::BarrierArrive : EventKind::BarrierLeave;
        ev.addr = A(0);
        // The round: a departure's is its arrival's; an arrival's, until it happens, the one its thread's own
        // arrivals make it (checked when it happens: kBarrierRoundsVary).
        ev.value2 = th.phase ? th.barrierRound : th.arrivalsAt(A(0));
        return pending(ev);
    }
    case Builtin::RwInit: // pthread_rwlock_init(l, attr): no readers (byte 0), no writer (byte 4: its thread + 1)
        if (!objectBytes(A(0), 8)) return false;
        if (numThreads() > 1) return lateInit(Event::kRwLock, 0);
        initSyncObject(b, A(0), 0);
        return done(0);
    case Builtin::RwRdLock:
    case Builtin::RwWrLock:
    case Builtin::RwTryRdLock:
    case Builtin::RwTryWrLock:
    case Builtin::RwUnlock: {
        if (!objectBytes(A(0), 8)) return false;
        syncUse_ |= kUsesRwLock;
        Event ev;
        ev.addr = A(0);
        if (b == Builtin::RwUnlock) {
            // Which lock it releases is the thread's own business (only it takes or leaves its holds).
            uint32_t writer = 0;
            syncWord(A(0) + 4, writer);
            auto held = th.readHold(A(0));
            if (writer != t + 1 && held == th.readHolds.end()) {
                fail(t, report::ErrorKind::PthreadMisuse,
                     "unlock of reader-writer lock `" + memory_.describe(A(0)) + "` that this thread does not hold");
                return false;
            }
            ev.kind = EventKind::RwUnlock;
            ev.value2 = writer == t + 1;
        } else {
            ev.kind = b == Builtin::RwRdLock || b == Builtin::RwWrLock ? EventKind::RwLock : EventKind::RwTryLock;
            ev.value2 = b == Builtin::RwWrLock || b == Builtin::RwTryWrLock;
        }
        return pending(ev);
    }
    case Builtin::SemDestroy:
    case Builtin::RwDestroy:
    case Builtin::BarrierDestroy: {
        if (!objectBytes(A(0), b == Builtin::SemDestroy ? 4 : b == Builtin::RwDestroy ? 8 : 12)) return false;
        // While another thread may still use the object, its operations may come before or after this: an event, as
        // pthread_mutex_destroy's (Builtins.cpp, MutexDestroy), performed by destroySyncObject. Not once the caller
        // has joined every other thread: none can touch the object then.
        if (othersJoinedBy(t)) return destroySyncObject(t, b, A(0)) && done(0);
        syncUse_ |= kSyncDestroyLate;
        Event ev;
        ev.kind = EventKind::SyncDestroy;
        ev.addr = A(0);
        ev.value2 = b == Builtin::SemDestroy ? Event::kSemaphore : b == Builtin::RwDestroy ? Event::kRwLock
                                                                                             : Event::kBarrier;
        return pending(ev);
    }
    case Builtin::SemWait:
    case Builtin::SemTryWait:
    case Builtin::SemPost:
    case Builtin::SemGetValue: {
        if (!objectBytes(A(0), 4)) return false;
        syncUse_ |= kUsesSemaphore;
        Event ev;
        ev.kind = b == Builtin::SemWait      ? EventKind::SemWait
                  : b == Builtin::SemTryWait ? EventKind::SemTryWait
                  : b == Builtin::SemPost    ? EventKind::SemPost
                                             : EventKind::SemGetValue;
        ev.addr = A(0);
        return pending(ev);
    }
    default: unsupported(t, std::string("synchronisation builtin ") + program::builtinName(b)); return false;
    }
}

// The state an initialisation gives a semaphore (its count), a barrier (its size; no arrivals, round 0) or a
// reader-writer lock (no readers, no writer). A destroyed one is usable again.
void Executor::initSyncObject(Builtin b, uint64_t addr, uint64_t value) {
    std::erase(syncDestroyed_, addr);
    switch (b) {
    case Builtin::SemInit: setSyncWord(addr, uint32_t(value)); return;
    case Builtin::BarrierInit:
        setSyncWord(addr, uint32_t(value));
        setSyncWord(addr + 4, 0);
        setSyncWord(addr + 8, 0);
        return;
    case Builtin::RwInit:
        setSyncWord(addr, 0);
        setSyncWord(addr + 4, 0);
        return;
    default: return;
    }
}

void Executor::performSyncBuiltin(ThreadId t, const Instr& in, Event& ev) {
    const BuiltinSite site(*threads_[t], program_, in);
    Thread& th = site.th;
    auto A = [&](uint32_t k) { return site.arg(k); };
    auto finish = [&](uint64_t v) { site.finish(v); };
    const auto b = Builtin(in.aux);
    if (!syncDestroyed_.empty() && !usableSyncObject(t, in, A(0))) return;
    switch (b) {
    case Builtin::SemDestroy: // late: an event (callSyncBuiltin)
    case Builtin::RwDestroy:
    case Builtin::BarrierDestroy:
        if (!destroySyncObject(t, b, A(0))) return;
        return finish(0);
    case Builtin::SemInit:
    case Builtin::BarrierInit:
    case Builtin::RwInit: { // a late initialisation (callSyncBuiltin, lateInit)
        // POSIX leaves the initialisation of an object in use undefined. A lock someone holds or a barrier someone
        // waits at is reported: re-initialised, the holder's unlock would find a lock it does not hold (a reader
        // count below 0), the waiter would wait for a round that no longer counts it. (A semaphore's count does not
        // tell whether it was initialised: sem_init just sets it — a lost post shows as the deadlock it causes.)
        uint32_t w0 = 0, w1 = 0;
        syncWord(A(0), w0);
        syncWord(A(0) + 4, w1);
        if (b == Builtin::RwInit && (w0 || w1)) {
            fail(t, report::ErrorKind::PthreadMisuse,
                 "pthread_rwlock_init of reader-writer lock `" + memory_.describe(A(0)) + "` while it is held");
            return;
        }
        bool waiting = false; // a thread between its arrival and its departure
        for (ThreadId u = 0; u < numThreads() && b == Builtin::BarrierInit; ++u)
            waiting = waiting || (u != t && thread(u).pending.kind == EventKind::BarrierLeave &&
                                  thread(u).pending.addr == A(0));
        if (b == Builtin::BarrierInit && waiting) {
            fail(t, report::ErrorKind::PthreadMisuse,
                 "pthread_barrier_init of barrier `" + memory_.describe(A(0)) + "` while threads wait at it");
            return;
        }
        initSyncObject(b, A(0), A(2));
        return finish(0);
    }
    case Builtin::Once: {
        if (ev.kind == EventKind::Unlock) {
            mutexes_[A(0)].owner = model::kNoThread;
            return finish(0);
        }
        mutexes_[A(0)].owner = t; // the lock (callBuiltin checked o and init)
        uint32_t state = 0;
        syncWord(A(0), state);
        ev.value = state == 0; // this call runs init
        if (state != 0) { // done: release o at once
            Event un;
            un.kind = EventKind::Unlock;
            un.addr = A(0);
            setPending(t, un);
            return;
        }
        const uint32_t f = program_.functionAt(A(1)); // (checked by the call)
        th.onceInits.push_back({A(0), uint32_t(th.frames.size())});
        if (pushFrame(t, f, nullptr, 0, program::kNoReg, 0, program_.functions[f].atomicSection))
            th.frames.back().reenter = true; // the thread runs init now (step); its return runs the call again
        return;
    }
    case Builtin::BarrierWait: {
        if (th.phase == 0) { // the arrival: the last one of a round completes it and is the serial thread
            uint32_t size = 1, arrived = 0, round = 0;
            syncWord(A(0), size);
            syncWord(A(0) + 4, arrived);
            syncWord(A(0) + 8, round);
            th.barrierRound = round;
            th.barrierSerial = arrived + 1 >= size;
            if (round != th.arrivalsAt(A(0))) syncUse_ |= kBarrierRoundsVary;
            auto own = std::find_if(th.barrierArrivals.begin(), th.barrierArrivals.end(),
                                    [&](const auto& b) { return b.first == A(0); });
            if (own == th.barrierArrivals.end()) th.barrierArrivals.push_back({A(0), 1});
            else ++own->second;
            ev.value = arrived + 1;
            ev.value2 = round;
            setSyncWord(A(0) + 4, th.barrierSerial ? 0 : arrived + 1);
            if (th.barrierSerial) setSyncWord(A(0) + 8, round + 1);
            th.phase = 1;
            Event leave;
            leave.kind = EventKind::BarrierLeave;
            leave.addr = A(0);
            leave.value2 = round;
            setPending(t, leave); // blocked until the round is complete (refreshView)
            return;
        }
        th.phase = 0;
        ev.value = th.barrierSerial;
        ev.value2 = th.barrierRound;
        return finish(th.barrierSerial ? uint64_t(-1) : 0); // PTHREAD_BARRIER_SERIAL_THREAD for one of them
    }
    case Builtin::RwRdLock:
    case Builtin::RwWrLock:
    case Builtin::RwTryRdLock:
    case Builtin::RwTryWrLock: { // (the blocking ones are enabled only when they can take the lock: refreshView)
        uint32_t readers = 0, writer = 0;
        syncWord(A(0), readers);
        syncWord(A(0) + 4, writer);
        const bool write = ev.value2 == 1;
        const bool free = writer == 0 && (!write || readers == 0);
        ev.value = free;
        if (!free) return finish(takenAnswer(in)); // a try that found the lock taken (a timed one timed out)
        if (write) {
            setSyncWord(A(0) + 4, t + 1);
        } else {
            setSyncWord(A(0), readers + 1);
            auto held = th.readHold(A(0));
            if (held == th.readHolds.end()) th.readHolds.push_back({A(0), 1});
            else ++held->second;
        }
        return finish(0);
    }
    case Builtin::RwUnlock: {
        if (ev.value2 == 1) {
            setSyncWord(A(0) + 4, 0);
            return finish(0);
        }
        uint32_t readers = 0;
        syncWord(A(0), readers);
        setSyncWord(A(0), readers - 1);
        auto held = th.readHold(A(0));
        if (--held->second == 0) th.readHolds.erase(held); // (callBuiltin checked that it holds one)
        return finish(0);
    }
    case Builtin::SemWait: { // enabled only while the count is above 0 (refreshView)
        uint32_t count = 0;
        syncWord(A(0), count);
        setSyncWord(A(0), count - 1);
        return finish(0);
    }
    case Builtin::SemTryWait: {
        uint32_t count = 0;
        syncWord(A(0), count);
        ev.value = count > 0;
        if (count == 0) {
            setErrno(t, in.imm & program::kTimedCall ? kETIMEDOUT : kEAGAIN);
            return finish(uint64_t(-1));
        }
        setSyncWord(A(0), count - 1);
        ++th.effects; // a spin loop's iteration that took a unit is not cut (Interpret.cpp, LoopBack)
        return finish(0);
    }
    case Builtin::SemPost: {
        uint32_t count = 0;
        syncWord(A(0), count);
        if (count == 0x7FFFFFFFu) { // SEM_VALUE_MAX
            setErrno(t, kEOVERFLOW);
            return finish(uint64_t(-1));
        }
        setSyncWord(A(0), count + 1);
        return finish(0);
    }
    case Builtin::SemGetValue: { // the count into *sval, as part of the event (as pthread_create's handle)
        uint32_t count = 0;
        syncWord(A(0), count);
        ev.value = count;
        uint8_t* bytes = checkedBytes(t, A(1), 4, true);
        if (!bytes) return;
        std::memcpy(bytes, &count, 4);
        return finish(0);
    }
    default: unsupported(t, std::string("visible builtin ") + program::builtinName(b)); return;
    }
}

// The end of a mutex or a condition variable (Builtins.cpp has their operations). pthread_mutex_destroy: the mutex is no mutex until an init; using it until then is a misuse, and so is destroying
// a locked one or one destroyed already (POSIX leaves all three undefined). False when it failed the thread.
bool Executor::destroyMutex(ThreadId t, uint64_t addr, const char* fn) {
    auto it = mutexes_.find(addr);
    const char* why = it == mutexes_.end()               ? nullptr
                      : it->second.owner != model::kNoThread ? "a locked mutex"
                      : it->second.destroyed                ? "a mutex destroyed already"
                                                            : nullptr;
    if (why) {
        fail(t, report::ErrorKind::PthreadMisuse,
             std::string(fn) + " of " + why + " `" + memory_.describe(addr) + "`");
        return false;
    }
    mutexes_[addr] = MutexState{model::kNoThread, 0, true};
    return true;
}

bool Executor::othersJoinedBy(ThreadId t) const {
    for (ThreadId x = 0; x < threads_.size(); ++x)
        if (x != t && !threads_[x]->absent && !(threads_[x]->joined && threads_[x]->firstJoiner == t)) return false;
    return true;
}

// pthread_cond_destroy: a misuse while threads wait on it or once destroyed already (POSIX: undefined), and a wait,
// signal or broadcast on it until an init is one too. False when it failed the thread.
bool Executor::destroyCond(ThreadId t, uint64_t addr, const char* fn) {
    auto it = condWaiters_.find(addr);
    const char* why = it != condWaiters_.end() && !it->second.empty() ? "a condition variable threads wait on"
                      : std::find(condsDestroyed_.begin(), condsDestroyed_.end(), addr) != condsDestroyed_.end()
                          ? "a condition variable destroyed already"
                          : nullptr;
    if (why) {
        fail(t, report::ErrorKind::PthreadMisuse,
             std::string(fn) + " of " + why + " `" + memory_.describe(addr) + "`");
        return false;
    }
    condsDestroyed_.push_back(addr);
    return true;
}

// pthread_cond_init: a destroyed condition variable is one again. Initialising one threads wait on is a misuse
// (POSIX leaves it undefined: the waiters would wait on a condition variable that no longer counts them). False when
// it failed the thread.
bool Executor::initCond(ThreadId t, uint64_t addr, const char* fn) {
    if (auto it = condWaiters_.find(addr); it != condWaiters_.end() && !it->second.empty()) {
        fail(t, report::ErrorKind::PthreadMisuse,
             std::string(fn) + " of a condition variable threads wait on `" + memory_.describe(addr) + "`");
        return false;
    }
    std::erase(condsDestroyed_, addr);
    return true;
}

bool Executor::usableCond(ThreadId t, uint64_t addr, const char* op) {
    if (std::find(condsDestroyed_.begin(), condsDestroyed_.end(), addr) == condsDestroyed_.end()) return true;
    fail(t, report::ErrorKind::PthreadMisuse,
         std::string(op) + " on a destroyed condition variable `" + memory_.describe(addr) + "`");
    return false;
}

// A lock, trylock or unlock of a destroyed mutex (destroyMutex): a misuse. False when it failed the thread.
bool Executor::usableMutex(ThreadId t, uint64_t addr, const char* op) {
    auto it = mutexes_.find(addr);
    if (it == mutexes_.end() || !it->second.destroyed) return true;
    fail(t, report::ErrorKind::PthreadMisuse, std::string(op) + " of a destroyed mutex `" + memory_.describe(addr) + "`");
    return false;
}

// sem_destroy, pthread_rwlock_destroy, pthread_barrier_destroy: the object is none until an init, and using it until
// then is a misuse (usableSyncObject), as is destroying a semaphore threads wait on, a held reader-writer lock, a
// barrier threads wait at (arrived in a round not yet complete), or an object destroyed already — POSIX leaves all
// of them undefined. False when it failed the thread.
bool Executor::destroySyncObject(ThreadId t, Builtin b, uint64_t addr) {
    bool busy = false;
    if (b == Builtin::RwDestroy) {
        uint32_t readers = 0, writer = 0;
        syncWord(addr, readers);
        syncWord(addr + 4, writer);
        busy = readers || writer;
    }
    for (ThreadId u = 0; u < numThreads() && !busy && b != Builtin::RwDestroy; ++u) {
        const ThreadView& v = thread(u);
        // Blocked: a departure whose round is complete may come after the destroy (a thread that returned from its
        // wait, often the serial one, destroying the barrier is the common idiom; POSIX: undefined while a thread
        // is blocked on it).
        const EventKind waitKind = b == Builtin::SemDestroy ? EventKind::SemWait : EventKind::BarrierLeave;
        busy = u != t && v.state == ThreadState::BlockedLock && v.pending.kind == waitKind && v.pending.addr == addr;
    }
    const bool sem = b == Builtin::SemDestroy, rw = b == Builtin::RwDestroy;
    const char* why = syncDestroyed(addr) ? (sem  ? "a semaphore destroyed already"
                                             : rw ? "a reader-writer lock destroyed already"
                                                  : "a barrier destroyed already")
                      : !busy             ? nullptr
                      : sem               ? "a semaphore threads wait on"
                      : rw                ? "a held reader-writer lock"
                                          : "a barrier threads wait at";
    if (why) {
        fail(t, report::ErrorKind::PthreadMisuse,
             std::string(program::builtinName(b)) + " of " + why + " `" + memory_.describe(addr) + "`");
        return false;
    }
    syncDestroyed_.push_back(addr);
    return true;
}

// An operation of a destroyed semaphore, reader-writer lock or barrier (destroySyncObject): a misuse. (Their inits
// and destroys are checked by themselves.) False when it failed the thread.
bool Executor::usableSyncObject(ThreadId t, const Instr& in, uint64_t addr) {
    const char* object = nullptr;
    switch (Builtin(in.aux)) {
    case Builtin::SemWait:
    case Builtin::SemTryWait:
    case Builtin::SemPost:
    case Builtin::SemGetValue: object = "semaphore"; break;
    case Builtin::RwRdLock:
    case Builtin::RwWrLock:
    case Builtin::RwTryRdLock:
    case Builtin::RwTryWrLock:
    case Builtin::RwUnlock: object = "reader-writer lock"; break;
    case Builtin::BarrierWait: // its arrival: the departure of a round complete before the destroy is not a use
        if (threads_[t]->phase != 0) return true;
        object = "barrier";
        break;
    default: return true;
    }
    if (!syncDestroyed(addr)) return true;
    fail(t, report::ErrorKind::PthreadMisuse,
         std::string(program::callName(in)) + " of a destroyed " + object + " `" + memory_.describe(addr) + "`");
    return false;
}

} // namespace skein::exec
