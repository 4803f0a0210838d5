// Per-function lowering: registers, constants, instructions, phi copies on edges, loop counters.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

#include "core/program/LowerImpl.h"

namespace skein::program::lowering {
namespace {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

// The timed form of a blocking builtin (Lower.cpp's table maps it to the try, or to the condition wait): marked
// kTimedCall, whose comment in Program.h says what it does.
bool isTimedCall(Builtin b, const llvm::Function& callee) {
    if (b != Builtin::MutexTrylock && b != Builtin::SemTryWait && b != Builtin::RwTryRdLock &&
        b != Builtin::RwTryWrLock && b != Builtin::CondWait)
        return false;
    const llvm::StringRef n = callee.getName();
    return n.contains("timed") || n.contains("clock");
}

// Where an alloca's address may flow so that another thread could reach it. Conservative: any use other than
// as the address of a load/store, a comparison, pointer arithmetic on it (a phi or select of it too), a builtin that
// does not capture its argument, or a parameter of a function the program defines that does not let it escape
// either. Within one function, `seen` holds the pointers derived from v already followed (a phi of a pointer
// advanced in a loop); each parameter followed into a callee starts afresh.
//
// The parameters' answers are memoised for the module (ModuleContext::parameterEscapes). A parameter whose analysis
// is under way (recursion) is assumed private: an escape found under that assumption is real, and "private" then
// holds for every parameter the query went through only if the query's own answer is "private" — otherwise one of
// them may have been judged on an assumption that failed, and their answers are forgotten (EscapeQuery::provisional).
struct EscapeQuery {
    llvm::DenseMap<const llvm::Argument*, ParameterEscape>& parameters;
    std::vector<const llvm::Argument*> provisional;
};

bool allocaEscapes(const llvm::Value* v, EscapeQuery& q, llvm::SmallPtrSetImpl<const llvm::Value*>& seen, int depth) {
    if (depth > 32) return true;
    if (!seen.insert(v).second) return false; // followed already, from its first use
    for (const llvm::Use& u : v->uses()) {
        const llvm::User* user = u.getUser();
        if (auto* li = dyn_cast<llvm::LoadInst>(user)) {
            if (li->getPointerOperand() != v) return true;
        } else if (auto* si = dyn_cast<llvm::StoreInst>(user)) {
            if (si->getValueOperand() == v) return true;
        } else if (isa<llvm::ICmpInst>(user)) {
            continue; // comparing the address (with null, with another) hands it to no one
        } else if (isa<llvm::GetElementPtrInst, llvm::BitCastInst, llvm::PHINode, llvm::SelectInst>(user)) {
            if (allocaEscapes(user, q, seen, depth + 1)) return true;
        } else if (auto* call = dyn_cast<llvm::CallBase>(user)) {
            const llvm::Function* callee = call->getCalledFunction();
            if (!callee || call->isCallee(&u)) return true;
            if (callee->isIntrinsic()) {
                auto id = callee->getIntrinsicID();
                if (id == llvm::Intrinsic::lifetime_start || id == llvm::Intrinsic::lifetime_end ||
                    id == llvm::Intrinsic::memcpy || id == llvm::Intrinsic::memmove ||
                    id == llvm::Intrinsic::memset || id == llvm::Intrinsic::vastart || id == llvm::Intrinsic::vaend ||
                    id == llvm::Intrinsic::vacopy || llvm::isa<llvm::DbgInfoIntrinsic>(call))
                    continue;
                return true;
            }
            auto b = lookupBuiltin(*callee);
            if (!callee->isDeclaration() && !(b && (*b == Builtin::ReachError || *b == Builtin::Nondet))) {
                // The printf and scanf families' C models (frontend/models/libc.c) keep no pointer they are given,
                // among their variadic arguments too: a local buffer, variable or va_list stays the thread's own.
                const llvm::StringRef name = callee->getName();
                if (callee->hasFnAttribute("skein-model") && (name.ends_with("printf") || name.ends_with("scanf")))
                    continue;
                const unsigned k = call->getArgOperandNo(&u);
                if (call->isByValArgument(k)) continue; // the callee gets a copy of the object, not its address
                if (k >= callee->arg_size()) return true; // a variadic argument, read back from memory by va_arg
                const llvm::Argument* param = callee->getArg(k);
                auto [it, fresh] = q.parameters.try_emplace(param, ParameterEscape::UnderWay);
                if (!fresh) {
                    if (it->second == ParameterEscape::Escapes) return true;
                    continue; // private, or under way: assumed private
                }
                llvm::SmallPtrSet<const llvm::Value*, 16> own;
                const bool escapes = allocaEscapes(param, q, own, depth + 1);
                q.parameters[param] = escapes ? ParameterEscape::Escapes : ParameterEscape::Private;
                if (escapes) return true;
                q.provisional.push_back(param);
                continue;
            }
            if (!b || !callee->isDeclaration()) return true;
            // pthread_create's 4th argument (thrd_create's 3rd) is handed to the new thread: that captures it.
            if (*b == Builtin::ThreadCreate &&
                call->getArgOperand(callee->getName().starts_with("thrd_") ? 2 : 3) == v)
                return true;
            if (*b == Builtin::Realloc || *b == Builtin::Free) return true;
        } else {
            return true; // ptrtoint, atomic operations, returns, aggregates...
        }
    }
    return false;
}

bool allocaEscapes(const llvm::Value* v, llvm::DenseMap<const llvm::Argument*, ParameterEscape>& parameters) {
    EscapeQuery q{parameters, {}};
    llvm::SmallPtrSet<const llvm::Value*, 16> seen;
    const bool escapes = allocaEscapes(v, q, seen, 0);
    if (escapes)
        for (const llvm::Argument* p : q.provisional) parameters.erase(p);
    return escapes;
}

std::string allocaName(llvm::AllocaInst* ai) {
    for (auto* d : llvm::findDbgDeclares(ai))
        if (auto* var = d->getVariable()) return var->getName().str();
    for (auto* d : llvm::findDVRDeclares(ai))
        if (auto* var = d->getVariable()) return var->getName().str();
    return ai->hasName() ? ai->getName().str() : std::string("<stack>");
}

struct EdgeFixup {
    enum Field { A, B, C, Pool64 } field;
    uint32_t index; // instruction index, or pool64 index
    const llvm::BasicBlock* from;
    const llvm::BasicBlock* to;
};

class FunctionLowering {
public:
    FunctionLowering(ModuleContext& mc, llvm::Function& f, uint32_t index)
        : mc_(mc), f_(f), index_(index), out_(mc.program.functions[index]), dt_(f), li_(dt_) {}

