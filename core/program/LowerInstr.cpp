// Per-function lowering: registers, constants, instructions, phi copies on edges, loop counters.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

#include "core/program/FunctionLowering.h"

namespace skein::program::lowering {

namespace {

std::string allocaName(llvm::AllocaInst* ai) {
    for (auto* d : llvm::findDbgDeclares(ai))
        if (auto* var = d->getVariable()) return var->getName().str();
    for (auto* d : llvm::findDVRDeclares(ai))
        if (auto* var = d->getVariable()) return var->getName().str();
    return ai->hasName() ? ai->getName().str() : std::string("<stack>");
}
} // namespace

// A loop whose iterations can only read, or try to change memory and fail: loads, arithmetic, branches, calls
// of builtins that do nothing in the model (sched_yield, usleep), pthread_mutex_trylock, atomic exchanges and
// compare-exchanges — no plain stores, other calls, loop-carried values or allocas. Such an iteration either
// changed something (a trylock or compare-exchange that succeeded, an exchange that wrote a new value: the
// executor counts these, Thread::effects) or left the state as it found it, and then another iteration cannot
// produce a state that exiting on a later read would not: the executor cuts it at the back edge, as an assume
// of the exit condition (GenMC's spin-assume, extended to failed lock attempts), so spin-waits and spin locks
// need no unroll bound. Under sequential consistency an exchange that writes the value it read is invisible.
bool FunctionLowering::isSpinLoop(llvm::Loop* l) {
    for (llvm::BasicBlock* bb : l->blocks())
        for (llvm::Instruction& i : *bb) {
            if (isa<llvm::DbgInfoIntrinsic>(i)) continue;
            // A phi in the header carries a value from one iteration to the next (a counter): iterations
            // differ. Phis elsewhere only merge values within one iteration (`a && b` conditions).
            if (isa<llvm::PHINode>(i) && bb != l->getHeader()) continue;
            if (isa<llvm::LoadInst>(i) || isa<llvm::BinaryOperator>(i) || isa<llvm::UnaryOperator>(i) ||
                isa<llvm::CmpInst>(i) || isa<llvm::CastInst>(i) || isa<llvm::GetElementPtrInst>(i) ||
                isa<llvm::BranchInst>(i) || isa<llvm::SelectInst>(i) || isa<llvm::ExtractValueInst>(i) ||
                isa<llvm::AtomicRMWInst>(i) || isa<llvm::AtomicCmpXchgInst>(i) || isa<llvm::FenceInst>(i))
                continue;
            if (auto* call = dyn_cast<llvm::CallInst>(&i)) {
                const llvm::Function* callee = call->getCalledFunction();
                std::optional<Builtin> b = callee ? lookupBuiltin(*callee) : std::nullopt;
                // (A timed acquire is a try too; a timed condition wait's timeout is one: an unlock and
                // re-lock that leave the mutex as they found it — kTimedCall's comment in Program.h.)
                if (b && callee->isDeclaration() &&
                    (*b == Builtin::NoOp || *b == Builtin::MutexTrylock || *b == Builtin::SemTryWait ||
                     (*b == Builtin::CondWait && isTimedCall(*b, *callee))))
                    continue;
            }
            return false;
        }
    return true;
}

// Scalar leaves of an aggregate in register-slot order (the order of slotsOf), with their byte offsets.
bool scalarLeaves(const llvm::DataLayout& dl, llvm::Type* t, uint64_t offset,
                  std::vector<std::pair<uint64_t, llvm::Type*>>& out) {
    if (auto* st = dyn_cast<llvm::StructType>(t)) {
        const llvm::StructLayout* sl = dl.getStructLayout(st);
        for (unsigned k = 0; k < st->getNumElements(); ++k)
            if (!scalarLeaves(dl, st->getElementType(k), offset + sl->getElementOffset(k), out)) return false;
        return true;
    }
    if (auto* at = dyn_cast<llvm::ArrayType>(t)) {
        uint64_t stride = dl.getTypeAllocSize(at->getElementType());
        for (uint64_t k = 0; k < at->getNumElements(); ++k)
            if (!scalarLeaves(dl, at->getElementType(), offset + k * stride, out)) return false;
        return true;
    }
    if (auto* vt = dyn_cast<llvm::FixedVectorType>(t)) {
        uint64_t bits = vt->getElementType()->getPrimitiveSizeInBits();
        if (bits == 0 || bits % 8 || !scalarBits(vt->getElementType())) return false; // <N x i1>: packed bits
        for (unsigned k = 0; k < vt->getNumElements(); ++k) out.push_back({offset + k * (bits / 8), vt->getElementType()});
        return true;
    }
    if (!scalarBits(t)) return false;
    out.push_back({offset, t});
    return true;
}
// A load (into slots firstSlot..) or store (from them) of a whole aggregate, as one access per scalar leaf.
bool FunctionLowering::lowerAggregateAccess(llvm::Type* t, Reg ptr, Reg firstSlot, bool load, uint32_t L) {
    std::vector<std::pair<uint64_t, llvm::Type*>> leaves;
    if (!llvm::isa<llvm::StructType, llvm::ArrayType, llvm::FixedVectorType>(t) || !scalarLeaves(mc_.dl, t, 0, leaves) ||
        leaves.size() > 64)
        return false;
    for (size_t k = 0; k < leaves.size(); ++k) {
        auto [offset, leaf] = leaves[k];
        Reg at = ptr;
        if (offset) {
            at = out_.numRegs++;
            emit({.op = Op::Gep, .dst = at, .a = ptr, .b = 0, .c = 0, .imm = offset}, L);
        }
        Instr in{.op = load ? Op::Load : Op::Store, .bits = uint8_t(scalarBits(leaf)),
                 .aux = uint16_t(mc_.dl.getTypeStoreSize(leaf)), .a = at};
        if (load) in.dst = Reg(firstSlot + k);
        else in.b = Reg(firstSlot + k);
        emit(in, L);
    }
    return true;
}

void FunctionLowering::lowerInstruction(llvm::Instruction& i) {
    using llvm::Instruction;
    if (isa<llvm::DbgInfoIntrinsic>(i) || isa<llvm::PHINode>(i)) return; // phis become copies on edges
    uint32_t L = loc(i);
    auto need = [&](const llvm::Value* v) -> std::optional<Reg> { return operand(v); };
    // Vectors only move whole (clang passes and returns `struct {float x, y;}` as <2 x float>): loads, stores,
    // returns and calls of them are lowered slot by slot; arithmetic on them is not modelled.
    bool movesWhole = isa<llvm::LoadInst, llvm::StoreInst, llvm::ReturnInst>(i) ||
                      (isa<llvm::CallInst>(i) && !cast<llvm::CallInst>(i).getIntrinsicID());
    auto vectorOk = [&](llvm::Type* t) {
        std::vector<std::pair<uint64_t, llvm::Type*>> leaves;
        return movesWhole && isa<llvm::FixedVectorType>(t) && scalarLeaves(mc_.dl, t, 0, leaves);
    };
    for (llvm::Value* op : i.operands())
        if (op->getType()->isVectorTy() && !vectorOk(op->getType())) return unsupported("vector operation", L);
    if (i.getType()->isVectorTy() && !vectorOk(i.getType())) return unsupported("vector operation", L);

    if (auto* bo = dyn_cast<llvm::BinaryOperator>(&i)) {
        unsigned bits = scalarBits(bo->getType());
        auto a = need(bo->getOperand(0)), b = need(bo->getOperand(1));
        if (!bits || !a || !b) return unsupported("operation on " + describeType(bo->getType()), L);
        static const std::map<unsigned, Op> ops = {
            {Instruction::Add, Op::Add},   {Instruction::Sub, Op::Sub},   {Instruction::Mul, Op::Mul},
            {Instruction::UDiv, Op::UDiv}, {Instruction::SDiv, Op::SDiv}, {Instruction::URem, Op::URem},
            {Instruction::SRem, Op::SRem}, {Instruction::Shl, Op::Shl},   {Instruction::LShr, Op::LShr},
            {Instruction::AShr, Op::AShr}, {Instruction::And, Op::And},   {Instruction::Or, Op::Or},
            {Instruction::Xor, Op::Xor},   {Instruction::FAdd, Op::FAdd}, {Instruction::FSub, Op::FSub},
            {Instruction::FMul, Op::FMul}, {Instruction::FDiv, Op::FDiv}, {Instruction::FRem, Op::FRem}};
        auto it = ops.find(bo->getOpcode());
        if (it == ops.end()) return unsupported(std::string("instruction ") + bo->getOpcodeName(), L);
        Instr in;
        in.op = it->second;
        in.bits = uint8_t(bits);
        in.dst = dst(i);
        in.a = *a;
        in.b = *b;
        emit(in, L);
        return;
    }
    switch (i.getOpcode()) {
    case Instruction::FNeg: {
        auto a = need(i.getOperand(0));
        unsigned bits = scalarBits(i.getType());
        if (!a || !bits) return unsupported("fneg on " + describeType(i.getType()), L);
        emit({.op = Op::FNeg, .bits = uint8_t(bits), .dst = dst(i), .a = *a}, L);
        return;
    }
    case Instruction::ICmp:
    case Instruction::FCmp: {
        auto* cmp = cast<llvm::CmpInst>(&i);
        auto a = need(cmp->getOperand(0)), b = need(cmp->getOperand(1));
        unsigned bits = scalarBits(cmp->getOperand(0)->getType());
        if (!a || !b || !bits) return unsupported("comparison of " + describeType(cmp->getOperand(0)->getType()), L);
        Instr in{.op = isa<llvm::ICmpInst>(cmp) ? Op::ICmp : Op::FCmp, .bits = uint8_t(bits), .dst = dst(i), .a = *a, .b = *b};
        using P = llvm::CmpInst::Predicate;
        switch (cmp->getPredicate()) {
        case P::ICMP_EQ: in.aux = EQ; break;
        case P::ICMP_NE: in.aux = NE; break;
        case P::ICMP_UGT: in.aux = UGT; break;
        case P::ICMP_UGE: in.aux = UGE; break;
        case P::ICMP_ULT: in.aux = ULT; break;
        case P::ICMP_ULE: in.aux = ULE; break;
        case P::ICMP_SGT: in.aux = SGT; break;
        case P::ICMP_SGE: in.aux = SGE; break;
        case P::ICMP_SLT: in.aux = SLT; break;
        case P::ICMP_SLE: in.aux = SLE; break;
        default: in.aux = uint16_t(cmp->getPredicate()); break; // FCMP_* are 0..15 in LLVM, as FloatPredicate
        }
        emit(in, L);
        return;
    }
    case Instruction::Trunc:
    case Instruction::ZExt:
    case Instruction::SExt:
    case Instruction::FPTrunc:
    case Instruction::FPExt:
    case Instruction::FPToUI:
    case Instruction::FPToSI:
    case Instruction::UIToFP:
    case Instruction::SIToFP:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::BitCast:
    case Instruction::AddrSpaceCast: {
        auto a = need(i.getOperand(0));
        unsigned from = scalarBits(i.getOperand(0)->getType()), to = scalarBits(i.getType());
        if (!a || !from || !to) return unsupported("conversion to " + describeType(i.getType()), L);
        Instr in{.bits = uint8_t(to), .aux = uint16_t(from), .dst = dst(i), .a = *a};
        switch (i.getOpcode()) {
        case Instruction::Trunc: in.op = Op::Trunc; break;
        case Instruction::ZExt: in.op = Op::ZExt; break;
        case Instruction::SExt: in.op = Op::SExt; break;
        case Instruction::FPTrunc: in.op = Op::FPTrunc; break;
        case Instruction::FPExt: in.op = Op::FPExt; break;
        case Instruction::FPToUI: in.op = Op::FPToUI; break;
        case Instruction::FPToSI: in.op = Op::FPToSI; break;
        case Instruction::UIToFP: in.op = Op::UIToFP; break;
        case Instruction::SIToFP: in.op = Op::SIToFP; break;
        case Instruction::PtrToInt: in.op = to < 64 ? Op::Trunc : Op::Move; break;
        case Instruction::IntToPtr: in.op = from < 64 ? Op::ZExt : Op::Move; break;
        default: in.op = Op::Move; break;
        }
        emit(in, L);
        return;
    }
    case Instruction::Freeze: {
        auto a = need(i.getOperand(0));
        if (!a) return unsupported("freeze", L);
        for (uint32_t k = 0; k < slotsOf(i.getType()); ++k)
            emit({.op = Op::Move, .dst = dst(i) + k, .a = *a + k}, L);
        return;
    }
    case Instruction::Select: {
        auto c = need(i.getOperand(0)), a = need(i.getOperand(1)), b = need(i.getOperand(2));
        if (!c || !a || !b) return unsupported("select", L);
        for (uint32_t k = 0; k < slotsOf(i.getType()); ++k)
            emit({.op = Op::Select, .dst = dst(i) + k, .a = *c, .b = *a + k, .c = *b + k}, L);
        return;
    }
    case Instruction::GetElementPtr: {
        auto* gep = cast<llvm::GetElementPtrInst>(&i);
        auto base = need(gep->getPointerOperand());
        llvm::MapVector<llvm::Value*, llvm::APInt> vars;
        llvm::APInt constOff(64, 0);
        if (!base || !gep->collectOffset(mc_.dl, 64, vars, constOff)) return unsupported("address computation", L);
        Instr in{.op = Op::Gep, .dst = dst(i), .a = *base, .imm = constOff.getZExtValue()};
        std::vector<GepIndex> idx;
        for (auto& [v, scale] : vars) {
            auto r = need(v);
            if (!r || !scalarBits(v->getType())) return unsupported("address computation", L);
            idx.push_back({*r, uint8_t(scalarBits(v->getType())), scale.getSExtValue()});
        }
        if (idx.size() == 1 && idx[0].scale >= INT32_MIN && idx[0].scale <= INT32_MAX) {
            in.op = Op::Gep1;
            in.aux = idx[0].bits;
            in.b = idx[0].reg;
            in.c = uint32_t(int32_t(idx[0].scale));
        } else {
            in.b = uint32_t(out_.gepPool.size());
            in.c = uint32_t(idx.size());
            out_.gepPool.insert(out_.gepPool.end(), idx.begin(), idx.end());
        }
        emit(in, L);
        return;
    }
    case Instruction::Alloca: {
        auto* ai = cast<llvm::AllocaInst>(&i);
        AllocaInfo info;
        info.name = allocaName(ai);
        info.escapes = mc_.escapes(ai);
        if (auto* at = dyn_cast<llvm::ArrayType>(ai->getAllocatedType()))
            info.elemSize = uint32_t(mc_.dl.getTypeAllocSize(at->getElementType()));
        Instr in{.op = Op::Alloca, .dst = dst(i), .b = kNoReg,
                 .imm = mc_.dl.getTypeAllocSize(ai->getAllocatedType())};
        if (ai->isArrayAllocation()) {
            auto n = need(ai->getArraySize());
            if (!n) return unsupported("alloca size", L);
            in.b = *n;
            in.aux = uint16_t(scalarBits(ai->getArraySize()->getType()));
            if (!info.elemSize) info.elemSize = uint32_t(in.imm);
        }
        in.c = uint32_t(mc_.program.allocas.size());
        mc_.program.allocas.push_back(std::move(info));
        emit(in, L);
        return;
    }
    case Instruction::Load: {
        auto* li = cast<llvm::LoadInst>(&i);
        auto p = need(li->getPointerOperand());
        unsigned bits = scalarBits(li->getType());
        if (!p) return unsupported("load address", L);
        if (!bits) {
            // An aggregate (clang returns a 16-byte struct as `load {i64, i64}`): one load per scalar leaf,
            // into the consecutive slots of the result. Never atomic, so splitting it changes nothing.
            if (li->isAtomic() || !lowerAggregateAccess(li->getType(), *p, dst(i), true, L))
                return unsupported("load of " + describeType(li->getType()), L);
            return;
        }
        Instr in{.op = Op::Load, .bits = uint8_t(bits), .aux = uint16_t(mc_.dl.getTypeStoreSize(li->getType())),
                 .dst = dst(i), .a = *p};
        if (li->isAtomic()) in.flags |= flags::Atomic;
        emit(in, L);
        return;
    }
    case Instruction::Store: {
        auto* si = cast<llvm::StoreInst>(&i);
        auto p = need(si->getPointerOperand()), v = need(si->getValueOperand());
        unsigned bits = scalarBits(si->getValueOperand()->getType());
        if (p && v && !bits && !si->isAtomic() &&
            lowerAggregateAccess(si->getValueOperand()->getType(), *p, *v, false, L))
            return;
        if (!p || !v || !bits) return unsupported("store of " + describeType(si->getValueOperand()->getType()), L);
        Instr in{.op = Op::Store, .bits = uint8_t(bits),
                 .aux = uint16_t(mc_.dl.getTypeStoreSize(si->getValueOperand()->getType())), .a = *p, .b = *v};
        if (si->isAtomic()) in.flags |= flags::Atomic;
        emit(in, L);
        return;
    }
    case Instruction::AtomicRMW: {
        auto* rmw = cast<llvm::AtomicRMWInst>(&i);
        auto p = need(rmw->getPointerOperand()), v = need(rmw->getValOperand());
        unsigned bits = scalarBits(rmw->getType());
        if (!p || !v || !bits || rmw->getType()->isFloatingPointTy())
            return unsupported("atomic read-modify-write on " + describeType(rmw->getType()), L);
        using B = llvm::AtomicRMWInst::BinOp;
        RmwOp op;
        switch (rmw->getOperation()) {
        case B::Xchg: op = RmwOp::Xchg; break;
        case B::Add: op = RmwOp::Add; break;
        case B::Sub: op = RmwOp::Sub; break;
        case B::And: op = RmwOp::And; break;
        case B::Or: op = RmwOp::Or; break;
        case B::Xor: op = RmwOp::Xor; break;
        case B::Nand: op = RmwOp::Nand; break;
        case B::Max: op = RmwOp::Max; break;
        case B::Min: op = RmwOp::Min; break;
        case B::UMax: op = RmwOp::UMax; break;
        case B::UMin: op = RmwOp::UMin; break;
        default: return unsupported("atomic read-modify-write operation", L);
        }
        emit({.op = Op::AtomicRmw, .bits = uint8_t(bits), .aux = uint16_t(mc_.dl.getTypeStoreSize(rmw->getType())),
              .dst = dst(i), .a = *p, .b = *v, .imm = uint64_t(op)},
             L);
        return;
    }
    case Instruction::AtomicCmpXchg: {
        auto* cx = cast<llvm::AtomicCmpXchgInst>(&i);
        auto p = need(cx->getPointerOperand()), e = need(cx->getCompareOperand()), n = need(cx->getNewValOperand());
        llvm::Type* t = cx->getCompareOperand()->getType();
        unsigned bits = scalarBits(t);
        if (!p || !e || !n || !bits) return unsupported("compare-exchange on " + describeType(t), L);
        emit({.op = Op::CmpXchg, .bits = uint8_t(bits), .aux = uint16_t(mc_.dl.getTypeStoreSize(t)), .dst = dst(i),
              .a = *p, .b = *e, .c = *n},
             L);
        return;
    }
    case Instruction::Fence: emit({.op = Op::Fence}, L); return;
    case Instruction::ExtractValue: {
        auto* ev = cast<llvm::ExtractValueInst>(&i);
        auto agg = need(ev->getAggregateOperand());
        if (!agg) return unsupported("extractvalue", L);
        uint32_t off = 0;
        llvm::Type* t = ev->getAggregateOperand()->getType();
        for (unsigned idx : ev->indices()) {
            if (auto* st = dyn_cast<llvm::StructType>(t)) {
                for (unsigned k = 0; k < idx; ++k) off += slotsOf(st->getElementType(k));
                t = st->getElementType(idx);
            } else {
                t = t->getArrayElementType();
                off += idx * slotsOf(t);
            }
        }
        for (uint32_t k = 0; k < slotsOf(i.getType()); ++k) emit({.op = Op::Move, .dst = dst(i) + k, .a = *agg + off + k}, L);
        return;
    }
    case Instruction::InsertValue: {
        auto* iv = cast<llvm::InsertValueInst>(&i);
        auto agg = need(iv->getAggregateOperand()), val = need(iv->getInsertedValueOperand());
        if (!agg || !val) return unsupported("insertvalue", L);
        uint32_t off = 0;
        llvm::Type* t = iv->getAggregateOperand()->getType();
        for (unsigned idx : iv->indices()) {
            if (auto* st = dyn_cast<llvm::StructType>(t)) {
                for (unsigned k = 0; k < idx; ++k) off += slotsOf(st->getElementType(k));
                t = st->getElementType(idx);
            } else {
                t = t->getArrayElementType();
                off += idx * slotsOf(t);
            }
        }
        uint32_t n = slotsOf(i.getType()), m = slotsOf(t);
        for (uint32_t k = 0; k < n; ++k) emit({.op = Op::Move, .dst = dst(i) + k, .a = *agg + k}, L);
        for (uint32_t k = 0; k < m; ++k) emit({.op = Op::Move, .dst = dst(i) + off + k, .a = *val + k}, L);
        return;
    }
    case Instruction::Ret: {
        auto* ri = cast<llvm::ReturnInst>(&i);
        Instr in{.op = Op::Ret, .a = kNoReg};
        if (llvm::Value* v = ri->getReturnValue()) {
            auto r = need(v);
            if (!r) return unsupported("return value", L);
            in.a = *r;
            in.aux = uint16_t(slotsOf(v->getType()));
        }
        emit(in, L);
        return;
    }
    case Instruction::Br: {
        auto* br = cast<llvm::BranchInst>(&i);
        if (br->isUnconditional()) {
            lowerBranchTo(br->getParent(), br->getSuccessor(0), L);
            return;
        }
        auto c = need(br->getCondition());
        if (!c) return unsupported("branch condition", L);
        emit({.op = Op::CondBr, .a = *c}, L);
        uint32_t at = uint32_t(out_.code.size() - 1);
        fixups_.push_back({EdgeFixup::B, at, br->getParent(), br->getSuccessor(0)});
        fixups_.push_back({EdgeFixup::C, at, br->getParent(), br->getSuccessor(1)});
        return;
    }
    case Instruction::Switch: {
        auto* sw = cast<llvm::SwitchInst>(&i);
        auto c = need(sw->getCondition());
        if (!c || !scalarBits(sw->getCondition()->getType())) return unsupported("switch", L);
        Instr in{.op = Op::Switch, .bits = uint8_t(scalarBits(sw->getCondition()->getType())), .a = *c,
                 .b = uint32_t(out_.pool64.size()), .c = sw->getNumCases()};
        for (auto& cs : sw->cases()) {
            out_.pool64.push_back(cs.getCaseValue()->getZExtValue());
            out_.pool64.push_back(0);
            fixups_.push_back({EdgeFixup::Pool64, uint32_t(out_.pool64.size() - 1), sw->getParent(), cs.getCaseSuccessor()});
        }
        emit(in, L);
        // The default target lives in imm; patched like the others through a Br placed right after.
        fixups_.push_back({EdgeFixup::A, uint32_t(out_.code.size()), sw->getParent(), sw->getDefaultDest()});
        emit({.op = Op::Br}, L);
        return;
    }
    case Instruction::Unreachable: emit({.op = Op::Unreachable}, L); return;
    case Instruction::Call: lowerCall(cast<llvm::CallBase>(i), L); return;
    case Instruction::VAArg: return unsupported("variadic function (va_arg)", L);
    default: return unsupported(std::string("instruction `") + i.getOpcodeName() + "`", L);
    }
}
void FunctionLowering::lowerBranchTo(const llvm::BasicBlock* from, const llvm::BasicBlock* to, uint32_t L) {
    fixups_.push_back({EdgeFixup::A, uint32_t(out_.code.size()), from, to});
    emit({.op = Op::Br}, L);
}

// Every edge into a block with phis, or into a loop header, gets a trampoline: the phi copies (parallel
// semantics: through temporaries when a source is also a destination), the loop counter update, then the jump.
void FunctionLowering::emitEdges() {
    std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, uint32_t> trampoline;
    for (const EdgeFixup& fx : fixups_) {
        auto key = std::make_pair(fx.from, fx.to);
        uint32_t target;
        auto found = trampoline.find(key);
        if (found != trampoline.end()) {
            target = found->second;
        } else {
            const llvm::Loop* loop = li_.getLoopFor(fx.to);
            // A library model's loop (Frontend.cpp, core/frontend/models/libc.c) is not the program's: no unroll
            // bound, no spin-loop cut — a plain jump.
            bool header = loop && loop->getHeader() == fx.to && !f_.hasFnAttribute("skein-model");
            bool hasPhi = isa<llvm::PHINode>(fx.to->front());
            if (!header && !hasPhi) {
                target = blockPc_[fx.to];
            } else {
                target = uint32_t(out_.code.size());
                uint32_t L = out_.locs.empty() ? 0 : out_.locs[std::min<size_t>(fx.index, out_.locs.size() - 1)];
                std::vector<std::pair<Reg, Reg>> copies; // (dst, src) per slot
                for (const llvm::PHINode& phi : fx.to->phis()) {
                    auto src = operand(phi.getIncomingValueForBlock(fx.from));
                    if (!src) {
                        unsupported("phi operand", L);
                        continue;
                    }
                    for (uint32_t k = 0; k < slotsOf(phi.getType()); ++k) copies.push_back({regOf_[&phi] + k, *src + k});
                }
                bool clash = false;
                for (auto& [d, s] : copies)
                    for (auto& [d2, s2] : copies) clash |= (s2 == d && d2 != d);
                if (clash) {
                    Reg tmp = out_.numRegs;
                    out_.numRegs += uint32_t(copies.size());
                    for (size_t k = 0; k < copies.size(); ++k) emit({.op = Op::Move, .dst = Reg(tmp + k), .a = copies[k].second}, L);
                    for (size_t k = 0; k < copies.size(); ++k) emit({.op = Op::Move, .dst = copies[k].first, .a = Reg(tmp + k)}, L);
                } else {
                    for (auto& [d, s] : copies) emit({.op = Op::Move, .dst = d, .a = s}, L);
                }
                Instr jump{.op = Op::Br, .a = blockPc_[fx.to]};
                if (header) {
                    jump.aux = uint16_t(loopIndex_[loop]);
                    if (loop->contains(fx.from)) {
                        jump.op = Op::LoopBack;
                        jump.imm = spin_[loop] ? 1 : 0;
                    } else {
                        jump.op = Op::LoopEnter;
                    }
                }
                emit(jump, L);
            }
            trampoline[key] = target;
        }
        switch (fx.field) {
        case EdgeFixup::A: out_.code[fx.index].a = target; break;
        case EdgeFixup::B: out_.code[fx.index].b = target; break;
        case EdgeFixup::C: out_.code[fx.index].c = target; break;
        case EdgeFixup::Pool64: out_.pool64[fx.index] = target; break;
        }
    }
}

void lowerFunction(ModuleContext& mc, llvm::Function& f, uint32_t index) {
    FunctionLowering(mc, f, index).run();
}

} // namespace skein::program::lowering
