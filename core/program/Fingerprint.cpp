#include "core/program/Fingerprint.h"

#include <unordered_map>
#include <unordered_set>

namespace skein::program {
namespace {

// FNV-1a, 64-bit (as computeFingerprint): it only has to separate programs, not resist an adversary.
struct Hasher {
    uint64_t h = 1469598103934665603ull;
    void bytes(const void* p, size_t n) {
        auto* c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
    }
    template <class T> void pod(const T& v) { bytes(&v, sizeof v); }
    void str(const std::string& s) {
        pod(s.size());
        bytes(s.data(), s.size());
    }
};

constexpr uint32_t kAssertLineArg = 2; // __assert_fail(expr, file, line, function)

// Calls `use` with every register instruction `in` reads (Program.h documents each Op's operands).
template <class F> void forEachUse(const Function& f, const Instr& in, F&& use) {
    auto pool = [&](uint32_t off, uint32_t count) {
        for (uint32_t k = 0; k < count && off + k < f.regPool.size(); ++k) use(f.regPool[off + k]);
    };
    switch (in.op) {
    case Op::Select:
    case Op::CmpXchg:
        use(in.a), use(in.b), use(in.c);
        break;
    case Op::Store:
    case Op::AtomicRmw:
    case Op::Gep1:
        use(in.a), use(in.b);
        break;
    case Op::Gep:
        use(in.a);
        for (uint32_t k = 0; k < in.c && in.b + k < f.gepPool.size(); ++k) use(f.gepPool[in.b + k].reg);
        break;
    case Op::Load:
    case Op::CondBr:
    case Op::Switch:
    case Op::Ret:
        use(in.a);
        break;
    case Op::Alloca:
        use(in.b);
        break;
    case Op::Call:
    case Op::CallBuiltin:
        pool(in.b, in.c);
        break;
    case Op::CallIndirect:
        use(in.a), pool(in.b, in.c);
        break;
    case Op::Br:
    case Op::Fence:
    case Op::LoopBack:
    case Op::LoopEnter:
    case Op::Unreachable:
    case Op::Unsupported:
        break;
    default:
        use(in.a), use(in.b);
        break; // arithmetic, comparisons, casts, Move: a (and b) are registers
    }
}

// Registers of `f` that hold assert()'s line number and are read nowhere else.
std::unordered_set<Reg> assertLineRegisters(const Function& f) {
    std::unordered_map<Reg, uint32_t> lineUses;
    for (const Instr& in : f.code)
        if (in.op == Op::CallBuiltin && in.aux == uint16_t(Builtin::AssertFail) && in.c > kAssertLineArg &&
            in.b + kAssertLineArg < f.regPool.size())
            lineUses[f.regPool[in.b + kAssertLineArg]]++;
    if (lineUses.empty()) return {};
    std::unordered_set<Reg> constants;
    for (auto& [r, v] : f.constants) constants.insert(r);
    std::unordered_map<Reg, uint32_t> uses;
    for (const Instr& in : f.code)
        forEachUse(f, in, [&](Reg r) {
            if (lineUses.count(r)) uses[r]++;
        });
    std::unordered_set<Reg> out;
    for (auto& [r, n] : lineUses)
        if (constants.count(r) && uses[r] == n) out.insert(r);
    return out;
}

} // namespace

uint64_t positionIndependentFingerprint(const Program& p) {
    Hasher h;
    h.pod(p.functions.size());
    for (const Function& f : p.functions) {
        h.str(f.name);
        h.pod(f.defined);
        h.pod(f.atomicSection);
        h.pod(f.variadic);
        h.pod(f.numParams);
        h.pod(f.numRegs);
        h.pod(f.numLoops);
        for (const Instr& i : f.code) {
            h.pod(i.op);
            h.pod(i.bits);
            h.pod(i.aux);
            h.pod(i.flags);
            h.pod(i.dst);
            h.pod(i.a);
            h.pod(i.b);
            h.pod(i.c);
            h.pod(i.imm);
        }
        std::unordered_set<Reg> lineRegs = assertLineRegisters(f);
        for (auto& [r, v] : f.constants) {
            h.pod(r);
            h.pod(lineRegs.count(r) ? uint64_t(0x11e11e11e11e11e1ull) : v);
        }
        for (Reg r : f.regPool) h.pod(r);
        for (const GepIndex& g : f.gepPool) {
            h.pod(g.reg);
            h.pod(g.bits);
            h.pod(g.scale);
        }
        for (uint64_t v : f.pool64) h.pod(v);
    }
    for (const Global& g : p.globals) {
        h.str(g.name);
        h.pod(g.size);
        h.pod(g.elemSize);
        h.pod(g.readOnly);
        h.pod(g.threadLocal);
        h.bytes(g.init.data(), g.init.size());
    }
    for (const AllocaInfo& a : p.allocas) {
        h.str(a.name);
        h.pod(a.elemSize);
        h.pod(a.escapes);
    }
    for (const std::string& m : p.messages) h.str(m);
    h.pod(p.mainFunction);
    return h.h;
}

} // namespace skein::program