    void run() {
        for (llvm::Argument& a : f_.args()) {
            regOf_[&a] = out_.numRegs;
            out_.numRegs += slotsOf(a.getType());
        }
        // A variadic function's extra arguments arrive as one more parameter: the address of the area its caller
        // laid them out in (lowerVariadicCall), which va_start hands to the va_list.
        if (f_.isVarArg()) vaArea_ = out_.numRegs++;
        out_.numParams = out_.numRegs;
        for (llvm::BasicBlock& bb : f_)
            for (llvm::Instruction& i : bb)
                if (!i.getType()->isVoidTy()) {
                    regOf_[&i] = out_.numRegs;
                    out_.numRegs += slotsOf(i.getType());
                }
        uint32_t n = 0;
        for (llvm::Loop* l : li_.getLoopsInPreorder()) {
            loopIndex_[l] = n++;
            spin_[l] = isSpinLoop(l);
        }
        out_.numLoops = n;
        copyByvalArguments();
        allocateVariadicAreas();
        for (llvm::BasicBlock& bb : f_) {
            blockPc_[&bb] = uint32_t(out_.code.size());
            lastLoc_ = 0;
            for (llvm::Instruction& i : bb) lowerInstruction(i);
        }
        emitEdges();
    }

private:
    ModuleContext& mc_;
    llvm::Function& f_;
    uint32_t index_;
    Function& out_;
    llvm::DominatorTree dt_;
    llvm::LoopInfo li_;
    llvm::DenseMap<const llvm::Value*, Reg> regOf_;
    llvm::DenseMap<const llvm::BasicBlock*, uint32_t> blockPc_;
    llvm::DenseMap<const llvm::Loop*, uint32_t> loopIndex_;
    llvm::DenseMap<const llvm::Loop*, bool> spin_;
    std::vector<EdgeFixup> fixups_;
    uint32_t lastLoc_ = 0;
    Reg vaArea_ = kNoReg; // a variadic function's hidden last parameter (run)
    // Each variadic call site's argument area, allocated once at the function's entry (allocateVariadicAreas), with
    // the extra arguments' offsets in it; or the reason the call cannot be made.
    struct VariadicSite {
        Reg area = kNoReg;
        std::vector<uint64_t> offsets;
        std::string refused;
    };
    llvm::DenseMap<const llvm::CallBase*, VariadicSite> variadicSites_;

