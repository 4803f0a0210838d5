// Module-level lowering: mem2reg, function and global tables, constants, initialisers, source locations.
#include "core/program/Lower.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Operator.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "core/program/LowerImpl.h"

namespace skein::program {
namespace lowering {

uint32_t ModuleContext::location(const llvm::DebugLoc& loc, uint32_t function) {
    if (!loc) return 0;
    std::string file;
    if (auto* scope = llvm::dyn_cast_or_null<llvm::DIScope>(loc.getScope())) file = scope->getFilename().str();
    auto [fit, fnew] = fileIndex.try_emplace(file, uint32_t(program.files.size()));
    if (fnew) program.files.push_back(file);
    auto key = std::make_tuple(fit->second, loc.getLine(), loc.getCol(), function);
    auto [it, isNew] = locationIndex.try_emplace(key, uint32_t(program.locations.size()));
    if (isNew) program.locations.push_back({fit->second, loc.getLine(), loc.getCol(), function});
    return it->second;
}

uint32_t ModuleContext::message(std::string m) {
    program.messages.push_back(std::move(m));
    return uint32_t(program.messages.size() - 1);
}

uint32_t slotsOf(llvm::Type* t) {
    if (auto* st = llvm::dyn_cast<llvm::StructType>(t)) {
        uint32_t n = 0;
        for (llvm::Type* e : st->elements()) n += slotsOf(e);
        return n;
    }
    if (auto* at = llvm::dyn_cast<llvm::ArrayType>(t)) return uint32_t(at->getNumElements()) * slotsOf(at->getElementType());
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) return vt->getNumElements();
    return 1;
}

unsigned scalarBits(llvm::Type* t) {
    if (t->isIntegerTy()) {
        unsigned w = t->getIntegerBitWidth();
        return w <= 64 ? w : 0;
    }
    if (t->isPointerTy()) return 64;
    if (t->isFloatTy()) return 32;
    if (t->isDoubleTy()) return 64;
    return 0;
}

std::string describeType(llvm::Type* t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return s;
}

std::optional<uint64_t> ModuleContext::evalScalar(const llvm::Constant* c) {
    auto v = evalConstant(c);
    if (!v || v->size() != 1) return std::nullopt;
    return (*v)[0];
}

std::optional<std::vector<uint64_t>> ModuleContext::evalConstant(const llvm::Constant* c) {
    using namespace llvm;
    if (auto* ci = dyn_cast<ConstantInt>(c)) {
        if (ci->getBitWidth() > 64) return std::nullopt;
        return std::vector<uint64_t>{ci->getZExtValue()};
    }
    if (auto* cf = dyn_cast<ConstantFP>(c)) {
        if (cf->getType()->isFloatTy()) {
            float f = cf->getValueAPF().convertToFloat();
            uint32_t b;
            std::memcpy(&b, &f, 4);
            return std::vector<uint64_t>{b};
        }
        if (cf->getType()->isDoubleTy()) {
            double d = cf->getValueAPF().convertToDouble();
            uint64_t b;
            std::memcpy(&b, &d, 8);
            return std::vector<uint64_t>{b};
        }
        return std::nullopt; // long double, half: not modelled
    }
    if (isa<ConstantPointerNull>(c) || isa<UndefValue>(c) || isa<ConstantAggregateZero>(c))
        return std::vector<uint64_t>(slotsOf(c->getType()), 0);
    if (auto* gv = dyn_cast<GlobalVariable>(c)) {
        auto it = globalIndex.find(gv);
        if (it == globalIndex.end()) return std::nullopt;
        return std::vector<uint64_t>{makePointer(program.globalObject(it->second), 0)};
    }
    if (auto* fn = dyn_cast<llvm::Function>(c)) {
        auto it = functionIndex.find(fn);
        if (it == functionIndex.end()) return std::nullopt;
        return std::vector<uint64_t>{makePointer(program.functionObject(it->second), 0)};
    }
    if (auto* ga = dyn_cast<GlobalAlias>(c)) return evalConstant(ga->getAliasee());
    if (isa<ConstantStruct>(c) || isa<ConstantArray>(c) || isa<ConstantDataSequential>(c) ||
        isa<ConstantVector>(c)) {
        std::vector<uint64_t> out;
        Type* t = c->getType();
        unsigned n = t->isStructTy() ? t->getStructNumElements()
                     : t->isArrayTy() ? unsigned(t->getArrayNumElements())
                     : isa<FixedVectorType>(t) ? cast<FixedVectorType>(t)->getNumElements()
                                               : 0;
        if (!n && !t->isStructTy() && !t->isArrayTy()) return std::nullopt; // scalable vector
        for (unsigned i = 0; i < n; ++i) {
            auto part = evalConstant(c->getAggregateElement(i));
            if (!part) return std::nullopt;
            out.insert(out.end(), part->begin(), part->end());
        }
        return out;
    }
    if (auto* ce = dyn_cast<ConstantExpr>(c)) {
        switch (ce->getOpcode()) {
        case Instruction::GetElementPtr: {
            auto* gep = cast<GEPOperator>(ce);
            auto base = evalScalar(ce->getOperand(0));
            APInt off(64, 0);
            if (!base || !gep->accumulateConstantOffset(dl, off)) return std::nullopt;
            return std::vector<uint64_t>{*base + off.getZExtValue()};
        }
        case Instruction::BitCast:
        case Instruction::PtrToInt:
        case Instruction::IntToPtr:
        case Instruction::AddrSpaceCast: {
            auto v = evalScalar(ce->getOperand(0));
            if (!v) return std::nullopt;
            unsigned bits = scalarBits(ce->getType());
            if (bits == 0) return std::nullopt;
            uint64_t r = bits == 64 ? *v : (*v & ((uint64_t(1) << bits) - 1));
            return std::vector<uint64_t>{r};
        }
        case Instruction::Add:
        case Instruction::Sub: {
            auto a = evalScalar(ce->getOperand(0)), b = evalScalar(ce->getOperand(1));
            if (!a || !b) return std::nullopt;
            uint64_t r = ce->getOpcode() == Instruction::Add ? *a + *b : *a - *b;
            unsigned bits = scalarBits(ce->getType());
            if (bits && bits < 64) r &= (uint64_t(1) << bits) - 1;
            return std::vector<uint64_t>{r};
        }
        default: return std::nullopt;
        }
    }
    return std::nullopt;
}

namespace {

// Writes a constant's bytes at `offset` of a global's initial image (little-endian, DataLayout offsets).
bool writeInitializer(ModuleContext& mc, std::vector<uint8_t>& buf, uint64_t offset, const llvm::Constant* c) {
    using namespace llvm;
    if (isa<ConstantAggregateZero>(c) || isa<UndefValue>(c) || isa<ConstantPointerNull>(c)) return true;
    Type* t = c->getType();
    if (auto* st = dyn_cast<StructType>(t)) {
        const StructLayout* sl = mc.dl.getStructLayout(st);
        for (unsigned i = 0; i < st->getNumElements(); ++i)
            if (!writeInitializer(mc, buf, offset + sl->getElementOffset(i), c->getAggregateElement(i)))
                return false;
        return true;
    }
    if (auto* at = dyn_cast<ArrayType>(t)) {
        uint64_t stride = mc.dl.getTypeAllocSize(at->getElementType());
        if (auto* cds = dyn_cast<ConstantDataSequential>(c)) {
            StringRef raw = cds->getRawDataValues(); // host is little-endian x86-64, as is the data layout
            std::memcpy(buf.data() + offset, raw.data(), raw.size());
            return true;
        }
        for (uint64_t i = 0; i < at->getNumElements(); ++i)
            if (!writeInitializer(mc, buf, offset + i * stride, c->getAggregateElement(unsigned(i)))) return false;
        return true;
    }
    if (auto* vt = dyn_cast<FixedVectorType>(t)) {
        uint64_t bits = vt->getElementType()->getPrimitiveSizeInBits();
        if (bits == 0 || bits % 8) return false; // <N x i1>: packed bits
        for (unsigned i = 0; i < vt->getNumElements(); ++i)
            if (!writeInitializer(mc, buf, offset + i * (bits / 8), c->getAggregateElement(i))) return false;
        return true;
    }
    auto v = mc.evalScalar(c);
    if (!v) return false;
    uint64_t size = mc.dl.getTypeStoreSize(t);
    if (size > 8 || offset + size > buf.size()) return false;
    std::memcpy(buf.data() + offset, &*v, size);
    return true;
}

std::optional<Builtin> builtinFor(const std::string& name, const llvm::Function& f) {
    static const std::map<std::string, Builtin> table = [] {
        std::map<std::string, Builtin> m;
#define SKEIN_BUILTIN(Enum, Name) m[Name] = Builtin::Enum;
#include "core/program/Builtins.def"
        m["__VERIFIER_error"] = Builtin::ReachError;
        m["assume_abort_if_not"] = Builtin::Assume;
        m["sched_yield"] = Builtin::NoOp;
        m["pthread_yield"] = Builtin::NoOp;
        m["pthread_attr_init"] = Builtin::NoOp;
        m["pthread_attr_destroy"] = Builtin::NoOp;
        m["pthread_attr_setdetachstate"] = Builtin::NoOp;
        m["pthread_mutexattr_destroy"] = Builtin::NoOp;
        m["pthread_barrierattr_init"] = Builtin::NoOp;
        m["pthread_barrierattr_destroy"] = Builtin::NoOp;
        // C11 <threads.h> on glibc: mtx_t and cnd_t are pthread's mutex and condition variable; thrd_create,
        // thrd_join, mtx_init and mtx_trylock differ in their arguments or results (lowerCall marks them: kC11Call).
        m["thrd_create"] = Builtin::ThreadCreate;
        m["thrd_join"] = Builtin::ThreadJoin;
        m["thrd_exit"] = Builtin::ThreadExit;
        m["thrd_current"] = Builtin::ThreadSelf;
        m["thrd_equal"] = Builtin::ThreadEqual;
        m["thrd_detach"] = Builtin::ThreadDetach;
        m["thrd_yield"] = Builtin::NoOp;
        m["thrd_sleep"] = Builtin::NoOp; // time does not pass in an interleaving model
        m["mtx_init"] = Builtin::MutexInit;
        m["mtx_lock"] = Builtin::MutexLock;
        m["mtx_trylock"] = Builtin::MutexTrylock;
        m["mtx_unlock"] = Builtin::MutexUnlock;
        m["mtx_destroy"] = Builtin::MutexDestroy;
        m["cnd_init"] = Builtin::CondInit;
        m["cnd_wait"] = Builtin::CondWait;
        m["cnd_signal"] = Builtin::CondSignal;
        m["cnd_broadcast"] = Builtin::CondBroadcast;
        m["cnd_destroy"] = Builtin::CondDestroy;
        m["call_once"] = Builtin::Once; // (void: no result to write)
        m["tss_create"] = Builtin::KeyCreate; // (thrd_success is 0, as pthread's success)
        m["tss_delete"] = Builtin::KeyDelete;
        m["tss_set"] = Builtin::SetSpecific;
        m["tss_get"] = Builtin::GetSpecific;
        // Timed acquires are tries that answer ETIMEDOUT (kTimedCall, set where the call is lowered: LowerCall.cpp)
        m["pthread_mutex_timedlock"] = Builtin::MutexTrylock;
        m["pthread_mutex_clocklock"] = Builtin::MutexTrylock;
        m["mtx_timedlock"] = Builtin::MutexTrylock;
        m["sem_timedwait"] = Builtin::SemTryWait;
        m["sem_clockwait"] = Builtin::SemTryWait;
        m["pthread_rwlock_timedrdlock"] = Builtin::RwTryRdLock;
        m["pthread_rwlock_clockrdlock"] = Builtin::RwTryRdLock;
        m["pthread_rwlock_timedwrlock"] = Builtin::RwTryWrLock;
        m["pthread_rwlock_clockwrlock"] = Builtin::RwTryWrLock;
        // ... and a timed condition wait is a wait that may also time out (Builtins.cpp, CondWait).
        m["pthread_cond_timedwait"] = Builtin::CondWait;
        m["pthread_cond_clockwait"] = Builtin::CondWait;
        m["cnd_timedwait"] = Builtin::CondWait;
        // POSIX spin locks: a mutex whose waiters spin instead of sleeping — the same interleavings and outcomes
        // (a spin that can never take the lock is reported as the deadlock it is). pthread_spin_init's second
        // argument is `pshared`, not an attribute: init and destroy have nothing to do.
        m["pthread_spin_lock"] = Builtin::MutexLock;
        m["pthread_spin_trylock"] = Builtin::MutexTrylock;
        m["pthread_spin_unlock"] = Builtin::MutexUnlock;
        m["pthread_spin_init"] = Builtin::NoOp;
        m["pthread_spin_destroy"] = Builtin::NoOp;
        m["usleep"] = Builtin::NoOp;
        m["sleep"] = Builtin::NoOp;
        m["nanosleep"] = Builtin::NoOp; // (time does not pass: 0, slept the whole time)
        // Attributes that change nothing in an interleaving model of one process: a stack's size, scheduling, the
        // process-shared flag, a condition variable's clock (time is not modelled), a thread's name.
        m["pthread_attr_setstacksize"] = Builtin::NoOp;
        m["pthread_attr_setguardsize"] = Builtin::NoOp;
        m["pthread_attr_setscope"] = Builtin::NoOp;
        m["pthread_attr_setschedpolicy"] = Builtin::NoOp;
        m["pthread_attr_setinheritsched"] = Builtin::NoOp;
        m["pthread_mutexattr_setpshared"] = Builtin::NoOp;
        m["pthread_mutexattr_setprotocol"] = Builtin::NoOp;
        m["pthread_condattr_init"] = Builtin::NoOp;
        m["pthread_condattr_destroy"] = Builtin::NoOp;
        m["pthread_condattr_setpshared"] = Builtin::NoOp;
        m["pthread_condattr_setclock"] = Builtin::NoOp;
        m["pthread_rwlockattr_init"] = Builtin::NoOp;
        m["pthread_rwlockattr_destroy"] = Builtin::NoOp;
        m["pthread_setname_np"] = Builtin::NoOp;
        m["pthread_setconcurrency"] = Builtin::NoOp;
        m["rand_r"] = Builtin::Rand; // (a nondet value, as rand's: the seed is not read)
        m["srand"] = Builtin::NoOp;
        m["random"] = Builtin::Rand; // (as rand's: a nondet value; srandom's seed changes nothing)
        m["srandom"] = Builtin::NoOp;
        m["setvbuf"] = Builtin::NoOp; // buffering changes nothing in captured output: 0, success
        m["setbuf"] = Builtin::NoOp;
        m["setlinebuf"] = Builtin::NoOp;
        m["__assert_rtn"] = Builtin::AssertFail;
        m["__builtin_abort"] = Builtin::Abort;
        m["_exit"] = Builtin::Exit;
        m["_Exit"] = Builtin::Exit;
        m["llvm.memcpy"] = Builtin::Memcpy;
        m["llvm.memmove"] = Builtin::Memmove;
        m["llvm.memset"] = Builtin::Memset;
        m["llvm.fabs"] = Builtin::FAbs;
        m["llvm.sqrt"] = Builtin::Sqrt;
        m["llvm.floor"] = Builtin::Floor;
        m["llvm.ceil"] = Builtin::Ceil;
        m["llvm.trap"] = Builtin::Abort;
        m["llvm.fma"] = Builtin::FMulAdd;
        m["llvm.uadd.with.overflow"] = Builtin::AddOverflow;
        m["llvm.ssub.with.overflow"] = Builtin::AddOverflow;
        m["llvm.usub.with.overflow"] = Builtin::AddOverflow;
        m["llvm.smul.with.overflow"] = Builtin::AddOverflow;
        m["llvm.umul.with.overflow"] = Builtin::AddOverflow;
        return m;
    }();
    std::string key = name;
    if (f.isIntrinsic()) {
        // llvm.memcpy.p0.p0.i64 → llvm.memcpy; llvm.smax.i32 → llvm.smax
        size_t dot = key.find('.', 5);
        if (dot != std::string::npos) key = key.substr(0, dot);
        if (name.rfind("llvm.threadlocal.address", 0) == 0) key = "llvm.threadlocal.address";
        if (name.rfind("llvm.stacksave", 0) == 0) key = "llvm.stacksave";
        for (const char* ov : {"llvm.sadd.with.overflow", "llvm.uadd.with.overflow", "llvm.ssub.with.overflow",
                               "llvm.usub.with.overflow", "llvm.smul.with.overflow", "llvm.umul.with.overflow"})
            if (name.rfind(ov, 0) == 0) key = ov;
    }
    if (key.rfind("__VERIFIER_nondet_", 0) == 0) return Builtin::Nondet;
    auto it = table.find(key);
    if (it == table.end()) return std::nullopt;
    return it->second;
}

// A library function Skein models (a builtin) whose address the program takes — `pthread_key_create(&k, free)`,
// a table of function pointers — gets a wrapper a call through a pointer can run: a defined function whose body
// calls the builtin directly, lowered as any direct call. Every use of the builtin but a direct call's is redirected
// to it. (Not for variadic builtins, printf's kind: a wrapper could not pass their arguments on.)
// Returns each wrapper with the builtin's name, which it takes in the program (LLVM's name for it has a suffix).
std::map<const llvm::Function*, std::string> wrapAddressTakenBuiltins(llvm::Module& m) {
    auto directCall = [](const llvm::Use& u) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(u.getUser());
        return call && call->isCallee(&u);
    };
    std::vector<llvm::Function*> taken;
    for (llvm::Function& f : m)
        if (f.isDeclaration() && !f.isIntrinsic() && !f.isVarArg() && builtinFor(f.getName().str(), f) &&
            std::any_of(f.use_begin(), f.use_end(), [&](const llvm::Use& u) { return !directCall(u); }))
            taken.push_back(&f);
    std::map<const llvm::Function*, std::string> wrappers;
    for (llvm::Function* f : taken) {
        llvm::Function* w = llvm::Function::Create(f->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                                   f->getName(), m);
        llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "", w));
        std::vector<llvm::Value*> args;
        for (llvm::Argument& a : w->args()) args.push_back(&a);
        llvm::CallInst* call = b.CreateCall(f, args);
        if (w->getReturnType()->isVoidTy()) b.CreateRetVoid();
        else b.CreateRet(call);
        f->replaceUsesWithIf(w, [&](llvm::Use& u) { return !directCall(u); });
        wrappers[w] = f->getName().str();
    }
    return wrappers;
}

