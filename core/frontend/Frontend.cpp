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
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
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

// The text of frontend/models/libc.c (core/CMakeLists.txt makes it a string literal).
const char kLibcModels[] =
#include "LibcModels.inc"
    ;

// Compiles C text named `path`; with debug info (-g) for a program, without for the library models (their events
// are then placed at the program's call: Executor::currentLoc).
std::expected<CompiledModule, CompileFailure> compileText(const std::string& path, const std::string& text,
                                                          const std::vector<std::string>& flags, bool debugInfo,
                                                          std::vector<report::Diagnostic>* warnings) {
    // The dialect of real concurrent C (SV-COMP): implicit declarations of __VERIFIER_* functions, gnu89
    // inline semantics so that non-static inline functions have a body, int/pointer conversions as warnings.
    std::vector<std::string> args = {SKEIN_CLANG_BINARY, "-c", "-O0", "-Xclang", "-disable-O0-optnone",
                                     "-resource-dir", SKEIN_CLANG_RESOURCE_DIR, "-pthread", "-std=gnu11",
                                     "-fgnu89-inline", "-fno-builtin", "-Wno-error=implicit-function-declaration",
                                     "-Wno-implicit-function-declaration", "-Wno-error=int-conversion",
                                     "-Wno-error=incompatible-function-pointer-types",
                                     "-Wno-error=return-type", "-Wno-error=implicit-int",
                                     "-fno-discard-value-names", "-ferror-limit=50"};
    if (debugInfo) args.push_back("-g");
    for (const std::string& f : flags) args.push_back(f);
    args.push_back(path);
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
        if (f.diagnostics.empty()) f = failure("invalid compiler flags", path);
        return std::unexpected(std::move(f));
    }
    inv->getFrontendOpts().DisableFree = false; // a long-running server must not leak per compile
    inv->getDiagnosticOpts().ShowCarets = false; // also silences Clang's "N errors generated." on stderr
    inv->getCodeGenOpts().DiscardValueNames = false;
    inv->getPreprocessorOpts().addRemappedFile(path, llvm::MemoryBuffer::getMemBufferCopy(text, path).release());

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
        if (f.diagnostics.empty()) f = failure("compilation failed", path);
        return std::unexpected(std::move(f));
    }
    return CompiledModule(std::move(ctx), std::move(mod));
}

// The library models as bitcode, compiled once per process (a function-local static: thread-safe), or null when
// they do not compile (a bug: the unit tests compile them).
const std::string* libcModelsBitcode() {
    static const std::optional<std::string> bitcode = []() -> std::optional<std::string> {
        auto models = compileText("skein-libc-models.c", kLibcModels, {"-w"}, /*debugInfo=*/false, nullptr);
        if (!models) return std::nullopt;
        std::string out;
        llvm::raw_string_ostream os(out);
        llvm::WriteBitcodeToFile(models->module(), os);
        os.flush();
        return out;
    }();
    return bitcode ? &*bitcode : nullptr;
}

} // namespace

const std::vector<std::string>& libcModelNames() {
    static const std::vector<std::string> names = {
        "__ctype_b_loc", "__ctype_toupper_loc", "__ctype_tolower_loc", "toupper", "tolower", "isupper", "islower",
        "isalpha", "isdigit", "isxdigit", "isspace", "isprint", "isgraph", "isblank", "iscntrl", "ispunct", "isalnum",
        "abs", "labs", "llabs", "strtol", "strtoll", "strtoul", "strtoull", "atoi", "atol", "atoll", "qsort",
        "bsearch", "strchr", "strrchr", "memchr", "strnlen", "strstr", "strspn", "strcspn", "strpbrk", "strndup",
        "strdup", "index", "rindex", "memrchr", "stpcpy", "memccpy", "strncat", "strncasecmp", "strcasecmp",
        "strtok_r", "strtok", "ffs", "ffsl", "getenv", "vsnprintf", "vsprintf", "snprintf", "sprintf", "vprintf",
        "vfprintf", "strtod", "strtof", "atof", "vsscanf", "sscanf", "__isoc99_vsscanf",
        "__isoc99_sscanf", "fputs", "fputc", "putc", "_IO_putc", "fwrite", "write", "strerror", "perror", "getpid",
        "clock", "aligned_alloc", "memalign", "posix_memalign", "bzero"};
    return names;
}

std::vector<std::string> libcModelsDefined() {
    std::vector<std::string> out;
    const std::string* bitcode = libcModelsBitcode();
    if (!bitcode) return out;
    llvm::LLVMContext ctx;
    auto models = llvm::parseBitcodeFile(llvm::MemoryBufferRef(*bitcode, "skein-libc-models"), ctx);
    if (!models) {
        llvm::consumeError(models.takeError());
        return out;
    }
    for (llvm::Function& f : **models)
        if (!f.isDeclaration() && !f.hasLocalLinkage()) out.push_back(f.getName().str());
    return out;
}

namespace {

// Links into `m` the models of the library functions it calls and does not define: LinkOnlyNeeded takes only what
// a declaration of `m` needs (and what that needs in turn), and a model is weak, so a definition of `m` wins. The
// models are compiled (once per process) only when `m` declares one of them.
std::optional<std::string> linkLibcModels(llvm::Module& m) {
    const std::vector<std::string>& names = libcModelNames();
    const bool needed = std::any_of(m.begin(), m.end(), [&](const llvm::Function& f) {
        return f.isDeclaration() && std::find(names.begin(), names.end(), f.getName()) != names.end();
    });
    if (!needed) return std::nullopt;
    const std::string* bitcode = libcModelsBitcode();
    if (!bitcode) return "internal: Skein's C library models do not compile";
    auto models = llvm::parseBitcodeFile(llvm::MemoryBufferRef(*bitcode, "skein-libc-models"), m.getContext());
    if (!models) return "internal: Skein's C library models: " + llvm::toString(models.takeError());
    for (llvm::Function& f : **models)
        if (!f.isDeclaration()) f.addFnAttr("skein-model"); // (LowerInstr.cpp: no loop bound or spin cut inside)
    if (llvm::Linker::linkModules(m, std::move(*models), llvm::Linker::Flags::LinkOnlyNeeded))
        return "internal: Skein's C library models do not link with the program";
    return std::nullopt;
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
    auto compiled = compileText(req.path, text, req.flags, /*debugInfo=*/true, warnings);
    if (!compiled) return compiled;
    if (auto error = linkLibcModels(compiled->module())) return std::unexpected(failure(*error, req.path));
    return compiled;
}

} // namespace skein::frontend
