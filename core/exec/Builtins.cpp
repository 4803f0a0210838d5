// Models of the C library, pthreads and the SV-COMP intrinsics. The user's program never reaches the host's
// libc: every builtin here works on the interpreted memory.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using model::EventKind;
using program::Builtin;
using program::Instr;

namespace {

// Mutex types as glibc numbers them. A mutex's type lives where glibc keeps it, in the mutex itself (the `__kind`
// field of pthread_mutex_t on x86-64, at byte 16): pthread_mutex_init writes it there from the attribute, whose
// int pthread_mutexattr_settype set, and PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP and its error-checking sibling
// put it there statically. Adaptive (3) behaves as normal here.
constexpr uint32_t kMutexNormal = 0, kMutexRecursive = 1, kMutexErrorCheck = 2;
constexpr uint64_t kMutexKindOffset = 16;

uint32_t mutexType(Memory& memory, uint64_t mutex) {
    uint8_t* b;
    if (memory.check(mutex + kMutexKindOffset, 4, false, &b) != AccessError::None) return kMutexNormal;
    uint32_t kind;
    std::memcpy(&kind, b, 4);
    return kind & 3; // glibc's PTHREAD_MUTEX_KIND_MASK_NP: the bits above are flags (robust, priority)
}
}

std::optional<uint64_t> Executor::mutexInput(uint64_t mutex) const {
    uint64_t type = peek(mutex + kMutexKindOffset, 4).value_or(kMutexNormal) & 3; // (mutexType's reading)
    auto it = mutexes_.find(mutex);
    if (it == mutexes_.end()) return uint64_t(model::kNoThread) | type << 48;
    const MutexState& m = it->second;
    if (m.relocks >= 0x8000) return std::nullopt;
    return uint64_t(m.owner) | uint64_t(m.relocks) << 32 | uint64_t(m.destroyed) << 47 | type << 48;
}

uint64_t rmwApply(program::RmwOp op, uint64_t old, uint64_t v, unsigned bits);

// The invisible builtins run here and return true; visible ones become the thread's pending event (false).
uint8_t* Executor::checkedBytes(ThreadId t, uint64_t p, uint64_t n, bool write) {
    uint8_t* bytes = nullptr;
    if (AccessError e = memory_.check(p, n, write, &bytes); e != AccessError::None) {
        failAccess(t, e, p, n);
        return nullptr;
    }
    return bytes;
}

