#pragma once
// Internal state of the executor, shared by Executor.cpp, Interpret.cpp and Builtins.cpp.
#include <algorithm>

#include "core/exec/Executor.h"

namespace skein::exec {

struct Executor::Frame {
    uint32_t func = 0;
    uint32_t pc = 0;
    uint32_t regBase = 0;
    program::Reg retDst = program::kNoReg;
    uint16_t retSlots = 0;
    bool atomic = false;          // an SV-COMP atomic function's frame
    // Its return leaves the caller's pc where it is, so that the caller's instruction runs again: pthread_once's
    // init routine, after which the call releases the once object (SyncBuiltins.cpp, Builtin::Once).
    bool reenter = false;
    // A thread-specific data destructor the thread runs as it exits: its return goes on with the exit
    // (Executor::finishThread), whose return value the thread keeps meanwhile (Thread::retval).
    bool destructor = false;
    uint32_t loopBase = 0;        // index of this frame's first loop counter in Thread::loopCounters
    uint32_t stackObjectBase = 0; // index of this frame's first object in Thread::stackObjects
};

struct Executor::Thread {
    std::vector<Frame> frames;
    std::vector<uint64_t> regs;
    // Per loop of the frames: iterations (low 32 bits) and, for a spin loop, `effects` when its current iteration
    // began (high 32 bits).
    std::vector<uint64_t> loopCounters;
    std::vector<uint32_t> stackObjects;
    std::vector<std::pair<uint32_t, uint64_t>> tls; // thread-local global index → this thread's copy
    uint64_t errnoObject = 0; // the address of this thread's errno, once it used it (Executor::errnoAddress)
    // Thread-specific data: this thread's value per key (pthread_setspecific); the destructor function of each key
    // it created (~0u: none), which numbers them: key = thread × kKeysPerThread + its index here, the same in every
    // interleaving; and the destructors it ran as it exited (at most PTHREAD_DESTRUCTOR_ITERATIONS rounds).
    std::vector<std::pair<uint32_t, uint64_t>> specific;
    std::vector<uint32_t> keyDestructors;
    uint32_t destructorCalls = 0;
    uint32_t exitLoc = 0; // where it returned from its start routine or called pthread_exit (its destructors' place)
    std::vector<std::pair<uint64_t, uint32_t>> readHolds; // reader-writer lock → read locks this thread holds
    auto readHold(uint64_t lock) {
        return std::find_if(readHolds.begin(), readHolds.end(), [&](const auto& h) { return h.first == lock; });
    }
    ThreadState state = ThreadState::Ready;
    uint32_t events = 0;
    // Operations that changed memory or took a lock although a spin loop may contain them (a trylock or a
    // compare-exchange that succeeded, an exchange that wrote a new value): an iteration that leaves this unchanged
    // is cut at the spin loop's back edge (LowerInstr.cpp, isSpinLoop).
    uint32_t effects = 0;
    uint64_t steps = 0;
    uint64_t retval = 0;
    uint32_t atomicDepth = 0;
    uint32_t sectionsEntered = 0; // atomic sections begun (atomicDepth 0 → 1): names the current one
    uint8_t phase = 0; // second event of one instruction (cond_wait: the mutex re-acquire; a barrier's departure)
    bool barrierSerial = false; // pthread_barrier_wait: this thread's arrival completed its round
    uint32_t barrierRound = 0;  // ... the round it arrived in (its departure waits for the next)
    std::vector<std::pair<uint64_t, uint32_t>> barrierArrivals; // barrier → this thread's arrivals at it so far
    // The once objects whose init routine this thread is running, innermost last, each with the depth of the frame
    // that called pthread_once: the call runs again when the routine returns (Frame::reenter), and this tells that
    // run from a new call on the same object inside the routine (a deadlock, as in glibc).
    std::vector<std::pair<uint64_t, uint32_t>> onceInits;
    uint32_t arrivalsAt(uint64_t barrier) const {
        for (const auto& [b, n] : barrierArrivals)
            if (b == barrier) return n;
        return 0;
    }
    bool finished = false;
    bool stopped = false; // an error, a cut or a bound ended this thread (not finished)
    bool cut = false;     // of those, a cut: a failed assume, abort, or a spin iteration that changes nothing
    bool endedProgram = false; // it returned from main or called exit(): nothing can join it
    bool absent = false; // an id no thread has in this execution (ids are canonical, see createThread)
    bool joined = false;
    bool detached = false;
    ThreadId firstJoiner = model::kNoThread; // the first thread that called pthread_join on this one (twoJoiners)
    bool hasPending = false;
};

// A builtin's call site as the functions that call and perform builtins see it (Builtins.cpp, SyncBuiltins.cpp):
// the calling thread and frame, the arguments, and where the result goes.
struct Executor::BuiltinSite {
    Thread& th;
    Frame& fr;
    const program::Function& fn;
    uint64_t* R; // the frame's registers
    const program::Instr& in;
    BuiltinSite(Thread& t, const program::Program& p, const program::Instr& call)
        : th(t), fr(t.frames.back()), fn(p.functions[fr.func]), R(t.regs.data() + fr.regBase), in(call) {}
    uint64_t arg(uint32_t k) const { return k < in.c ? R[fn.regPool[in.b + k]] : 0; }
    // The call's result into its destination register, masked to its width, and the thread past the call.
    void finish(uint64_t v) const;
    // ... as the answer of callBuiltin and callSyncBuiltin: the call is done, the thread goes on.
    bool done(uint64_t v) const {
        finish(v);
        return true;
    }
};

// errno values (glibc's), and C11's thrd_busy and thrd_timedout, as builtins answer them.
inline constexpr uint64_t kEBUSY = 16, kEINVAL = 22, kESRCH = 3, kEPERM = 1, kEDEADLK = 35, kETIMEDOUT = 110,
                          kEAGAIN = 11, kEOVERFLOW = 75;
inline constexpr uint64_t kThrdBusy = 1, kThrdTimedOut = 4;

// Thread::phase in a condition wait: after the wait's event, waiting for the signal and then re-acquiring the mutex.
// A timed wait (program::kTimedCall) starts with its choice (0), nondet outcome program::kTimeOutChoice or the wait;
// timed out, it unlocks and re-locks the mutex.
inline constexpr uint8_t kCondWaitWoken = 1, kTimedWaitWaits = 2, kTimedWaitUnlock = 3, kTimedWaitRelock = 4;

inline constexpr uint32_t kKeysPerThread = 1024;

// What a try that found its object taken answers: EBUSY, or for a timed acquire (program::kTimedCall) ETIMEDOUT —
// C11's thrd_busy and thrd_timedout for mtx_trylock and mtx_timedlock.
inline uint64_t takenAnswer(const program::Instr& in) {
    const bool timed = in.imm & program::kTimedCall;
    if (in.imm & program::kC11Call) return timed ? kThrdTimedOut : kThrdBusy;
    return timed ? kETIMEDOUT : kEBUSY;
}

inline uint64_t maskBits(uint64_t v, unsigned bits) { return bits >= 64 ? v : (v & ((uint64_t(1) << bits) - 1)); }

inline void Executor::BuiltinSite::finish(uint64_t v) const {
    if (in.dst != program::kNoReg) R[in.dst] = in.bits ? maskBits(v, in.bits) : v;
    fr.pc++;
}
inline int64_t signExtend(uint64_t v, unsigned bits) {
    if (bits >= 64) return int64_t(v);
    uint64_t m = uint64_t(1) << (bits - 1);
    v = maskBits(v, bits);
    return int64_t((v ^ m) - m);
}

} // namespace skein::exec