void promoteScalars(llvm::Function& f) {
    if (f.isDeclaration()) return;
    llvm::DominatorTree dt(f);
    std::vector<llvm::AllocaInst*> allocas;
    for (llvm::Instruction& i : f.getEntryBlock())
        if (auto* ai = llvm::dyn_cast<llvm::AllocaInst>(&i))
            if (llvm::isAllocaPromotable(ai)) allocas.push_back(ai);
    if (!allocas.empty()) llvm::PromoteMemToReg(allocas, dt);
}

} // namespace
} // namespace lowering

std::expected<Program, LowerError> lower(frontend::CompiledModule& compiled, const LowerOptions& options) {
    using namespace lowering;
    llvm::Module& m = compiled.module();
    Program program;
    ModuleContext mc{m, m.getDataLayout(), program};
    mc.escapeAnalysis = options.escapeAnalysis;
    program.locations.push_back({}); // 0 = unknown
    program.files.push_back("");
    const std::map<const llvm::Function*, std::string> wrappers = wrapAddressTakenBuiltins(m);

    // Globals first: their object ids are needed to evaluate constants.
    for (llvm::GlobalVariable& gv : m.globals()) {
        mc.globalIndex[&gv] = uint32_t(program.globals.size());
        Global g;
        g.name = gv.getName().str();
        llvm::Type* vt = gv.getValueType();
        g.size = mc.dl.getTypeAllocSize(vt);
        if (auto* at = llvm::dyn_cast<llvm::ArrayType>(vt)) g.elemSize = uint32_t(mc.dl.getTypeAllocSize(at->getElementType()));
        g.readOnly = gv.isConstant();
        g.threadLocal = gv.isThreadLocal();
        program.globals.push_back(std::move(g));
    }
    for (llvm::Function& f : m) {
        mc.functionIndex[&f] = uint32_t(program.functions.size());
        Function fn;
        auto wrapper = wrappers.find(&f);
        fn.name = wrapper != wrappers.end() ? wrapper->second : f.getName().str();
        fn.defined = !f.isDeclaration();
        fn.variadic = f.isVarArg();
        fn.atomicSection = fn.name.rfind("__VERIFIER_atomic_", 0) == 0 && fn.name != "__VERIFIER_atomic_begin" &&
                           fn.name != "__VERIFIER_atomic_end";
        program.functions.push_back(std::move(fn));
    }
    for (llvm::GlobalVariable& gv : m.globals()) {
        Global& g = program.globals[mc.globalIndex[&gv]];
        g.init.assign(g.size, 0);
        if (gv.hasInitializer() && !writeInitializer(mc, g.init, 0, gv.getInitializer())) {
            report::SourceLocation where;
            llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> debug;
            gv.getDebugInfo(debug);
            if (!debug.empty()) {
                where.file = debug[0]->getVariable()->getFilename().str();
                where.line = debug[0]->getVariable()->getLine();
            }
            return std::unexpected(LowerError{"unsupported: initialiser of global `" + g.name + "` of type " +
                                                  describeType(gv.getValueType()),
                                              where});
        }
    }
    // Every function first: the escape analysis of one function's allocas follows their addresses into the
    // parameters of the functions it calls (Escape.cpp, allocaEscapes), as mem2reg leaves those.
    for (llvm::Function& f : m) promoteScalars(f);
    for (llvm::Function& f : m) {
        uint32_t idx = mc.functionIndex[&f];
        if (f.isDeclaration()) continue;
        if (auto* sp = f.getSubprogram()) {
            mc.program.functions[idx].loc =
                mc.location(llvm::DILocation::get(m.getContext(), sp->getLine(), 0, sp), idx);
        }
        lowerFunction(mc, f, idx);
    }
    llvm::Function* mainFn = m.getFunction("main");
    if (!mainFn || mainFn->isDeclaration())
        return std::unexpected(LowerError{"the program has no `main` function", {}});
    program.mainFunction = mc.functionIndex[mainFn];
    program.fingerprint = computeFingerprint(program);
    return program;
}

// Exposed to LowerInstr.cpp.
namespace lowering {
std::optional<Builtin> lookupBuiltin(const llvm::Function& f) { return builtinFor(f.getName().str(), f); }
} // namespace lowering

} // namespace skein::program
