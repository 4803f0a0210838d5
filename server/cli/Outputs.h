#pragma once
// Renderings of a CheckResult for the CLI: human text, SARIF 2.1.0, Graphviz DOT.
#include <iosfwd>
#include <vector>

#include "core/report/Result.h"

namespace skein::cli {

void printText(std::ostream& os, const report::CheckResult& r);
void printDiagnostics(std::ostream& os, const std::vector<report::Diagnostic>& diags);
void writeSarif(std::ostream& os, const report::CheckResult& r);
// The partial order of the first counterexample (or a graph saying there is none).
void writeDot(std::ostream& os, const report::CheckResult& r);

} // namespace skein::cli