    // A loop whose iterations can only read, or try to change memory and fail: loads, arithmetic, branches, calls
    // of builtins that do nothing in the model (sched_yield, usleep), pthread_mutex_trylock, atomic exchanges and
    // compare-exchanges — no plain stores, other calls, loop-carried values or allocas. Such an iteration either
    // changed something (a trylock or compare-exchange that succeeded, an exchange that wrote a new value: the
    // executor counts these, Thread::effects) or left the state as it found it, and then another iteration cannot
    // produce a state that exiting on a later read would not: the executor cuts it at the back edge, as an assume
    // of the exit condition (GenMC's spin-assume, extended to failed lock attempts), so spin-waits and spin locks
    // need no unroll bound. Under sequential consistency an exchange that writes the value it read is invisible.
    bool isSpinLoop(llvm::Loop* l) {
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

    uint32_t loc(const llvm::Instruction& i) {
        if (i.getDebugLoc()) lastLoc_ = mc_.location(i.getDebugLoc(), index_);
        return lastLoc_;
    }

    Instr& emit(Instr in, uint32_t location) {
        out_.code.push_back(in);
        out_.locs.push_back(location);
        return out_.code.back();
    }

    void unsupported(const std::string& what, uint32_t location) {
        Instr in;
        in.op = Op::Unsupported;
        in.a = mc_.message("unsupported: " + what);
        emit(in, location);
    }

    // The register holding `v` (constants get a register pre-filled at frame start).
    std::optional<Reg> operand(const llvm::Value* v) {
        auto it = regOf_.find(v);
        if (it != regOf_.end()) return it->second;
        auto* c = dyn_cast<llvm::Constant>(v);
        if (!c) return std::nullopt;
        auto vals = mc_.evalConstant(c);
        if (!vals) return std::nullopt;
        Reg r = out_.numRegs;
        out_.numRegs += uint32_t(vals->size());
        for (size_t k = 0; k < vals->size(); ++k) out_.constants.push_back({Reg(r + k), (*vals)[k]});
        regOf_[v] = r;
        return r;
    }

    Reg dst(const llvm::Instruction& i) { return i.getType()->isVoidTy() ? kNoReg : regOf_[&i]; }

    void lowerInstruction(llvm::Instruction& i);
    void lowerCall(llvm::CallBase& call, uint32_t location);
    void lowerBuiltin(llvm::CallBase& call, Builtin b, uint32_t location);
    void lowerBranchTo(const llvm::BasicBlock* from, const llvm::BasicBlock* to, uint32_t location);
    void emitEdges();
    const llvm::Value* argsToPool(llvm::CallBase& call, uint32_t& off, uint32_t& count);
    void copyByvalArguments();
    Reg constant(uint64_t v) {
        Reg r = out_.numRegs++;
        out_.constants.push_back({r, v});
        return r;
    }
    bool variadicCallee(const llvm::CallBase& call) const;
    void allocateVariadicAreas();
    bool lowerVariadicCall(llvm::CallBase& call, uint32_t& off, uint32_t& count, uint32_t location);
    void lowerVaStart(llvm::CallBase& call, uint32_t location);
    bool lowerAggregateAccess(llvm::Type* t, Reg ptr, Reg firstSlot, bool load, uint32_t location);
};

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
        info.escapes = allocaEscapes(ai, mc_.parameterEscapes);
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
            {a.hasName() ? a.getName().str() : "<argument>", 0, allocaEscapes(&a, mc_.parameterEscapes)});
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
                if (!byval && !scalarLeaves(mc_.dl, t, 0, leaves)) {
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
                      .imm = std::max<uint64_t>(size, 8)},
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
                const uint32_t at3 = uint32_t(out_.regPool.size());
                out_.regPool.insert(out_.regPool.end(),
                                    {at, out_.regPool[slot], constant(mc_.dl.getTypeAllocSize(call.getParamByValType(k)))});
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

} // namespace

void lowerFunction(ModuleContext& mc, llvm::Function& f, uint32_t index) {
    FunctionLowering(mc, f, index).run();
}

} // namespace skein::program::lowering
