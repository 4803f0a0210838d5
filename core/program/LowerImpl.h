#pragma once
// Internal to lowering (Lower.cpp: module level, FunctionLowering.h: one function, Escape.cpp: locals' escape). Includes llvm/IR.
#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/program/Program.h"

namespace llvm {
class Loop;
class LoopInfo;
} // namespace llvm

namespace skein::program::lowering {

enum class ParameterEscape : uint8_t { UnderWay, Private, Escapes };
// Whether another thread can reach the stack object v points to (Escape.cpp): then its accesses are events.
// `heap`: v is what a malloc or calloc returned (free does not let it escape).
bool allocaEscapes(const llvm::Value* v, llvm::DenseMap<const llvm::Argument*, ParameterEscape>& parameters,
                   bool heap = false);

// Module-wide state shared by every function's lowering.
struct ModuleContext {
    llvm::Module& module;
    const llvm::DataLayout& dl;
    Program& program;
    // Direct-initialised here, so that `ModuleContext{module, dl, program}` needs no `{}` for them (DenseMap's
    // default constructor is explicit: a copy from `{}` draws a warning).
    llvm::DenseMap<const llvm::Function*, uint32_t> functionIndex{};
    llvm::DenseMap<const llvm::GlobalVariable*, uint32_t> globalIndex{};
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t> locationIndex{};
    std::map<std::string, uint32_t> fileIndex{};
    // Whether a defined function's pointer parameter lets what it points to escape (Escape.cpp, allocaEscapes).
    llvm::DenseMap<const llvm::Argument*, ParameterEscape> parameterEscapes{};
    bool escapeAnalysis = true; // LowerOptions
    // A stack object of the program's: shared unless the analysis (when on) says no other thread can reach it.
    bool escapes(const llvm::Value* alloca) { return !escapeAnalysis || allocaEscapes(alloca, parameterEscapes); }
    // What a malloc or calloc returns: its own parameters' answers (a callee's free of a parameter differs).
    llvm::DenseMap<const llvm::Argument*, ParameterEscape> heapParameterEscapes{};
    bool heapEscapes(const llvm::Value* call) {
        return !escapeAnalysis || allocaEscapes(call, heapParameterEscapes, /*heap=*/true);
    }

    uint32_t location(const llvm::DebugLoc& dl, uint32_t function);
    uint32_t message(std::string m);
    // Flattened scalar values of a constant (one per register slot); nullopt if it cannot be evaluated.
    std::optional<std::vector<uint64_t>> evalConstant(const llvm::Constant* c);
    std::optional<uint64_t> evalScalar(const llvm::Constant* c);
};

// Number of register slots a value of this type occupies (aggregates are flattened).
uint32_t slotsOf(llvm::Type* t);
// Width in bits of a scalar register type (pointers: 64); 0 when it is not a scalar Skein supports.
unsigned scalarBits(llvm::Type* t);
std::string describeType(llvm::Type* t);

// The builtin a call to `f` denotes (by name, SV-COMP dialect included), if any.
std::optional<Builtin> lookupBuiltin(const llvm::Function& f);

// Lowers one defined function into `out` (ModuleContext::program.functions[index]).
void lowerFunction(ModuleContext& mc, llvm::Function& f, uint32_t index);

} // namespace skein::program::lowering
