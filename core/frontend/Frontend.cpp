// Clang in-process. This is one of the two translation units that include Clang headers (the other is none:
// lowering sees only llvm/IR). Keep it that way: each costs ~20 s and ~1 GB to compile.
#include "core/frontend/Frontend.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <fstream>
#include <sstream>

namespace skein::frontend {

CompiledModule::CompiledModule(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> mod)
    : context_(std::move(ctx)), module_(std::move(mod)) {}
CompiledModule::CompiledModule(CompiledModule&&) noexcept = default;
CompiledModule& CompiledModule::operator=(CompiledModule&&) noexcept = default;
CompiledModule::~CompiledModule() {
    module_.reset(); // the module must die before its context
    context_.reset();
}

namespace {

// Collects Clang's diagnostics as plain data instead of printing them.
class Collector : public clang::DiagnosticConsumer {
public:
    std::vector<report::Diagnostic> diags;
    void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
        clang::DiagnosticConsumer::HandleDiagnostic(level, info);
        report::Diagnostic d;
        switch (level) {
        case clang::DiagnosticsEngine::Error:
        case clang::DiagnosticsEngine::Fatal: d.severity = report::Severity::Error; break;
        case clang::DiagnosticsEngine::Warning: d.severity = report::Severity::Warning; break;
        default: d.severity = report::Severity::Note; break;
        }
        llvm::SmallString<256> msg;
        info.FormatDiagnostic(msg);
        d.message = std::string(msg);
        if (info.hasSourceManager() && info.getLocation().isValid()) {
            clang::PresumedLoc p = info.getSourceManager().getPresumedLoc(info.getLocation());
            if (p.isValid()) {
                d.location.file = p.getFilename();
                d.location.line = p.getLine();
                d.location.column = p.getColumn();
            }
        }
        diags.push_back(std::move(d));
    }
};

CompileFailure failure(std::string message, const std::string& path) {
    CompileFailure f;
    report::Diagnostic d;
    d.location.file = path;
    d.message = std::move(message);
    f.diagnostics.push_back(std::move(d));
    return f;
}

} // namespace

std::expected<CompiledModule, CompileFailure> compile(const CompileRequest& req,
                                                      std::vector<report::Diagnostic>* warnings) {
    std::string text;
    if (req.contents) {
        text = *req.contents;
    } else {
        std::ifstream in(req.path, std::ios::binary);
        if (!in) return std::unexpected(failure("cannot read file '" + req.path + "'", req.path));
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }

    // The dialect of real concurrent C (SV-COMP): implicit declarations of __VERIFIER_* functions, gnu89
    // inline semantics so that non-static inline functions have a body, int/pointer conversions as warnings.
    std::vector<std::string> args = {SKEIN_CLANG_BINARY, "-c", "-g", "-O0", "-Xclang", "-disable-O0-optnone",
                                     "-resource-dir", SKEIN_CLANG_RESOURCE_DIR, "-pthread", "-std=gnu11",
                                     "-fgnu89-inline", "-fno-builtin", "-Wno-error=implicit-function-declaration",
                                     "-Wno-implicit-function-declaration", "-Wno-error=int-conversion",
                                     "-Wno-error=incompatible-function-pointer-types",
                                     "-Wno-error=return-type", "-Wno-error=implicit-int",
                                     "-fno-discard-value-names", "-ferror-limit=50"};
    for (const std::string& f : req.flags) args.push_back(f);
    args.push_back(req.path);
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());

    Collector collector;
    auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    auto diagEngine = clang::CompilerInstance::createDiagnostics(diagOpts.get(), &collector, false);

    clang::CreateInvocationOptions opts;
    opts.Diags = diagEngine;
    opts.VFS = llvm::vfs::getRealFileSystem();
    std::shared_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, opts);
    if (!inv) {
        CompileFailure f;
        f.diagnostics = collector.diags;
        if (f.diagnostics.empty()) f = failure("invalid compiler flags", req.path);
        return std::unexpected(std::move(f));
    }
    inv->getFrontendOpts().DisableFree = false; // a long-running server must not leak per compile
    inv->getDiagnosticOpts().ShowCarets = false; // also silences Clang's "N errors generated." on stderr
    inv->getCodeGenOpts().DiscardValueNames = false;
    inv->getPreprocessorOpts().addRemappedFile(req.path, llvm::MemoryBuffer::getMemBufferCopy(text, req.path).release());

    clang::CompilerInstance ci;
    ci.setInvocation(std::move(inv));
    ci.createDiagnostics(&collector, false);

    auto ctx = std::make_unique<llvm::LLVMContext>();
    clang::EmitLLVMOnlyAction action(ctx.get());
    bool ok = ci.ExecuteAction(action);
    std::unique_ptr<llvm::Module> mod = ok ? action.takeModule() : nullptr;

    std::vector<report::Diagnostic> errors, others;
    for (auto& d : collector.diags)
        (d.severity == report::Severity::Error ? errors : others).push_back(d);
    if (warnings) *warnings = std::move(others);
    if (!ok || !mod || !errors.empty()) {
        CompileFailure f;
        f.diagnostics = std::move(errors);
        if (f.diagnostics.empty()) f = failure("compilation failed", req.path);
        return std::unexpected(std::move(f));
    }
    return CompiledModule(std::move(ctx), std::move(mod));
}

} // namespace skein::frontend
