// The interpreter loop: runs one thread's invisible instructions until its next visible operation.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using program::Instr;
using program::Op;

namespace {

float asFloat(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
double asDouble(uint64_t v) { return std::bit_cast<double>(v); }
uint64_t fromFloat(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t fromDouble(double d) { return std::bit_cast<uint64_t>(d); }
double fpValue(uint64_t v, unsigned bits) { return bits == 32 ? double(asFloat(v)) : asDouble(v); }
uint64_t fpBits(double d, unsigned bits) { return bits == 32 ? fromFloat(float(d)) : fromDouble(d); }

bool icmp(uint16_t pred, uint64_t a, uint64_t b, unsigned bits) {
    using namespace program;
    switch (pred) {
    case EQ: return a == b;
    case NE: return a != b;
    case UGT: return a > b;
    case UGE: return a >= b;
    case ULT: return a < b;
    case ULE: return a <= b;
    case SGT: return signExtend(a, bits) > signExtend(b, bits);
    case SGE: return signExtend(a, bits) >= signExtend(b, bits);
    case SLT: return signExtend(a, bits) < signExtend(b, bits);
    case SLE: return signExtend(a, bits) <= signExtend(b, bits);
    }
    return false;
}

bool fcmp(uint16_t pred, double a, double b) {
    using namespace program;
    bool uno = std::isnan(a) || std::isnan(b);
    switch (pred) {
    case F_FALSE: return false;
    case F_OEQ: return !uno && a == b;
    case F_OGT: return !uno && a > b;
    case F_OGE: return !uno && a >= b;
    case F_OLT: return !uno && a < b;
    case F_OLE: return !uno && a <= b;
    case F_ONE: return !uno && a != b;
    case F_ORD: return !uno;
    case F_UNO: return uno;
    case F_UEQ: return uno || a == b;
    case F_UGT: return uno || a > b;
    case F_UGE: return uno || a >= b;
    case F_ULT: return uno || a < b;
    case F_ULE: return uno || a <= b;
    case F_UNE: return uno || a != b;
    case F_TRUE: return true;
    }
    return false;
}

uint64_t loadLE(const uint8_t* p, unsigned size) {
    uint64_t v = 0;
    std::memcpy(&v, p, size);
    return v;
}

} // namespace

uint64_t rmwApply(program::RmwOp op, uint64_t old, uint64_t v, unsigned bits) {
    using program::RmwOp;
    switch (op) {
    case RmwOp::Xchg: return maskBits(v, bits);
    case RmwOp::Add: return maskBits(old + v, bits);
    case RmwOp::Sub: return maskBits(old - v, bits);
    case RmwOp::And: return old & v;
    case RmwOp::Or: return old | v;
    case RmwOp::Xor: return old ^ v;
    case RmwOp::Nand: return maskBits(~(old & v), bits);
    case RmwOp::Max: return signExtend(old, bits) >= signExtend(v, bits) ? old : v;
    case RmwOp::Min: return signExtend(old, bits) <= signExtend(v, bits) ? old : v;
    case RmwOp::UMax: return old >= v ? old : v;
    case RmwOp::UMin: return old <= v ? old : v;
    }
    return old;
}

bool Executor::pushFrame(ThreadId t, uint32_t func, const uint64_t* args, uint32_t nargs, program::Reg retDst,
                         uint16_t retSlots, bool atomic) {
    Thread& th = *threads_[t];
    const program::Function& fn = program_.functions[func];
    if (th.frames.size() >= opts_.maxCallDepth) {
        fail(t, report::ErrorKind::StackOverflow,
             "stack exhaustion: call depth exceeds " + std::to_string(opts_.maxCallDepth) + " calling `" + fn.name + "`");
        return false;
    }
    Frame f;
    f.func = func;
    f.regBase = th.frames.empty() ? 0 : th.frames.back().regBase + program_.functions[th.frames.back().func].numRegs;
    f.retDst = retDst;
    f.retSlots = retSlots;
    f.atomic = atomic;
    f.loopBase = uint32_t(th.loopCounters.size());
    f.stackObjectBase = uint32_t(th.stackObjects.size());
    th.regs.resize(f.regBase + fn.numRegs);
    th.loopCounters.resize(f.loopBase + fn.numLoops, 0);
    uint64_t* R = th.regs.data() + f.regBase;
    for (auto& [r, v] : fn.constants) R[r] = v;
    // Missing arguments (a K&R call with fewer arguments) read as 0; extra ones are dropped.
    for (uint32_t i = 0; i < fn.numParams; ++i) R[i] = i < nargs ? args[i] : 0;
    if (atomic && th.atomicDepth++ == 0) ++th.sectionsEntered;
    th.frames.push_back(f);
    return true;
}

void Executor::popFrame(ThreadId t, const uint64_t* ret, uint32_t slots) {
    Thread& th = *threads_[t];
    Frame f = th.frames.back();
    th.frames.pop_back();
    for (size_t k = f.stackObjectBase; k < th.stackObjects.size(); ++k)
        if (Object* o = memory_.object(th.stackObjects[k])) o->alive = false;
    th.stackObjects.resize(f.stackObjectBase);
    th.loopCounters.resize(f.loopBase);
    if (f.atomic && th.atomicDepth > 0 && --th.atomicDepth == 0 && exclusive_ == t) exclusive_ = model::kNoThread;
    if (!th.frames.empty()) {
        uint64_t* R = th.regs.data() + th.frames.back().regBase;
        if (f.retDst != program::kNoReg)
            for (uint32_t k = 0; k < slots && k < f.retSlots; ++k) R[f.retDst + k] = ret[k];
        if (!f.reenter) th.frames.back().pc++;
    }
}

void Executor::run(ThreadId t) {
    Thread& th = *threads_[t];
    th.hasPending = false;
    const uint64_t stepLimit = opts_.maxStepsPerThread;
    // One comparison per instruction covers both the step bound and the cancellation poll.
    constexpr uint64_t kPollEvery = 1 << 16;
    uint64_t checkAt = opts_.cancelled ? std::min(stepLimit, th.steps + kPollEvery) : stepLimit;
    while (status_ != ExecStatus::Unsupported && !th.stopped && !th.finished) {
        Frame* fr = &th.frames.back();
        const program::Function& fn = program_.functions[fr->func];
        const Instr* code = fn.code.data();
        uint64_t* R = th.regs.data() + fr->regBase;
        uint32_t pc = fr->pc;
        // Straight-line execution of this frame until something changes the frame or leaves the loop.
        for (;;) {
            if (++th.steps > checkAt) {
                if (th.steps > stepLimit) {
                    fr->pc = pc;
                    ++instructions_;
                    bound(t, "step bound: thread " + std::to_string(t) + " executed " + std::to_string(stepLimit) +
                                 " instructions in one execution (--max-steps)");
                    return;
                }
                if (opts_.cancelled()) {
                    fr->pc = pc;
                    bound(t, "cancelled");
                    return;
                }
                checkAt = std::min(stepLimit, th.steps + kPollEvery);
            }
            ++instructions_;
            const Instr& in = code[pc];
            switch (in.op) {
            case Op::Add: R[in.dst] = maskBits(R[in.a] + R[in.b], in.bits); ++pc; continue;
            case Op::Sub: R[in.dst] = maskBits(R[in.a] - R[in.b], in.bits); ++pc; continue;
            case Op::Mul: R[in.dst] = maskBits(R[in.a] * R[in.b], in.bits); ++pc; continue;
            case Op::UDiv:
            case Op::SDiv:
            case Op::URem:
            case Op::SRem: {
                uint64_t a = R[in.a], b = R[in.b];
                if (maskBits(b, in.bits) == 0) {
                    fr->pc = pc;
                    fail(t, report::ErrorKind::Arithmetic,
                         in.op == Op::UDiv || in.op == Op::SDiv ? "division by zero" : "remainder by zero");
                    return;
                }
                uint64_t r;
                if (in.op == Op::UDiv) r = a / b;
                else if (in.op == Op::URem) r = a % b;
                else {
                    int64_t sa = signExtend(a, in.bits), sb = signExtend(b, in.bits);
                    if (sb == -1) r = in.op == Op::SDiv ? uint64_t(-uint64_t(sa)) : 0; // INT_MIN / -1 wraps
                    else r = in.op == Op::SDiv ? uint64_t(sa / sb) : uint64_t(sa % sb);
                }
                R[in.dst] = maskBits(r, in.bits);
                ++pc;
                continue;
            }
            case Op::Shl: {
                uint64_t s = R[in.b];
                R[in.dst] = s >= in.bits ? 0 : maskBits(R[in.a] << s, in.bits);
                ++pc;
                continue;
            }
            case Op::LShr: {
                uint64_t s = R[in.b];
                R[in.dst] = s >= in.bits ? 0 : R[in.a] >> s;
                ++pc;
                continue;
            }
            case Op::AShr: {
                uint64_t s = R[in.b];
                int64_t v = signExtend(R[in.a], in.bits);
                R[in.dst] = maskBits(uint64_t(s >= in.bits ? (v < 0 ? -1 : 0) : v >> s), in.bits);
                ++pc;
                continue;
            }
            case Op::And: R[in.dst] = R[in.a] & R[in.b]; ++pc; continue;
            case Op::Or: R[in.dst] = R[in.a] | R[in.b]; ++pc; continue;
            case Op::Xor: R[in.dst] = R[in.a] ^ R[in.b]; ++pc; continue;
            case Op::FAdd:
            case Op::FSub:
            case Op::FMul:
            case Op::FDiv:
            case Op::FRem: {
                double a = fpValue(R[in.a], in.bits), b = fpValue(R[in.b], in.bits), r = 0;
                if (in.bits == 32) {
                    float fa = float(a), fb = float(b), fr32 = 0;
                    switch (in.op) {
                    case Op::FAdd: fr32 = fa + fb; break;
                    case Op::FSub: fr32 = fa - fb; break;
                    case Op::FMul: fr32 = fa * fb; break;
                    case Op::FDiv: fr32 = fa / fb; break;
                    default: fr32 = std::fmod(fa, fb); break;
                    }
                    R[in.dst] = fromFloat(fr32);
                } else {
                    switch (in.op) {
                    case Op::FAdd: r = a + b; break;
                    case Op::FSub: r = a - b; break;
                    case Op::FMul: r = a * b; break;
                    case Op::FDiv: r = a / b; break;
                    default: r = std::fmod(a, b); break;
                    }
                    R[in.dst] = fromDouble(r);
                }
                ++pc;
                continue;
            }
            case Op::FNeg: R[in.dst] = in.bits == 32 ? (R[in.a] ^ 0x80000000u) : (R[in.a] ^ (uint64_t(1) << 63)); ++pc; continue;
            case Op::ICmp: R[in.dst] = icmp(in.aux, R[in.a], R[in.b], in.bits); ++pc; continue;
            case Op::FCmp: R[in.dst] = fcmp(in.aux, fpValue(R[in.a], in.bits), fpValue(R[in.b], in.bits)); ++pc; continue;
            case Op::Trunc: R[in.dst] = maskBits(R[in.a], in.bits); ++pc; continue;
            case Op::ZExt: R[in.dst] = maskBits(R[in.a], in.aux); ++pc; continue;
            case Op::SExt: R[in.dst] = maskBits(uint64_t(signExtend(R[in.a], in.aux)), in.bits); ++pc; continue;
            case Op::FPTrunc:
            case Op::FPExt: R[in.dst] = fpBits(fpValue(R[in.a], in.aux), in.bits); ++pc; continue;
            case Op::FPToUI:
            case Op::FPToSI: {
                double d = fpValue(R[in.a], in.aux);
                uint64_t v;
                if (std::isnan(d)) v = 0;
                else if (in.op == Op::FPToSI) v = d <= -9.2e18 ? uint64_t(INT64_MIN) : d >= 9.2e18 ? uint64_t(INT64_MAX) : uint64_t(int64_t(d));
                else v = d <= 0 ? 0 : d >= 1.8e19 ? UINT64_MAX : uint64_t(d);
                R[in.dst] = maskBits(v, in.bits);
                ++pc;
                continue;
            }
            case Op::UIToFP: R[in.dst] = fpBits(double(maskBits(R[in.a], in.aux)), in.bits); ++pc; continue;
            case Op::SIToFP: R[in.dst] = fpBits(double(signExtend(R[in.a], in.aux)), in.bits); ++pc; continue;
            case Op::Move: R[in.dst] = R[in.a]; ++pc; continue;
            case Op::Select: R[in.dst] = (R[in.a] & 1) ? R[in.b] : R[in.c]; ++pc; continue;
            case Op::Gep1: R[in.dst] = R[in.a] + in.imm + uint64_t(signExtend(R[in.b], in.aux) * int64_t(int32_t(in.c))); ++pc; continue;
            case Op::Gep: {
                uint64_t p = R[in.a] + in.imm;
                for (uint32_t k = 0; k < in.c; ++k) {
                    const program::GepIndex& g = fn.gepPool[in.b + k];
                    p += uint64_t(signExtend(R[g.reg], g.bits) * g.scale);
                }
                R[in.dst] = p;
                ++pc;
                continue;
            }
            case Op::Load: {
                uint8_t* bytes;
                uint64_t ptr = R[in.a];
                AccessError e = memory_.check(ptr, in.aux, false, &bytes);
                const Object* o = e == AccessError::None || e == AccessError::Freed
                                      ? memory_.object(program::pointerObject(ptr)) : nullptr;
                if (o && o->shared) {
                    fr->pc = pc;
                    Event ev;
                    ev.kind = model::EventKind::Read;
                    ev.addr = ptr;
                    ev.size = in.aux;
                    ev.atomic = in.flags & program::flags::Atomic;
                    setPending(t, ev);
                    return;
                }
                if (e != AccessError::None) {
                    fr->pc = pc;
                    failAccess(t, e, ptr, in.aux);
                    return;
                }
                R[in.dst] = loadLE(bytes, in.aux);
                if (in.bits < 64) R[in.dst] = maskBits(R[in.dst], in.bits);
                ++pc;
                continue;
            }
            case Op::Store: {
                uint8_t* bytes;
                uint64_t ptr = R[in.a];
                AccessError e = memory_.check(ptr, in.aux, true, &bytes);
                const Object* o = e == AccessError::None || e == AccessError::Freed
                                      ? memory_.object(program::pointerObject(ptr)) : nullptr;
                if (o && o->shared) {
                    fr->pc = pc;
                    Event ev;
                    ev.kind = model::EventKind::Write;
                    ev.addr = ptr;
                    ev.size = in.aux;
                    ev.value = R[in.b];
                    ev.atomic = in.flags & program::flags::Atomic;
                    setPending(t, ev);
                    return;
                }
                if (e != AccessError::None) {
                    fr->pc = pc;
                    failAccess(t, e, ptr, in.aux);
                    return;
                }
                uint64_t v = R[in.b];
                std::memcpy(bytes, &v, in.aux);
                ++pc;
                continue;
            }
            case Op::AtomicRmw:
            case Op::CmpXchg: {
                uint8_t* bytes;
                uint64_t ptr = R[in.a];
                AccessError e = memory_.check(ptr, in.aux, true, &bytes);
                const Object* o = e == AccessError::None || e == AccessError::Freed
                                      ? memory_.object(program::pointerObject(ptr)) : nullptr;
                if (o && o->shared) {
                    fr->pc = pc;
                    Event ev;
                    ev.kind = model::EventKind::Rmw;
                    ev.addr = ptr;
                    ev.size = in.aux;
                    ev.atomic = true;
                    if (in.op == Op::CmpXchg) {
                        // What it expects is the thread's own value, fixed before it runs: the unfolding explorer
                        // tells from the write a compare-exchange would read whether it fails (a read only).
                        ev.cas = true;
                        ev.addr2 = maskBits(R[in.b], in.bits);
                    }
                    setPending(t, ev);
                    return;
                }
                if (e != AccessError::None) {
                    fr->pc = pc;
                    failAccess(t, e, ptr, in.aux);
                    return;
                }
                fr->pc = pc;
                Event scratch;
                performMemory(t, in, scratch); // a private atomic: same effect, no event
                pc = fr->pc;
                continue;
            }
            case Op::Fence: ++pc; continue; // sequential consistency: every access is already ordered
            case Op::Alloca: {
                uint64_t n = in.b == program::kNoReg ? 1 : maskBits(R[in.b], in.aux);
                uint64_t size = in.imm * n;
                if (size > (1u << 30)) {
                    fr->pc = pc;
                    fail(t, report::ErrorKind::Memory, "stack allocation of " + std::to_string(size) + " bytes");
                    return;
                }
                const program::AllocaInfo& info = program_.allocas[in.c];
                uint64_t p = memory_.allocate(t, uint32_t(size), ObjectKind::Stack, info.escapes, in.c);
                th.stackObjects.push_back(program::pointerObject(p));
                R[in.dst] = p;
                ++pc;
                continue;
            }
            case Op::Br: pc = in.a; continue;
            case Op::CondBr: pc = (R[in.a] & 1) ? in.b : in.c; continue;
            case Op::Switch: {
                uint64_t v = maskBits(R[in.a], in.bits);
                const uint64_t* table = fn.pool64.data() + in.b;
                uint32_t next = pc + 1; // no case matches: the Br to the default that follows
                for (uint32_t k = 0; k < in.c; ++k)
                    if (table[2 * k] == v) {
                        next = uint32_t(table[2 * k + 1]);
                        break;
                    }
                pc = next;
                continue;
            }
            case Op::LoopEnter: th.loopCounters[fr->loopBase + in.aux] = uint64_t(th.effects) << 32; pc = in.a; continue;
            case Op::LoopBack: {
                uint64_t& slot = th.loopCounters[fr->loopBase + in.aux];
                if (in.imm) {
                    // Spin loop: an iteration that changed nothing is cut (spin-assume, see LowerInstr.cpp).
                    if (uint32_t(slot >> 32) == th.effects) {
                        fr->pc = pc;
                        cut(t);
                        return;
                    }
                    slot = uint64_t(th.effects) << 32 | uint32_t(slot);
                }
                const uint32_t n = uint32_t(slot) + 1;
                slot = (slot & ~uint64_t(0xffffffff)) | n;
                if (opts_.unroll && n >= opts_.unroll) {
                    fr->pc = pc;
                    auto l = program_.sourceLocation(fn.locs[pc]);
                    bound(t, "loop bound " + std::to_string(opts_.unroll) + " reached at " + report::formatLocation(l) +
                                 " (--unroll)");
                    return;
                }
                pc = in.a;
                continue;
            }
            case Op::Ret: {
                fr->pc = pc;
                uint64_t ret[8] = {0};
                uint32_t slots = in.a == program::kNoReg ? 0 : std::min<uint32_t>(in.aux ? in.aux : 1, 8);
                for (uint32_t k = 0; k < slots; ++k) ret[k] = R[in.a + k];
                if (th.frames.size() == 1 && fr->destructor) { // a key's destructor returned: the exit goes on
                    finishThread(t, th.retval);
                    if (th.finished || th.stopped) return;
                    break; // the next destructor
                }
                if (th.frames.size() == 1) {
                    if (t == 0) {
                        // main returns: exit(ret) ends every thread. A visible event: it is ordered
                        // against everything other threads do.
                        th.retval = ret[0];
                        Event ev;
                        ev.kind = model::EventKind::ProgramExit;
                        ev.value = ret[0];
                        setPending(t, ev);
                        return;
                    }
                    finishThread(t, ret[0]);
                    if (th.finished || th.stopped) return;
                    break; // a key's destructor runs first
                }
                popFrame(t, ret, slots);
                break; // frame changed
            }
            case Op::Call: {
                fr->pc = pc;
                uint64_t args[32];
                uint32_t n = std::min<uint32_t>(in.c, 32);
                for (uint32_t k = 0; k < n; ++k) args[k] = R[fn.regPool[in.b + k]];
                if (!pushFrame(t, in.a, args, n, in.dst, in.aux, in.flags & program::flags::AtomicFunction)) return;
                break;
            }
            case Op::CallIndirect: {
                fr->pc = pc;
                uint64_t target = R[in.a];
                uint32_t f = program_.functionAt(target);
                if (f == ~0u) {
                    fail(t, report::ErrorKind::Memory,
                         target == 0 ? "call through a null function pointer" : "call through an invalid function pointer");
                    return;
                }
                const program::Function& callee = program_.functions[f];
                if (!callee.defined) {
                    unsupported(t, "indirect call to external function `" + callee.name + "`");
                    return;
                }
                uint64_t args[32];
                uint32_t n = std::min<uint32_t>(in.c, 32);
                for (uint32_t k = 0; k < n; ++k) args[k] = R[fn.regPool[in.b + k]];
                if (!pushFrame(t, f, args, n, in.dst, in.aux, callee.atomicSection)) return;
                break;
            }
            case Op::CallBuiltin: {
                fr->pc = pc;
                if (!callBuiltin(t, in)) return; // visible, pending; or the execution ended
                if (status_ == ExecStatus::Unsupported || th.finished || th.stopped) return;
                break; // the builtin advanced pc (and may have changed frames)
            }
            case Op::Unreachable:
                fr->pc = pc;
                fail(t, report::ErrorKind::Memory, "reached unreachable code (undefined behaviour)");
                return;
            case Op::Unsupported:
                fr->pc = pc;
                unsupported(t, program_.messages[in.a]);
                return;
            }
            break; // only the cases that changed frames get here
        }
    }
}

void Executor::performMemory(ThreadId t, const Instr& in, Event& ev) {
    Thread& th = *threads_[t];
    Frame& fr = th.frames.back();
    uint64_t* R = th.regs.data() + fr.regBase;
    uint8_t* bytes;
    uint64_t ptr = R[in.a];
    AccessError e = memory_.check(ptr, in.aux, in.op != Op::Load, &bytes);
    if (e != AccessError::None) {
        failAccess(t, e, ptr, in.aux);
        return;
    }
    switch (in.op) {
    case Op::Load:
        ev.value = maskBits(loadLE(bytes, in.aux), in.bits);
        R[in.dst] = ev.value;
        break;
    case Op::Store: {
        uint64_t v = R[in.b];
        std::memcpy(bytes, &v, in.aux);
        break;
    }
    case Op::AtomicRmw: {
        uint64_t old = maskBits(loadLE(bytes, in.aux), in.bits);
        uint64_t nv = rmwApply(program::RmwOp(in.imm), old, R[in.b], in.bits);
        std::memcpy(bytes, &nv, in.aux);
        if (nv != old) ++th.effects;
        R[in.dst] = old;
        ev.value = old;
        ev.value2 = nv;
        break;
    }
    case Op::CmpXchg: {
        uint64_t old = maskBits(loadLE(bytes, in.aux), in.bits);
        bool ok = old == maskBits(R[in.b], in.bits);
        if (ok) {
            uint64_t nv = R[in.c];
            std::memcpy(bytes, &nv, in.aux);
            if (maskBits(nv, in.bits) != old) ++th.effects;
        }
        R[in.dst] = old;
        R[in.dst + 1] = ok;
        ev.value = old;
        ev.value2 = ok ? maskBits(R[in.c], in.bits) : old;
        ev.rmwWrote = ok;
        break;
    }
    default: break;
    }
    fr.pc++;
}

} // namespace skein::exec
