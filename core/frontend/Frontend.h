#pragma once
// The C front end: Clang in-process, a file on disk or unsaved text → an llvm::Module with debug info.
// Only this header's .cpp includes Clang; callers see an opaque module handle and plain diagnostics.
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/report/Result.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace skein::frontend {

struct CompileRequest {
    std::string path;                    // the file's name (used for diagnostics and debug info)
    std::optional<std::string> contents; // unsaved editor text; read from `path` when empty
    std::vector<std::string> flags;      // extra clang flags: -I, -D, -std=..., -U
};

// Owns the context and the module compiled in it. Move-only.
class CompiledModule {
public:
    CompiledModule(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> mod);
    CompiledModule(CompiledModule&&) noexcept;
    CompiledModule& operator=(CompiledModule&&) noexcept;
    ~CompiledModule();
    llvm::Module& module() const { return *module_; }

private:
    std::unique_ptr<llvm::LLVMContext> context_;
    std::unique_ptr<llvm::Module> module_;
};

struct CompileFailure {
    std::vector<report::Diagnostic> diagnostics; // at least one error
};

// The library functions Skein models in C (core/frontend/models/libc.c), which compile() links into a program that
// calls them and does not define them; and, compiled, the functions the models file defines (a test holds the two
// equal, so that the list cannot drift from the file).
const std::vector<std::string>& libcModelNames();
std::vector<std::string> libcModelsDefined();

// Thread-safe: each call has its own compiler instance and context.
std::expected<CompiledModule, CompileFailure> compile(const CompileRequest& req,
                                                      std::vector<report::Diagnostic>* warnings = nullptr);

} // namespace skein::frontend
