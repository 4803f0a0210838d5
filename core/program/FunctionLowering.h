#pragma once
// The lowering of one function (LowerInstr.cpp: instructions, edges; LowerCall.cpp: calls, builtins' call sites,
// variadic calls). Private to core/program/Lower*; includes llvm/IR.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>

#include "core/program/LowerImpl.h"

namespace skein::program::lowering {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

// The timed form of a blocking builtin (Lower.cpp's table maps it to the try, or to the condition wait): marked
// kTimedCall, whose comment in Program.h says what it does.
inline bool isTimedCall(Builtin b, const llvm::Function& callee) {
    if (b != Builtin::MutexTrylock && b != Builtin::SemTryWait && b != Builtin::RwTryRdLock &&
        b != Builtin::RwTryWrLock && b != Builtin::CondWait)
        return false;
    const llvm::StringRef n = callee.getName();
    return n.contains("timed") || n.contains("clock");
}

// Scalar leaves of an aggregate in register-slot order (the order of slotsOf), with their byte offsets.
bool scalarLeaves(const llvm::DataLayout& dl, llvm::Type* t, uint64_t offset,
                  std::vector<std::pair<uint64_t, llvm::Type*>>& out);

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

    // (LowerInstr.cpp)
    bool isSpinLoop(llvm::Loop* l);

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
    void readStringArguments(llvm::CallBase& call, bool stream, uint32_t off, uint32_t location);
    bool lowerAggregateAccess(llvm::Type* t, Reg ptr, Reg firstSlot, bool load, uint32_t location);
};

} // namespace skein::program::lowering
