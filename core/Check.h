#pragma once
// The whole pipeline, file → verdict: compile (core/frontend), lower (core/program), explore (core/explore).
// Used by `skein check` and, later, by the language server.
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/explore/Explorer.h"
#include "core/report/Result.h"

namespace skein {

struct CheckRequest {
    std::string path;
    std::optional<std::string> contents; // unsaved text
    std::vector<std::string> clangFlags;
    std::string algorithm = "qpor";
    // When the algorithm was not chosen explicitly: if qpor cannot handle the program (CheckResult::explorerLimit),
    // explore it with dfs instead and say so in the result's notes.
    bool fallbackToDfs = true;
    explore::ExploreOptions options;
};

struct CheckFailure {
    std::vector<report::Diagnostic> diagnostics; // compile errors, or the reason the program cannot be checked
};

std::expected<report::CheckResult, CheckFailure> check(const CheckRequest& req, explore::Observer* obs = nullptr);

} // namespace skein
