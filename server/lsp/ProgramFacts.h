#pragma once
// What the language server reads off a lowered program besides checking it: location mapping between two
// versions with the same position-independent fingerprint, where `main` is, and which threads touch which
// shared variables (for hover). Stateless; any thread (a Program is immutable once lowered).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/exec/Executor.h"
#include "core/program/Program.h"
#include "core/report/Result.h"

namespace skein::lsp {

// Maps source positions of `from` to those of `to`, two programs with equal positionIndependentFingerprint
// (so the same instruction sequence): the location of instruction i of function f in `from` becomes the
// location of the same instruction in `to`.
class LocationMap {
  public:
    LocationMap(const program::Program& from, const program::Program& to);
    // The positions of `r` in `file`, moved token by token (a comment/whitespace edit, before compiling).
    static LocationMap fromTokens(const report::CheckResult& r, const std::string& file,
                                  const class TokenMap& t);
    void apply(report::SourceLocation& l) const;
    void apply(report::ErrorReport& e) const;
    void apply(report::CheckResult& r) const;
    size_t size() const { return map_.size(); }

  private:
    LocationMap() = default;
    struct Key {
        std::string file;
        uint32_t line, column;
        auto operator<=>(const Key&) const = default;
    };
    std::map<Key, Key> map_; // old (file, line, column) → new; the file changes when the result came from
                             // another document with the same program
};

// 1-based line of `main`'s definition (0 when unknown).
uint32_t mainLine(const program::Program& p);

// Shared variables and who touches them, from one deterministic execution (the lowest enabled thread always
// runs next) and the counterexamples — an under-approximation: other interleavings may take other paths.
struct VariableAccess {
    uint32_t thread = 0;
    bool write = false;
    uint32_t line = 0;
    bool operator<(const VariableAccess& o) const {
        return std::tie(thread, write, line) < std::tie(o.thread, o.write, o.line);
    }
};
using VariableFacts = std::map<std::string, std::set<VariableAccess>>; // base name ("flag" for flag[1])
VariableFacts sharedVariables(const program::Program& p, const exec::ExecOptions& opts);
// Adds the accesses of every counterexample trace of `r` (other interleavings than the one above).
void addTraceAccesses(VariableFacts& facts, const report::CheckResult& r);

} // namespace skein::lsp
