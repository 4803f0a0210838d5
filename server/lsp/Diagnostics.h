#pragma once
// Core results → LSP diagnostics: one diagnostic per distinct error, at the failing line, with a message that
// says what happened in a sentence and relatedInformation at the other places that matter (the other racing
// access, the other blocked lock calls, the write an assertion's read saw). Stateless; any thread.
#include <string>
#include <vector>

#include "core/report/Result.h"
#include "server/lsp/ProgramFacts.h"
#include "server/lsp/Protocol.h"
#include "server/lsp/Text.h"

namespace skein::lsp {

// The document a diagnostic is published for.
struct DocumentView {
    std::string uri;
    std::string path; // the path its checks compile it under
    const LineIndex& lines;
    const VariableFacts* facts = nullptr; // who writes which shared variable, for the sentences
};

// The sentence for an error, built from its message and its trace, e.g. "assertion `counter == N` fails when
// thread 2 reads `counter` before thread 1's write at line 33 (that write is lost)".
// `facts` (optional) names writes the counterexample's trace does not reach.
std::string explainError(const report::ErrorReport& e, const VariableFacts* facts = nullptr);

// `replayed`: found by replaying the previous counterexample's schedule (shown before the exploration ends).
Diagnostic errorDiagnostic(const report::ErrorReport& e, const std::string& counterexampleId,
                           const DocumentView& doc, bool replayed);

// Clang's errors and warnings (and lowering failures). Diagnostics in other files (headers) are shown at the
// top of the document with the file named in the message.
std::vector<Diagnostic> compileDiagnostics(const std::vector<report::Diagnostic>& diags,
                                           const DocumentView& doc);

// An information diagnostic at `line1` saying the exploration was not exhaustive (a bound, a budget, a
// cancel) and why.
Diagnostic boundedDiagnostic(const report::CheckResult& r, uint32_t line1, const DocumentView& doc);

// Whether the settings ask for errors of this kind.
bool kindReported(const Settings& s, report::ErrorKind k);

// A path from a Skein location made absolute (debug info names files relative to the compilation directory).
std::string resolvePath(const std::string& file);
// True when a Skein location refers to the document (the same path).
bool inDocument(const report::SourceLocation& l, const DocumentView& doc);

} // namespace skein::lsp
