// The escape analysis (LowerImpl.h, allocaEscapes): whether another thread can reach a stack object, or what a malloc
// returns.
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/IntrinsicInst.h>

#include "core/program/LowerImpl.h"

namespace skein::program::lowering {

using llvm::dyn_cast;
using llvm::isa;

namespace {

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
    bool heap; // a malloc'd object: handing it to free hands it to no one (a stack object's free is an error anyway)
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
            if (!callee || !call->isArgOperand(&u)) return true; // called through, or an operand bundle's
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
            if (*b == Builtin::Realloc || (*b == Builtin::Free && !q.heap)) return true;
            // pthread_exit's value is the joiner's: it hands the object to another thread.
            if (*b == Builtin::ThreadExit) return true;
        } else {
            return true; // ptrtoint, atomic operations, returns, aggregates...
        }
    }
    return false;
}

} // namespace

bool allocaEscapes(const llvm::Value* v, llvm::DenseMap<const llvm::Argument*, ParameterEscape>& parameters,
                   bool heap) {
    EscapeQuery q{parameters, heap, {}};
    llvm::SmallPtrSet<const llvm::Value*, 16> seen;
    const bool escapes = allocaEscapes(v, q, seen, 0);
    if (escapes)
        for (const llvm::Argument* p : q.provisional) parameters.erase(p);
    return escapes;
}

} // namespace skein::program::lowering
