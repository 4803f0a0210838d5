#pragma once
// The pre-decoded program the executor interprets (DESIGN.md "Executor"): a flat instruction array per function
// with operands resolved to register numbers, constants pre-placed in the register file, branch targets as
// instruction indices, phis turned into copies on edges. Plain data: built by core/program/Lower.cpp (the only
// place that sees llvm::Module), read by core/exec. No LLVM type appears here.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/Event.h"
#include "core/report/Result.h"

namespace skein::program {

using Reg = uint32_t;
inline constexpr Reg kNoReg = ~0u;

enum class Builtin : uint16_t {
#define SKEIN_BUILTIN(Enum, Name) Enum,
#include "core/program/Builtins.def"
};
const char* builtinName(Builtin b);
struct Instr;
// The name of the function a CallBuiltin was lowered from, for messages: its C11 <threads.h> or timed form where the
// call site says so (kC11Call, kTimedCall; a clock* form shows as its timed* one), the builtin's name otherwise.
const char* callName(const Instr& in);
// In a CallBuiltin's imm: the call is C11's <threads.h> form of the pthread builtin — thrd_create(thr, func, arg)
// has no attribute argument, thrd_join stores an int, mtx_init takes a type, mtx_trylock answers thrd_busy.
inline constexpr uint64_t kC11Call = 1;
// ... and (a bit of its own) the timed form of a trylock-like builtin: pthread_mutex_timedlock, sem_timedwait,
// pthread_rwlock_timed*lock and their clock* forms. Time is not modelled, so a timed acquire may time out whenever the
// object is taken — exactly a try's outcomes over the interleavings (a wait that ends in the acquire is the schedule
// where the try comes later) — and answers ETIMEDOUT (thrd_timedout) where a try answers EBUSY.
// A timed condition wait (pthread_cond_timedwait, pthread_cond_clockwait, cnd_timedwait) first chooses, as a nondet
// event of two outcomes: to time out — it unlocks the mutex and locks it again, two events between which the other
// threads may run, and answers ETIMEDOUT (thrd_timedout) — or to wait as pthread_cond_wait does. A wait that no
// signal ever ends is then no deadlock: the timeout's outcome is the same schedule with the wait ended
// (Executor::timedWaitPhase). The deadline is not compared with the clock, which stands still.
inline constexpr uint64_t kTimedCall = 2;
// The timed condition wait's outcome that times out: choice 0, the one an executor's runs of a thread alone take
// (Executor::spinsForever), for which the timeout is a try that failed.
inline constexpr uint32_t kTimeOutChoice = 0;
// In a malloc's or calloc's imm: no other thread can reach what it allocates (the escape analysis,
// core/program/Escape.cpp): the object is the thread's own, its accesses and its free are no events.
inline constexpr uint64_t kPrivateAllocation = 4;

enum class Op : uint8_t {
    // Integer binary ops on `bits`-wide values: dst = a op b.
    Add, Sub, Mul, UDiv, SDiv, URem, SRem, Shl, LShr, AShr, And, Or, Xor,
    // Floating point (bits = 32 or 64): dst = a op b; FNeg: dst = -a.
    FAdd, FSub, FMul, FDiv, FRem, FNeg,
    ICmp, // aux = IntPredicate, bits = operand width
    FCmp, // aux = FloatPredicate
    // Casts: aux = source bits, bits = destination bits.
    Trunc, ZExt, SExt, FPTrunc, FPExt, FPToUI, FPToSI, UIToFP, SIToFP,
    Move,   // dst = a (bitcast, ptrtoint, inttoptr, freeze, phi copies)
    Select, // dst = a ? b : c
    Gep,    // dst = a + imm + Σ sext(pool[i].reg) * pool[i].scale, b = pool offset, c = count
    Gep1,   // dst = a + imm + sext_aux(b) * c   (single variable index of `aux` bits, scale c)
    Load,   // dst = *(a), `aux` bytes; bits = result width; flags: Atomic
    Store,  // *(a) = b, `aux` bytes; flags: Atomic
    Alloca, // dst = new stack object of imm bytes × (b == kNoReg ? 1 : value of b); c = alloca info index
    Br,     // pc = a
    CondBr, // pc = (a & 1) ? b : c
    Switch, // value a; b = pool64 offset of (value, pc) pairs, c = count; imm = default pc
    Ret,    // return a (kNoReg: void)
    Call,   // dst = functions[a](regPool[b .. b+c)); flags: AtomicFunction
    CallIndirect, // dst = (*a)(regPool[b .. b+c))
    CallBuiltin,  // dst = builtin aux(regPool[b .. b+c)); imm = extra (nondet bits/sign, overflow op, ...)
    AtomicRmw,    // dst = old *(a); *(a) = old `imm`-op b; aux = bytes, bits = width
    CmpXchg,      // dst = old *(a); dst+1 = success; if old == b: *(a) = c; aux = bytes
    Fence,
    LoopBack,     // back-edge of loop `aux` (frame-local): count, check the bound, pc = a. imm = 1: spin loop, whose
                  // iteration is cut when it changed nothing (LowerInstr.cpp, isSpinLoop)
    LoopEnter,    // entry edge of loop `aux`: reset its counter, pc = a
    Unreachable,
    Unsupported,  // a = message index: the program reached a construct Skein does not model
};

enum class RmwOp : uint8_t { Xchg, Add, Sub, And, Or, Xor, Nand, Max, Min, UMax, UMin };
enum IntPredicate : uint16_t { EQ, NE, UGT, UGE, ULT, ULE, SGT, SGE, SLT, SLE };
enum FloatPredicate : uint16_t {
    F_FALSE, F_OEQ, F_OGT, F_OGE, F_OLT, F_OLE, F_ONE, F_ORD, F_UNO, F_UEQ, F_UGT, F_UGE, F_ULT, F_ULE, F_UNE,
    F_TRUE
};

namespace flags {
inline constexpr uint8_t Atomic = 1;         // Load/Store: an atomic access
inline constexpr uint8_t AtomicFunction = 2; // Call: the callee runs as an SV-COMP atomic section
} // namespace flags

struct Instr {
    Op op = Op::Unreachable;
    uint8_t bits = 0;
    uint16_t aux = 0;
    uint8_t flags = 0;
    Reg dst = kNoReg;
    uint32_t a = 0, b = 0, c = 0;
    uint64_t imm = 0;
};

struct GepIndex {
    Reg reg;
    uint8_t bits; // width of the index value, for sign extension
    int64_t scale;
};

struct Function {
    std::string name;
    bool defined = false;
    bool atomicSection = false; // name starts with __VERIFIER_atomic_
    bool variadic = false;
    uint32_t numParams = 0;
    uint32_t numRegs = 0;
    uint32_t numLoops = 0;
    uint32_t loc = 0;                         // location of the definition
    std::vector<Instr> code;
    std::vector<uint32_t> locs;               // parallel to code: index into Program::locations
    std::vector<std::pair<Reg, uint64_t>> constants; // placed in the register file when a frame starts
    std::vector<Reg> regPool;                 // call arguments
    std::vector<GepIndex> gepPool;
    std::vector<uint64_t> pool64;             // switch tables
};

struct Global {
    std::string name;
    uint64_t size = 0;
    uint32_t elemSize = 0;         // element size when the global is an array (for "x[3]" names)
    bool readOnly = false;         // constant: never an event, writing it is an error
    bool threadLocal = false;      // __thread: one copy per thread
    std::vector<uint8_t> init;     // initial bytes (size == size)
};

// A stack slot that survived mem2reg: its debug name and whether its address escapes the frame (then its
// accesses are visible events; otherwise they are thread-local and run without a scheduling point).
struct AllocaInfo {
    std::string name;
    uint32_t elemSize = 0;
    bool escapes = true;
};

struct Location {
    uint32_t file = 0; // index into Program::files
    uint32_t line = 0;
    uint32_t column = 0;
    uint32_t function = 0; // index into Program::functions
};

// Pointers are 64-bit values: object id in the high 32 bits, byte offset in the low 32 bits. Object ids of
// globals and functions are fixed here; objects a thread allocates get ids from that thread's own range, so an
// address does not depend on how other threads were interleaved (see core/exec/Memory.h).
inline constexpr uint64_t makePointer(uint32_t object, uint32_t offset) {
    return (uint64_t(object) << model::kObjectShift) | offset;
}
inline constexpr uint32_t pointerObject(uint64_t p) { return uint32_t(p >> model::kObjectShift); }
inline constexpr uint32_t pointerOffset(uint64_t p) { return uint32_t(p); }

struct Program {
    std::vector<Function> functions;
    std::vector<Global> globals;   // object id of globals[i] = i + 1
    std::vector<AllocaInfo> allocas;
    std::vector<std::string> files;
    std::vector<Location> locations; // locations[0] = unknown
    std::vector<std::string> messages;
    uint32_t mainFunction = ~0u;
    // Hash of the lowered program with source positions left out: equal for edits to comments/formatting.
    uint64_t fingerprint = 0;

    uint32_t globalObject(uint32_t g) const { return g + 1; }
    uint32_t functionObject(uint32_t f) const { return uint32_t(globals.size()) + 1 + f; }
    // The function a function-pointer object denotes, or ~0u.
    uint32_t functionOfObject(uint32_t obj) const {
        uint32_t first = uint32_t(globals.size()) + 1;
        return obj >= first && obj < first + functions.size() ? obj - first : ~0u;
    }
    // The function a function pointer points to — at offset 0 of a function's object — or ~0u. It may be only
    // declared (an external function): each caller decides what that is.
    uint32_t functionAt(uint64_t ptr) const {
        return pointerOffset(ptr) == 0 ? functionOfObject(pointerObject(ptr)) : ~0u;
    }
    report::SourceLocation sourceLocation(uint32_t loc) const;
    void sourceLocationInto(uint32_t loc, report::SourceLocation& out) const; // reuses out's strings
    uint32_t sourceLine(uint32_t loc) const { return loc < locations.size() ? locations[loc].line : 0; }
};

// Computes Program::fingerprint from everything but source positions.
uint64_t computeFingerprint(const Program& p);

} // namespace skein::program