bool Executor::callBuiltin(ThreadId t, const Instr& in) {
    const BuiltinSite site(*threads_[t], program_, in);
    Thread& th = site.th;
    auto A = [&](uint32_t k) { return site.arg(k); };
    auto done = [&](uint64_t v) { return site.done(v); };
    auto pending = [&](Event ev, uint32_t choices = 1) {
        setPending(t, ev, choices);
        return false;
    };
    // pthread_mutex_destroy or pthread_cond_destroy of the object at A(0) as an event (performed by destroyMutex,
    // destroyCond): `object` is Event::kMutex or kCond.
    auto lateDestroy = [&](uint64_t object) {
        Event ev;
        ev.kind = EventKind::SyncDestroy;
        ev.addr = A(0);
        ev.value2 = object;
        return pending(ev);
    };
    // The bytes [p, p+n) of a pthread object (a mutex attribute, a semaphore, a barrier), or null after reporting
    // the access error that stops the thread.
    auto objectBytes = [&](uint64_t p, uint64_t n) { return checkedBytes(t, p, n, true); };
    // Is any byte of [p, p+n) in a shared object? (Then the access is a visible event.)
    auto sharedRange = [&](uint64_t p) {
        const Object* o = memory_.object(program::pointerObject(p));
        return o && o->shared;
    };
    auto b = Builtin(in.aux);
    switch (b) {
    case Builtin::Malloc:
    case Builtin::Calloc:
    case Builtin::Realloc:
    case Builtin::Free:
    case Builtin::Memcpy:
    case Builtin::Memmove:
    case Builtin::Memset:
    case Builtin::Strcpy:
    case Builtin::Strncpy:
    case Builtin::Strcat:
    case Builtin::Strlen:
    case Builtin::ReadString:
    case Builtin::ReadStringN:
    case Builtin::ReadFormatArg:
    case Builtin::Strcmp:
    case Builtin::Strncmp:
    case Builtin::Memcmp: return callMemoryBuiltin(t, in); // MemoryBuiltins.cpp
    case Builtin::Printf:
    case Builtin::Fprintf: {
        uint32_t first = b == Builtin::Printf ? 0 : 1;
        uint64_t args[32];
        uint32_t n = 0;
        for (uint32_t k = first + 1; k < in.c && n < 32; ++k) args[n++] = A(k);
        std::string s = formatPrintf(t, A(first), args, n);
        output_.push_back({t, s});
        return done(s.size());
    }
    case Builtin::FormatString: {
        uint64_t found = 0;
        if (!formatString(t, A(0), A(1), A(2), A(3), A(4), found)) return false;
        return done(found);
    }
    case Builtin::VFormat: {
        uint64_t length = 0;
        if (!vformat(t, A(0), A(1), A(2), A(3), A(4), length)) return false;
        return done(length);
    }
    case Builtin::ParseDouble: {
        uint64_t bits = 0;
        if (!parseDouble(t, A(0), A(1), A(2) != 0, bits)) return false;
        return done(bits);
    }
    case Builtin::ModelUnsupported: unsupported(t, readCString(A(0))); return false;
    case Builtin::Puts: {
        std::string s = readCString(A(0)) + "\n";
        output_.push_back({t, s});
        return done(s.size());
    }
    case Builtin::Putchar: output_.push_back({t, std::string(1, char(A(0)))}); return done(A(0) & 0xFF);
    case Builtin::NoOp: return done(0);
    case Builtin::MutexAttrInit:
    case Builtin::MutexAttrSetType: {
        // The type goes into the attribute's int, as glibc keeps it; pthread_mutex_init copies it into the mutex.
        const uint64_t type = b == Builtin::MutexAttrInit ? kMutexNormal : A(1) & 0xFFFFFFFFu;
        if (type > 3) return done(kEINVAL);
        uint8_t* bytes = objectBytes(A(0), 4);
        if (!bytes) return false;
        const uint32_t kind = uint32_t(type);
        std::memcpy(bytes, &kind, 4);
        return done(0);
    }
    case Builtin::MutexAttrGetType: { // a thread's own attribute, as settype writes it (its bytes, not an event)
        const uint8_t* attr = objectBytes(A(0), 4);
        if (!attr) return false;
        uint32_t kind;
        std::memcpy(&kind, attr, 4);
        uint8_t* out = objectBytes(A(1), 4);
        if (!out) return false;
        std::memcpy(out, &kind, 4);
        return done(0);
    }
    case Builtin::AssertFail: {
        std::string expr = readCString(A(0));
        fail(t, report::ErrorKind::Assertion, "assertion `" + expr + "` failed");
        return false;
    }
    case Builtin::ReachError: {
        fail(t, report::ErrorKind::Assertion, "reach_error() is reachable");
        return false;
    }
    case Builtin::VerifierAssert:
        if (A(0) & 1) return done(0);
        fail(t, report::ErrorKind::Assertion, "__VERIFIER_assert fails");
        return false;
    case Builtin::Assume:
        if (A(0) & 1) return done(0);
        cut(t);
        return false;
    case Builtin::Abort: cut(t); return false;
    case Builtin::Exit: {
        Event ev;
        ev.kind = EventKind::ProgramExit;
        ev.value = A(0);
        return pending(ev);
    }
    case Builtin::AtomicBegin:
        if (th.atomicDepth++ == 0) ++th.sectionsEntered;
        return done(0);
    case Builtin::AtomicEnd:
        if (th.atomicDepth > 0 && --th.atomicDepth == 0 && exclusive_ == t) exclusive_ = model::kNoThread;
        return done(0);
    case Builtin::Nondet:
    case Builtin::Rand: {
        Event ev;
        ev.kind = EventKind::Nondet;
        bool isBool = in.imm & 2;
        ev.value2 = isBool ? 2 : opts_.nondetDomain.size();
        if (b == Builtin::Rand) ev.value2 = opts_.nondetDomain.size();
        return pending(ev, uint32_t(ev.value2));
    }
    case Builtin::ThreadCreate: {
        const uint32_t f = program_.functionAt(A(in.imm & program::kC11Call ? 1 : 2)); // thrd_create(thr, func, arg)
        if (f == ~0u || !program_.functions[f].defined) {
            fail(t, report::ErrorKind::PthreadMisuse, "pthread_create with an invalid start routine");
            return false;
        }
        if (liveThreads_ >= opts_.maxThreads || childId(t, created_[t]) >= 4000) {
            bound(t, "thread bound: more than " + std::to_string(opts_.maxThreads) + " threads (--max-threads)");
            return false;
        }
        Event ev;
        ev.kind = EventKind::ThreadCreate;
        ev.value = childId(t, created_[t]); // the id the child will get
        return pending(ev);
    }
    case Builtin::ThreadJoin: {
        uint64_t target = A(0) - 1; // pthread_t holds thread id + 1
        if (target < threads_.size() && !threads_[target]->absent && target != t) {
            ThreadId& first = threads_[target]->firstJoiner;
            if (first == model::kNoThread) first = t;
            else if (first != t) twoJoiners_ = true;
        }
        if (target >= threads_.size() || threads_[target]->absent || threads_[target]->joined ||
            threads_[target]->detached || target == t) {
            std::string why = target == t ? "a thread joins itself"
                              : target >= threads_.size() || threads_[target]->absent ? "pthread_join of an invalid thread"
                              : threads_[target]->detached ? "pthread_join of a detached thread"
                                                            : "pthread_join of a thread already joined";
            fail(t, target == t ? report::ErrorKind::Deadlock : report::ErrorKind::PthreadMisuse, why);
            return false;
        }
        Event ev;
        ev.kind = EventKind::ThreadJoin;
        ev.value = target;
        ev.addr = target;
        return pending(ev);
    }
    case Builtin::ThreadExit: finishThread(t, A(0)); return !th.finished; // (or it runs a key's destructor)
    case Builtin::ThreadSelf: return done(t + 1);
    case Builtin::ThreadEqual: return done(A(0) == A(1));
    case Builtin::ThreadDetach: {
        uint64_t target = A(0) - 1;
        if (target >= threads_.size() || threads_[target]->absent) return done(kESRCH);
        threads_[target]->detached = true;
        return done(0);
    }
    case Builtin::MutexInit:
    case Builtin::MutexDestroy: {
        uint8_t* bytes;
        AccessError e = memory_.check(A(0), 1, true, &bytes);
        if (e != AccessError::None) {
            failAccess(t, e, A(0), 1);
            return false;
        }
        if (b == Builtin::MutexDestroy) {
            // While another thread may still run, its locks may come before or after this, as for an init: an event,
            // performed by destroyMutex. Not once the caller has joined every other thread (main's destroys at its
            // end, the common case): none can touch the mutex then — a rule of the caller's own history, so that
            // whether the destroy is an event never depends on another thread's progress (the explorers' traces
            // would then tell apart two orders of independent events).
            if (!othersJoinedBy(t)) return lateDestroy(Event::kMutex);
            return destroyMutex(t, A(0), program::callName(in)) && done(0);
        }
        auto it = mutexes_.find(A(0));
        uint32_t kind = kMutexNormal;
        if (b == Builtin::MutexInit) { // the attribute's type (normal without one), for the mutex's type field
            if (in.imm & program::kC11Call) { // mtx_init(m, type): mtx_plain 0, mtx_recursive 1, mtx_timed 2
                kind = A(1) & 1 ? kMutexRecursive : kMutexNormal;
            } else if (A(1)) {
                uint8_t* attr;
                if (AccessError e = memory_.check(A(1), 4, false, &attr); e != AccessError::None) {
                    failAccess(t, e, A(1), 4);
                    return false;
                }
                std::memcpy(&kind, attr, 4);
            }
            // Once another thread exists, its locks may come before or after this: an event (SyncBuiltins.cpp has
            // the other objects' initialisations), performed by initMutex.
            if (numThreads() > 1) {
                Event ev;
                ev.kind = EventKind::SyncInit;
                ev.addr = A(0);
                ev.value = kind;
                ev.value2 = Event::kMutex;
                return pending(ev);
            }
        }
        if (it != mutexes_.end()) mutexes_.erase(it); // (a destroyed one is a mutex again)
        initMutex(A(0), kind);
        return done(0);
    }
    case Builtin::MutexLock:
    case Builtin::MutexTrylock:
    case Builtin::MutexUnlock: {
        uint8_t* bytes;
        AccessError e = memory_.check(A(0), 1, false, &bytes);
        if (e != AccessError::None) {
            failAccess(t, e, A(0), 1);
            return false;
        }
        // A recursive or error-checking mutex answers its owner, and an unlock by another thread, at once: whether
        // the caller holds the mutex is up to the caller alone (no other thread can make it the owner or take that
        // away), so these answers are the thread's own steps, invisible to the other threads. Only the outermost
        // lock and the last unlock of a recursive mutex are events; the explorers see a normal mutex's history.
        if (const uint32_t type = mutexType(memory_, A(0)); type == kMutexRecursive || type == kMutexErrorCheck) {
            auto it = mutexes_.find(A(0));
            const bool mine = it != mutexes_.end() && it->second.owner == t;
            if (b == Builtin::MutexUnlock) {
                if (!mine) return done(kEPERM);
                if (it->second.relocks > 0) {
                    --it->second.relocks;
                    return done(0);
                }
            } else if (mine) {
                if (type == kMutexErrorCheck) // (a timed lock, too, reports the deadlock it would wait for)
                    return done(b == Builtin::MutexLock || in.imm & program::kTimedCall ? kEDEADLK : kEBUSY);
                ++it->second.relocks;
                if (b == Builtin::MutexTrylock) ++th.effects; // as any trylock that took the lock (Interpret.cpp)
                return done(0);
            }
        }
        Event ev;
        ev.kind = b == Builtin::MutexLock ? EventKind::Lock : b == Builtin::MutexTrylock ? EventKind::TryLock : EventKind::Unlock;
        ev.addr = A(0);
        return pending(ev);
    }
    // Time is not modelled: the clock reads 0 and stands still (a timed acquire may time out at any moment instead,
    // kTimedCall). The time is written into the caller's own struct; into a shared one it would be a write other
    // threads may race with, which Skein does not make an event of: refused, not written unseen.
    case Builtin::ClockGetTime:
    case Builtin::GetTimeOfDay:
    case Builtin::Time: {
        const uint64_t at = b == Builtin::ClockGetTime ? A(1) : A(0);
        const uint64_t size = b == Builtin::Time ? 8 : 16; // time_t; struct timespec or timeval
        if (at != 0 || b != Builtin::Time) {
            if (sharedRange(at)) {
                unsupported(t, std::string(program::builtinName(b)) + " into shared memory (`" + memory_.describe(at) +
                                   "`)");
                return false;
            }
            uint8_t* out = objectBytes(at, size);
            if (!out) return false;
            std::memset(out, 0, size);
        }
        return done(0);
    }
    case Builtin::Once:
    case Builtin::SemInit:
    case Builtin::SemDestroy:
    case Builtin::RwDestroy:
    case Builtin::BarrierDestroy:
    case Builtin::SemWait:
    case Builtin::SemTryWait:
    case Builtin::SemPost:
    case Builtin::SemGetValue:
    case Builtin::BarrierInit:
    case Builtin::BarrierWait:
    case Builtin::RwInit:
    case Builtin::RwRdLock:
    case Builtin::RwWrLock:
    case Builtin::RwTryRdLock:
    case Builtin::RwTryWrLock:
    case Builtin::RwUnlock: return callSyncBuiltin(t, in); // SyncBuiltins.cpp
    case Builtin::CondInit:
        // Once another thread exists, its waits and signals may come before or after this: an event, as a mutex's
        // init (MutexInit), performed by initCond.
        if (numThreads() > 1) {
            Event ev;
            ev.kind = EventKind::SyncInit;
            ev.addr = A(0);
            ev.value2 = Event::kCond;
            return pending(ev);
        }
        return initCond(t, A(0), program::callName(in)) && done(0);
    case Builtin::CondDestroy:
        if (!othersJoinedBy(t)) return lateDestroy(Event::kCond); // as a mutex's (MutexDestroy)
        return destroyCond(t, A(0), program::callName(in)) && done(0);
    case Builtin::CondWait: {
        Event ev;
        if (in.imm & program::kTimedCall) { // a timed wait chooses first: to time out, or to wait (Program.h)
            ev.kind = EventKind::Nondet;
            ev.value2 = 2;
            ev.addr2 = A(0); // names the wait in a trace (TraceBuilder.cpp)
            return pending(ev, 2);
        }
        ev.kind = EventKind::CondWait;
        ev.addr = A(0);
        ev.addr2 = A(1);
        return pending(ev);
    }
    case Builtin::CondSignal:
    case Builtin::CondBroadcast: {
        Event ev;
        ev.kind = b == Builtin::CondSignal ? EventKind::CondSignal : EventKind::CondBroadcast;
        ev.addr = A(0);
        return pending(ev);
    }
    case Builtin::ErrnoLocation: return done(errnoAddress(t));
    case Builtin::KeyCreate: { // key(*A(0)): a write of the key's number, an event when the variable is shared
        if (A(1)) { // the destructor: a function of the program (a library function's pointer is a wrapper's)
            const uint32_t f = program_.functionAt(A(1));
            if (f == ~0u) {
                fail(t, report::ErrorKind::PthreadMisuse, "pthread_key_create with an invalid destructor");
                return false;
            }
            if (!program_.functions[f].defined) {
                unsupported(t, "pthread_key_create with destructor `" + program_.functions[f].name +
                                   "`, an external function Skein has no model of");
                return false;
            }
        }
        uint8_t* bytes = objectBytes(A(0), 4);
        if (!bytes) return false;
        const uint32_t key = uint32_t(t) * kKeysPerThread + uint32_t(th.keyDestructors.size());
        if (th.keyDestructors.size() + 1 >= kKeysPerThread) return done(kEAGAIN); // PTHREAD_KEYS_MAX is 1024 too
        if (!sharedRange(A(0))) {
            std::memcpy(bytes, &key, 4);
            th.keyDestructors.push_back(A(1) ? program_.functionAt(A(1)) : ~0u);
            return done(0);
        }
        Event ev;
        ev.kind = EventKind::Write;
        ev.addr = A(0);
        ev.size = 4;
        ev.value = key;
        return pending(ev);
    }
    // POSIX's pthread_key_delete runs no destructor; Skein's does not keep one from running later either (a thread
    // that exits after it runs its destructor: that would make the delete an event every exit depends on).
    case Builtin::KeyDelete: return done(0);
    case Builtin::SetSpecific:
    case Builtin::GetSpecific: {
        const uint32_t key = uint32_t(A(0));
        auto it = std::find_if(th.specific.begin(), th.specific.end(), [&](const auto& s) { return s.first == key; });
        if (b == Builtin::GetSpecific) return done(it == th.specific.end() ? 0 : it->second);
        if (it != th.specific.end()) it->second = A(1);
        else th.specific.push_back({key, A(1)});
        return done(0);
    }
    case Builtin::ThreadLocalAddress: {
        uint32_t g = uint32_t(in.imm);
        for (auto& [gi, p] : th.tls)
            if (gi == g) return done(p);
        const program::Global& gl = program_.globals[g];
        uint64_t p = memory_.allocate(t, uint32_t(gl.size), ObjectKind::ThreadLocal, false, g);
        std::memcpy(memory_.raw(*memory_.object(program::pointerObject(p))), gl.init.data(), gl.size);
        th.tls.push_back({g, p});
        return done(p);
    }
    case Builtin::StackSave: return done(0);
    case Builtin::SMax: return done(signExtend(A(0), in.bits) >= signExtend(A(1), in.bits) ? A(0) : A(1));
    case Builtin::SMin: return done(signExtend(A(0), in.bits) <= signExtend(A(1), in.bits) ? A(0) : A(1));
    case Builtin::UMax: return done(std::max(A(0), A(1)));
    case Builtin::UMin: return done(std::min(A(0), A(1)));
    case Builtin::Abs: {
        int64_t v = signExtend(A(0), in.bits);
        return done(uint64_t(v < 0 ? -v : v));
    }
    case Builtin::Ctpop: return done(uint64_t(std::popcount(A(0))));
    case Builtin::Bswap: {
        uint64_t v = __builtin_bswap64(A(0)) >> (64 - in.bits);
        return done(v);
    }
    case Builtin::FAbs:
    case Builtin::Sqrt:
    case Builtin::Floor:
    case Builtin::Ceil: {
        bool f32 = in.bits == 32;
        double d = f32 ? double(std::bit_cast<float>(uint32_t(A(0)))) : std::bit_cast<double>(A(0));
        double r = b == Builtin::FAbs ? std::fabs(d) : b == Builtin::Sqrt ? std::sqrt(d) : b == Builtin::Floor ? std::floor(d) : std::ceil(d);
        return done(f32 ? uint64_t(std::bit_cast<uint32_t>(float(r))) : std::bit_cast<uint64_t>(r));
    }
    case Builtin::FMulAdd: {
        bool f32 = in.bits == 32;
        auto val = [&](uint64_t v) { return f32 ? double(std::bit_cast<float>(uint32_t(v))) : std::bit_cast<double>(v); };
        double r = std::fma(val(A(0)), val(A(1)), val(A(2)));
        return done(f32 ? uint64_t(std::bit_cast<uint32_t>(float(r))) : std::bit_cast<uint64_t>(r));
    }
    case Builtin::AddOverflow: {
        unsigned bits = in.bits;
        uint64_t a = A(0), c = A(1), r = 0;
        bool ovf = false;
        int64_t sa = signExtend(a, bits), sc = signExtend(c, bits);
        __int128 wide = 0;
        switch (in.imm) {
        case 0: wide = (__int128)sa + sc; ovf = wide != signExtend(uint64_t(wide), bits); r = uint64_t(wide); break;
        case 1: wide = (__int128)a + c; ovf = uint64_t(wide) != maskBits(uint64_t(wide), bits) || (wide >> 64) != 0; r = uint64_t(wide); break;
        case 2: wide = (__int128)sa - sc; ovf = wide != signExtend(uint64_t(wide), bits); r = uint64_t(wide); break;
        case 3: ovf = a < c; r = a - c; break;
        case 4: wide = (__int128)sa * sc; ovf = wide != signExtend(uint64_t(wide), bits); r = uint64_t(wide); break;
        default: {
            unsigned __int128 uw = (unsigned __int128)a * c;
            ovf = (uw >> bits) != 0;
            r = uint64_t(uw);
            break;
        }
        }
        site.R[in.dst] = maskBits(r, bits);
        site.R[in.dst + 1] = ovf;
        site.fr.pc++;
        return true;
    }
    }
    unsupported(t, std::string("builtin ") + program::builtinName(b));
    return false;
}

