#include "core/Check.h"

#include <chrono>

#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"

namespace skein {

std::expected<report::CheckResult, CheckFailure> check(const CheckRequest& req, explore::Observer* obs) {
    const explore::ExplorerInfo* explorer = explore::findExplorer(req.algorithm);
    if (!explorer) {
        report::Diagnostic d;
        d.message = "unknown algorithm `" + req.algorithm + "`";
        return std::unexpected(CheckFailure{{d}});
    }
    auto t0 = std::chrono::steady_clock::now();
    auto compiled = frontend::compile({req.path, req.contents, req.clangFlags});
    if (!compiled) return std::unexpected(CheckFailure{std::move(compiled.error().diagnostics)});
    auto program = program::lower(*compiled);
    if (!program) {
        report::Diagnostic d;
        d.location = program.error().location;
        if (d.location.file.empty()) d.location.file = req.path;
        d.message = program.error().message;
        return std::unexpected(CheckFailure{{d}});
    }
    double compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    report::CheckResult r = explorer->run(*program, req.options, obs);
    if (r.explorerLimit && req.fallbackToDfs && req.algorithm != "dfs") {
        std::string why = *r.explorerLimit;
        r = explore::findExplorer("dfs")->run(*program, req.options, obs);
        r.notes.push_back(req.algorithm + " cannot explore this program (" + why + "); dfs was used instead");
    }
    r.file = req.path;
    r.stats.compileMs = compileMs;
    return r;
}

} // namespace skein
