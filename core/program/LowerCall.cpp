// The lowering of calls (FunctionLowering.h): arguments into the register pool, builtins' call sites, byval
// copies, intrinsics, and variadic calls — an area of arguments per call site, and va_start.
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicInst.h>

#include "core/program/Format.h"
#include "core/program/FunctionLowering.h"

namespace skein::program::lowering {

// A byval argument points at the caller's object (clang at -O0 passes it without a copy): C passes a copy, so
// the callee makes it, into a stack object of its own frame, before its first instruction.
void FunctionLowering::copyByvalArguments() {
    for (llvm::Argument& a : f_.args()) {
        if (!a.hasByValAttr()) continue;
        uint64_t size = mc_.dl.getTypeAllocSize(a.getParamByValType());
        Reg param = regOf_[&a], copy = out_.numRegs++, sizeReg = out_.numRegs++;
        out_.constants.push_back({sizeReg, size});
        emit({.op = Op::Alloca, .dst = copy, .b = kNoReg, .c = uint32_t(mc_.program.allocas.size()), .imm = size},
             out_.loc);
        mc_.program.allocas.push_back(
            {a.hasName() ? a.getName().str() : "<argument>", 0, mc_.escapes(&a)});
        uint32_t off = uint32_t(out_.regPool.size());
        out_.regPool.insert(out_.regPool.end(), {copy, param, sizeReg});
        emit({.op = Op::CallBuiltin, .aux = uint16_t(Builtin::Memcpy), .dst = kNoReg, .b = off, .c = 3}, out_.loc);
        emit({.op = Op::Move, .dst = param, .a = copy}, out_.loc);
    }
}

// A call that passes a variadic argument area (lowerVariadicCall): one to a variadic function the program defines, or
// through a pointer of a variadic type. (printf and the other variadic builtins take their arguments in the pool.)
bool FunctionLowering::variadicCallee(const llvm::CallBase& call) const {
    if (!call.getFunctionType()->isVarArg() || call.isInlineAsm()) return false;
    const llvm::Function* callee = call.getCalledFunction();
    if (!callee) return true;
    if (callee->isDeclaration() || callee->isIntrinsic()) return false;
    const std::optional<Builtin> b = lookupBuiltin(*callee); // as lowerCall: these are builtins even when defined
    return !(b && (*b == Builtin::ReachError || *b == Builtin::AtomicBegin || *b == Builtin::AtomicEnd ||
                   *b == Builtin::Nondet));
}

// x86-64's va_arg (clang's inline expansion of it) takes an argument from the va_list's register save area while
// gp_offset/fp_offset say registers are left, and from overflow_arg_area otherwise. Skein's va_start says none are
// left, so every variadic argument comes from overflow_arg_area: the caller lays them out there as the stack would
// hold them — 8-byte slots, a value of 16-byte alignment at a multiple of 16, a struct passed by value in its
// bytes rounded up to 8 — in one area per call site, allocated at the function's entry (a call in a loop reuses
// it: the area is dead once the call returns). The area is the calling thread's own: its accesses are no events.
void FunctionLowering::allocateVariadicAreas() {
    for (llvm::BasicBlock& bb : f_)
        for (llvm::Instruction& i : bb) {
            auto* call = dyn_cast<llvm::CallBase>(&i);
            if (!call || !variadicCallee(*call)) continue;
            VariadicSite site;
            uint64_t size = 0;
            for (unsigned k = call->getFunctionType()->getNumParams(); k < call->arg_size(); ++k) {
                const bool byval = call->isByValArgument(k);
                llvm::Type* t = byval ? call->getParamByValType(k) : call->getArgOperand(k)->getType();
                std::vector<std::pair<uint64_t, llvm::Type*>> leaves;
                if (!byval && (!scalarLeaves(mc_.dl, t, 0, leaves) || leaves.size() > 64)) { // (lowerAggregateAccess)
                    site.refused = "a variadic argument of type " + describeType(t);
                    break;
                }
                const uint64_t align = mc_.dl.getABITypeAlign(t).value() > 8 ? 16 : 8;
                size = (size + align - 1) / align * align;
                site.offsets.push_back(size);
                size += (mc_.dl.getTypeAllocSize(t) + 7) / 8 * 8;
            }
            if (site.refused.empty()) {
                site.area = out_.numRegs++;
                emit({.op = Op::Alloca, .dst = site.area, .b = kNoReg, .c = uint32_t(mc_.program.allocas.size()),
                      .imm = size},
                     out_.loc);
                mc_.program.allocas.push_back({"<variadic arguments>", 0, /*escapes=*/false});
            }
            variadicSites_[call] = std::move(site);
        }
}

// Stores the call's extra arguments into its site's area and leaves in the pool (off, count) the fixed arguments
// followed by the area's address: the callee's hidden last parameter (run). False when refused (emitted).
bool FunctionLowering::lowerVariadicCall(llvm::CallBase& call, uint32_t& off, uint32_t& count, uint32_t L) {
    const VariadicSite& site = variadicSites_[&call];
    if (!site.refused.empty()) {
        unsupported(site.refused, L);
        return false;
    }
    const unsigned fixed = call.getFunctionType()->getNumParams();
    uint32_t slot = off, fixedSlots = 0;
    for (unsigned k = 0; k < call.arg_size(); ++k) {
        llvm::Value* a = call.getArgOperand(k);
        const uint32_t slots = slotsOf(a->getType());
        if (k < fixed) {
            fixedSlots += slots;
        } else {
            const uint64_t offset = site.offsets[k - fixed];
            Reg at = site.area;
            if (offset) {
                at = out_.numRegs++;
                emit({.op = Op::Gep, .dst = at, .a = site.area, .b = 0, .c = 0, .imm = offset}, L);
            }
            llvm::Type* t = a->getType();
            if (call.isByValArgument(k)) { // the struct's bytes, from the caller's copy
                const Reg size = constant(mc_.dl.getTypeAllocSize(call.getParamByValType(k)));
                const uint32_t at3 = uint32_t(out_.regPool.size());
                out_.regPool.insert(out_.regPool.end(), {at, out_.regPool[slot], size});
                emit({.op = Op::CallBuiltin, .aux = uint16_t(Builtin::Memcpy), .dst = kNoReg, .b = at3, .c = 3}, L);
            } else if (!lowerAggregateAccess(t, at, out_.regPool[slot], false, L)) {
                emit({.op = Op::Store, .bits = uint8_t(scalarBits(t)), .aux = uint16_t(mc_.dl.getTypeStoreSize(t)),
                      .a = at, .b = out_.regPool[slot]},
                     L);
            }
        }
        slot += slots;
    }
    const uint32_t first = uint32_t(out_.regPool.size());
    for (uint32_t k = 0; k < fixedSlots; ++k) out_.regPool.push_back(out_.regPool[off + k]);
    out_.regPool.push_back(site.area);
    off = first, count = fixedSlots + 1;
    return true;
}

// va_start(ap): no argument registers left (gp_offset 48 = 6 × 8, fp_offset 176 = 48 + 8 × 16), the arguments in
// the area the caller passed (allocateVariadicAreas), no register save area.
void FunctionLowering::lowerVaStart(llvm::CallBase& call, uint32_t L) {
    if (vaArea_ == kNoReg) return unsupported("va_start outside a variadic function", L);
    auto ap = operand(call.getArgOperand(0));
    if (!ap) return unsupported("va_start of this va_list", L);
    const std::pair<uint64_t, Reg> fields[] = {{0, constant(48)}, {4, constant(176)}, {8, vaArea_}, {16, constant(0)}};
    for (auto [offset, value] : fields) {
        Reg at = *ap;
        if (offset) {
            at = out_.numRegs++;
            emit({.op = Op::Gep, .dst = at, .a = *ap, .b = 0, .c = 0, .imm = offset}, L);
        }
        const uint8_t bytes = offset < 8 ? 4 : 8;
        emit({.op = Op::Store, .bits = uint8_t(bytes * 8), .aux = bytes, .a = at, .b = value}, L);
    }
}

// printf formats a %s argument's string outside any event (Builtins.cpp): so that a race between printing a
// string and writing it shows, each such string of a constant format is first read by an event at the printf's line —
// __skein_read_string (strlen's event), or for a precision __skein_read_string_n, which reads what printf reads: up
// to the NUL or that many characters (an array without a NUL may be printed so). (The string printed is the one
// read: nothing runs between the two.) The printf family's C models read theirs the same way (libc.c, readStrings).
// A format built at run time is scanned when the call runs: each pointer argument is read by
// __skein_read_format_arg, which reads it only if the format makes it a %s string (no event otherwise).
void FunctionLowering::readStringArguments(llvm::CallBase& call, bool stream, uint32_t off, uint32_t L) {
    const unsigned first = stream ? 2 : 1; // the argument the format's first conversion takes
    auto slotOf = [&](unsigned k) { // the argument's register, in the pool argsToPool filled
        uint32_t slot = off;
        for (unsigned a = 0; a < k; ++a) slot += slotsOf(call.getArgOperand(a)->getType());
        return slot;
    };
    llvm::StringRef fmt;
    if (!llvm::getConstantStringInfo(call.getArgOperand(first - 1), fmt)) {
        for (unsigned k = first; k < call.arg_size(); ++k) {
            if (!call.getArgOperand(k)->getType()->isPointerTy()) continue;
            // The string, the argument before it (a `.*` precision's), the format, the string's conversion index.
            const uint32_t at = uint32_t(out_.regPool.size());
            out_.regPool.push_back(out_.regPool[slotOf(k)]);
            out_.regPool.push_back(k > first ? out_.regPool[slotOf(k - 1)] : constant(0));
            out_.regPool.push_back(out_.regPool[slotOf(first - 1)]);
            out_.regPool.push_back(constant(k - first));
            emit({.op = Op::CallBuiltin, .aux = uint16_t(Builtin::ReadFormatArg), .dst = kNoReg, .b = at, .c = 4}, L);
        }
        return;
    }
    for (const StringConversion& c : scanFormat(std::string_view(fmt.data(), fmt.size())).strings) {
        const unsigned k = first + c.arg;
        if (k >= call.arg_size() || !call.getArgOperand(k)->getType()->isPointerTy()) continue;
        const bool bounded = c.precision >= 0 || c.precisionArg >= 0;
        if (c.precisionArg >= 0 && first + unsigned(c.precisionArg) >= call.arg_size()) continue;
        const uint32_t at = uint32_t(out_.regPool.size());
        out_.regPool.push_back(out_.regPool[slotOf(k)]);
        if (bounded)
            out_.regPool.push_back(c.precisionArg >= 0 ? out_.regPool[slotOf(first + unsigned(c.precisionArg))]
                                                       : constant(uint64_t(c.precision)));
        const Builtin b = bounded ? Builtin::ReadStringN : Builtin::ReadString;
        emit({.op = Op::CallBuiltin, .aux = uint16_t(b), .dst = kNoReg, .b = at, .c = bounded ? 2u : 1u}, L);
    }
}

// Places the call's arguments in the register pool; returns the first argument that has no register.
const llvm::Value* FunctionLowering::argsToPool(llvm::CallBase& call, uint32_t& off, uint32_t& count) {
    off = uint32_t(out_.regPool.size());
    for (llvm::Value* a : call.args()) {
        auto r = operand(a);
        if (!r) return a;
        for (uint32_t k = 0; k < slotsOf(a->getType()); ++k) out_.regPool.push_back(*r + k);
    }
    count = uint32_t(out_.regPool.size()) - off;
    return nullptr;
}

void FunctionLowering::lowerCall(llvm::CallBase& call, uint32_t L) {
    if (call.isInlineAsm()) return unsupported("inline assembly", L);
    llvm::Function* callee = call.getCalledFunction();
    uint32_t off = 0, count = 0;
    if (const llvm::Value* bad = argsToPool(call, off, count))
        return unsupported("call argument of type " + describeType(bad->getType()), L);
    if (!callee) {
        auto target = operand(call.getCalledOperand());
        if (!target) return unsupported("indirect call", L);
        if (variadicCallee(call) && !lowerVariadicCall(call, off, count, L)) return;
        emit({.op = Op::CallIndirect, .aux = uint16_t(slotsOf(call.getType())), .dst = dst(call), .a = *target,
              .b = off, .c = count},
             L);
        return;
    }
    if (callee->isIntrinsic()) {
        auto id = callee->getIntrinsicID();
        switch (id) {
        case llvm::Intrinsic::lifetime_start:
        case llvm::Intrinsic::lifetime_end:
        case llvm::Intrinsic::stackrestore:
        case llvm::Intrinsic::experimental_noalias_scope_decl:
        case llvm::Intrinsic::assume:
        case llvm::Intrinsic::var_annotation:
        case llvm::Intrinsic::donothing: return;
        case llvm::Intrinsic::expect:
        case llvm::Intrinsic::ptr_annotation:
            emit({.op = Op::Move, .dst = dst(call), .a = out_.regPool[off]}, L);
            return;
        case llvm::Intrinsic::ptrmask: // (its only source in C at -O0: va_arg of a 16-byte-aligned type)
            return unsupported("pointer alignment (llvm.ptrmask: a va_arg of a 16-byte-aligned type, or "
                               "__builtin_align_down)",
                               L);
        case llvm::Intrinsic::vastart: return lowerVaStart(call, L);
        case llvm::Intrinsic::vaend: return;
        case llvm::Intrinsic::vacopy: { // the 24 bytes of the va_list (the area it points into is shared, and read-only)
            uint32_t at = uint32_t(out_.regPool.size());
            out_.regPool.insert(out_.regPool.end(), {out_.regPool[off], out_.regPool[off + 1], constant(24)});
            emit({.op = Op::CallBuiltin, .aux = uint16_t(Builtin::Memcpy), .dst = kNoReg, .b = at, .c = 3}, L);
            return;
        }
        default: break;
        }
    }
    std::optional<Builtin> b = lookupBuiltin(*callee);
    // reach_error & co. are the property, whatever body the file gives them (svcomp-dialect.md).
    bool alwaysBuiltin = b && (*b == Builtin::ReachError || *b == Builtin::AtomicBegin || *b == Builtin::AtomicEnd ||
                               *b == Builtin::Nondet);
    if (b && (alwaysBuiltin || callee->isDeclaration())) {
        if (*b == Builtin::Printf || *b == Builtin::Fprintf) readStringArguments(call, *b == Builtin::Fprintf, off, L);
        Instr in{.op = Op::CallBuiltin, .aux = uint16_t(*b), .dst = dst(call), .b = off, .c = count};
        if (*b == Builtin::Nondet) {
            std::string n = callee->getName().str().substr(18);
            bool isUnsigned = n[0] == 'u' || n == "bool" || n == "_Bool" || n == "size_t" || n == "pointer";
            unsigned bits = scalarBits(call.getType());
            if (!bits || call.getType()->isFloatingPointTy()) return unsupported("nondeterministic " + n, L);
            in.bits = uint8_t(bits);
            in.imm = (isUnsigned ? 0 : 1) | ((n == "bool" || n == "_Bool") ? 2 : 0);
        } else if (*b == Builtin::AddOverflow) {
            static const char* names[] = {"llvm.sadd", "llvm.uadd", "llvm.ssub", "llvm.usub", "llvm.smul", "llvm.umul"};
            std::string name = callee->getName().str();
            for (uint64_t k = 0; k < 6; ++k)
                if (name.rfind(names[k], 0) == 0) in.imm = k;
            in.bits = uint8_t(scalarBits(call.getArgOperand(0)->getType()));
        } else if (!call.getType()->isVoidTy()) {
            in.bits = uint8_t(scalarBits(call.getType()));
        }
        if (callee->getName().starts_with("thrd_") || callee->getName().starts_with("mtx_") ||
            callee->getName().starts_with("cnd_"))
            in.imm = kC11Call;
        if (isTimedCall(*b, *callee)) in.imm |= kTimedCall;
        if ((*b == Builtin::Malloc || *b == Builtin::Calloc) && !mc_.heapEscapes(&call)) in.imm |= kPrivateAllocation;
        if (*b == Builtin::ThreadLocalAddress) {
            auto* gv = dyn_cast<llvm::GlobalVariable>(call.getArgOperand(0));
            if (!gv) return unsupported("thread-local address", L);
            in.imm = mc_.globalIndex[gv];
        }
        if (*b == Builtin::Sqrt || *b == Builtin::FAbs || *b == Builtin::Floor || *b == Builtin::Ceil)
            in.bits = uint8_t(scalarBits(call.getType()));
        emit(in, L);
        return;
    }
    if (callee->isDeclaration())
        return unsupported("call to external function `" + callee->getName().str() + "` (Skein has no model of it)", L);
    if (callee->isVarArg() && !lowerVariadicCall(call, off, count, L)) return;
    uint32_t target = mc_.functionIndex[callee];
    Instr in{.op = Op::Call, .aux = uint16_t(slotsOf(call.getType())), .dst = dst(call), .a = target, .b = off, .c = count};
    if (mc_.program.functions[target].atomicSection) in.flags |= flags::AtomicFunction;
    emit(in, L);
}

} // namespace skein::program::lowering