// A mutex's type into its type field (its state: unlocked, no owner — the caller dropped it).
void Executor::initMutex(uint64_t addr, uint32_t kind) {
    uint8_t* bytes;
    if (memory_.check(addr + kMutexKindOffset, 4, true, &bytes) == AccessError::None) std::memcpy(bytes, &kind, 4);
}

// The visible part of a builtin, performed when the explorer schedules it (or at once for private memory).
void Executor::performBuiltin(ThreadId t, const Instr& in, uint32_t choice, Event& ev) {
    const BuiltinSite site(*threads_[t], program_, in);
    Thread& th = site.th;
    auto A = [&](uint32_t k) { return site.arg(k); };
    auto finish = [&](uint64_t v) { site.finish(v); };
    auto range = [&](uint64_t p, uint64_t n, bool write) { return n ? checkedBytes(t, p, n, write) : nullptr; };
    auto b = Builtin(in.aux);
    switch (b) {
    case Builtin::Realloc:
    case Builtin::Free:
    case Builtin::Memcpy:
    case Builtin::Memmove:
    case Builtin::Memset:
    case Builtin::Strcpy:
    case Builtin::Strncpy:
    case Builtin::Strcat:
    case Builtin::Strlen:
    case Builtin::ReadString:
    case Builtin::ReadStringN:
    case Builtin::ReadFormatArg:
    case Builtin::Strcmp:
    case Builtin::Strncmp:
    case Builtin::Memcmp: return performMemoryBuiltin(t, in); // MemoryBuiltins.cpp
    case Builtin::Exit: finishThread(t, A(0), /*programExit=*/true); return; // (step() handles ProgramExit first)
    case Builtin::Nondet:
    case Builtin::Rand: {
        bool isBool = in.imm & 2, isSigned = in.imm & 1;
        int64_t v = isBool ? int64_t(choice) : opts_.nondetDomain[choice];
        if (b == Builtin::Rand && v < 0) v = -v;
        // The domain is a sample of the type's values unless it is a bool or covers the whole (narrow) type:
        // the verdict is then bounded.
        unsigned width = in.bits ? in.bits : 32;
        if (!isBool && (b == Builtin::Rand || width > 16 || !(wholeDomainWidths_ >> width & 1))) sampledNondet_ = true;
        (void)isSigned;
        ev.value = maskBits(uint64_t(v), in.bits ? in.bits : 32);
        return finish(ev.value);
    }
    case Builtin::KeyCreate: { // the key variable is shared: its write is this event (callBuiltin)
        uint8_t* bytes = range(A(0), 4, true);
        if (!bytes) return;
        const uint32_t key = uint32_t(ev.value);
        std::memcpy(bytes, &key, 4);
        th.keyDestructors.push_back(A(1) ? program_.functionAt(A(1)) : ~0u);
        return finish(0);
    }
    case Builtin::ThreadCreate: {
        uint8_t* bytes = range(A(0), 8, true);
        if (!bytes) return;
        const bool c11 = in.imm & program::kC11Call;
        const uint32_t f = program_.functionAt(A(c11 ? 1 : 2)); // (checked by the call)
        ThreadId child = createThread(t, f, A(c11 ? 2 : 3));
        // `th` and `site` stay valid: threads are heap-allocated and the parent's frames did not change.
        uint64_t handle = child + 1;
        bytes = range(A(0), 8, true); // the arena may have grown while the child ran
        std::memcpy(bytes, &handle, 8);
        ev.value = child;
        return finish(0);
    }
    case Builtin::ThreadJoin: {
        ThreadId target = ThreadId(ev.value);
        threads_[target]->joined = true;
        if (A(1)) { // pthread_join's void *, thrd_join's int
            const uint64_t size = in.imm & program::kC11Call ? 4 : 8;
            uint8_t* bytes = range(A(1), size, true);
            if (!bytes) return;
            std::memcpy(bytes, &threads_[target]->retval, size);
        }
        return finish(0);
    }
    case Builtin::MutexLock:
        if (!usableMutex(t, A(0), program::callName(in))) return;
        mutexes_[A(0)].owner = t;
        return finish(0);
    case Builtin::MutexTrylock: {
        if (!usableMutex(t, A(0), program::callName(in))) return;
        MutexState& m = mutexes_[A(0)];
        if (m.owner == model::kNoThread) {
            m.owner = t;
            ++th.effects; // a spin loop's iteration that took the lock is not cut (Interpret.cpp, LoopBack)
            ev.value = 1;
            return finish(0);
        }
        ev.value = 0;
        // Also when the caller holds it: a default mutex does not check (glibc). A timed lock timed out.
        return finish(takenAnswer(in));
    }
    case Builtin::MutexUnlock: {
        if (!usableMutex(t, A(0), program::callName(in))) return;
        auto it = mutexes_.find(A(0));
        if (it == mutexes_.end() || it->second.owner != t) {
            std::string who = it == mutexes_.end() || it->second.owner == model::kNoThread
                                  ? "it is not locked" : "it is held by thread " + std::to_string(it->second.owner);
            fail(t, report::ErrorKind::PthreadMisuse, "unlock of mutex `" + memory_.describe(A(0)) + "` that this thread does not hold (" + who + ")");
            return;
        }
        it->second.owner = model::kNoThread;
        return finish(0);
    }
    case Builtin::MutexDestroy: // late: an event (callBuiltin)
        if (!destroyMutex(t, A(0), program::callName(in))) return;
        return finish(0);
    case Builtin::CondDestroy:
        if (!destroyCond(t, A(0), program::callName(in))) return;
        return finish(0);
    case Builtin::CondInit: // late: an event (callBuiltin)
        if (!initCond(t, A(0), program::callName(in))) return;
        return finish(0);
    case Builtin::MutexInit: { // late: an event (callBuiltin)
        auto it = mutexes_.find(A(0));
        if (it != mutexes_.end() && it->second.owner != model::kNoThread) { // undefined (POSIX): reported
            fail(t, report::ErrorKind::PthreadMisuse,
                 "pthread_mutex_init of a locked mutex `" + memory_.describe(A(0)) + "`");
            return;
        }
        if (it != mutexes_.end()) mutexes_.erase(it);
        initMutex(A(0), uint32_t(ev.value));
        return finish(0);
    }
    case Builtin::Once:
    case Builtin::SemInit: // late: an event (SyncBuiltins.cpp)
    case Builtin::SemDestroy:
    case Builtin::RwDestroy:
    case Builtin::BarrierDestroy:
    case Builtin::BarrierInit:
    case Builtin::RwInit:
    case Builtin::SemWait:
    case Builtin::SemTryWait:
    case Builtin::SemPost:
    case Builtin::SemGetValue:
    case Builtin::BarrierWait:
    case Builtin::RwRdLock:
    case Builtin::RwWrLock:
    case Builtin::RwTryRdLock:
    case Builtin::RwTryWrLock:
    case Builtin::RwUnlock: return performSyncBuiltin(t, in, ev); // SyncBuiltins.cpp
    case Builtin::CondWait: {
        const bool timed = in.imm & program::kTimedCall;
        const char* name = program::callName(in);
        if (th.phase == 0) {
            if (!usableCond(t, A(0), name)) return;
            auto it = mutexes_.find(A(1));
            if (it == mutexes_.end() || it->second.owner != t) {
                fail(t, report::ErrorKind::PthreadMisuse,
                     std::string(name) + " with mutex `" + memory_.describe(A(1)) + "` not held");
                return;
            }
            if (it->second.relocks > 0) { // POSIX leaves it undefined; glibc would release one level only
                fail(t, report::ErrorKind::PthreadMisuse, std::string(name) + " with recursive mutex `" +
                                                              memory_.describe(A(1)) + "` locked " +
                                                              std::to_string(it->second.relocks + 1) + " times");
                return;
            }
            if (timed) { // the choice (callBuiltin): the timeout's unlock, or the wait's event
                ev.value = choice;
                Event next;
                next.kind = choice == program::kTimeOutChoice ? EventKind::Unlock : EventKind::CondWait;
                next.addr = choice == program::kTimeOutChoice ? A(1) : A(0);
                next.addr2 = choice == program::kTimeOutChoice ? 0 : A(1);
                th.phase = choice == program::kTimeOutChoice ? kTimedWaitUnlock : kTimedWaitWaits;
                setPending(t, next);
                return;
            }
        }
        if (th.phase == 0 || th.phase == kTimedWaitWaits) { // the wait: release the mutex, wait for a signal
            mutexes_[A(1)].owner = model::kNoThread;
            condWaiters_[A(0)].push_back(t);
            th.state = ThreadState::BlockedCond;
            th.phase = kCondWaitWoken;
            // A spin loop's iteration that waited is not cut (Interpret.cpp, LoopBack): a signal ended the wait.
            if (timed) ++th.effects;
            views_[t].waitObject = A(0);
            Event re;
            re.kind = EventKind::Lock;
            re.addr = A(1);
            setPending(t, re);
            return;
        }
        if (th.phase == kTimedWaitUnlock) { // timed out: the mutex is released, then taken again
            mutexes_[A(1)].owner = model::kNoThread;
            th.phase = kTimedWaitRelock;
            Event re;
            re.kind = EventKind::Lock;
            re.addr = A(1);
            setPending(t, re);
            return;
        }
        // Woken (state Ready again) or timed out, and scheduled: re-acquire the mutex.
        const bool timedOut = th.phase == kTimedWaitRelock;
        th.phase = 0;
        mutexes_[A(1)].owner = t;
        return finish(!timedOut ? 0 : in.imm & program::kC11Call ? kThrdTimedOut : kETIMEDOUT);
    }
    case Builtin::CondSignal:
    case Builtin::CondBroadcast: {
        if (!usableCond(t, A(0), program::callName(in))) return;
        auto it = condWaiters_.find(A(0));
        ev.value = 0;
        if (it != condWaiters_.end() && !it->second.empty()) {
            // (A waiter forced into a copy by forceStep may not be blocked there: it stays as it is.)
            auto wake = [&](ThreadId w) {
                if (threads_[w]->state == ThreadState::BlockedCond) threads_[w]->state = ThreadState::Ready;
            };
            if (b == Builtin::CondSignal) {
                uint32_t k = std::min<uint32_t>(choice, uint32_t(it->second.size() - 1));
                ThreadId w = it->second[k];
                wake(w);
                ev.value = w + 1;
                it->second.erase(it->second.begin() + k);
            } else {
                for (ThreadId w : it->second) wake(w);
                ev.value = it->second.size();
                it->second.clear();
            }
        }
        return finish(0);
    }
    default: unsupported(t, std::string("visible builtin ") + program::builtinName(b)); return;
    }
}

} // namespace skein::exec
