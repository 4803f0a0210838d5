#pragma once
// The CLI's subcommands. Each takes its arguments (without the subcommand) and returns the exit code.
#include <optional>
#include <string>
#include <vector>

#include "core/Check.h"

namespace skein::cli {

// Exit codes of `skein check` (README): 0 no error and exhaustive, 1 error found, 2 inconclusive, 3 bad input.
enum ExitCode { kSafe = 0, kErrorFound = 1, kInconclusive = 2, kBadInput = 3 };

struct CheckArgs {
    CheckRequest request;
    bool json = false;
    std::string sarifPath, dotPath;
};
// Parses `skein check`'s arguments (shared with the corpus runner). Returns an error message, or "help".
std::optional<std::string> parseCheckArgs(const std::vector<std::string>& args, CheckArgs& out);

int runCheck(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);

} // namespace skein::cli
