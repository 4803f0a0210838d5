#pragma once
// Lowering: llvm::Module → Program (the pre-decoded form the executor runs). The only consumer of llvm/IR
// besides the front end.
#include <expected>
#include <string>

#include "core/frontend/Frontend.h"
#include "core/program/Program.h"

namespace skein::program {

struct LowerError {
    std::string message; // "no `main` function", ...
    report::SourceLocation location;
};

struct LowerOptions {
    // Off: every local whose address is taken is shared, its accesses events — the reference the escape analysis
    // is held to (tests/corpus/CorpusRunner.cpp: the analysis changes no verdict, error or count).
    bool escapeAnalysis = true;
};

// Promotes non-escaping scalars to registers (mem2reg, which never touches memory that can be shared), then
// decodes every function. Constructs the executor cannot model are lowered to Op::Unsupported, so that a
// program using one in dead code still checks; reaching one at run time is reported.
std::expected<Program, LowerError> lower(frontend::CompiledModule& module, const LowerOptions& options = {});

} // namespace skein::program
