#pragma once
// The JSON form of core results (docs/json-output.md). The one place that knows how a CheckResult looks on the
// wire; the CLI's --json, and later the language server and the viewer, all use it.
#include <nlohmann/json.hpp>

#include "core/report/Result.h"

namespace skein::protocol {

nlohmann::json toJSON(const report::SourceLocation& l);
nlohmann::json toJSON(const report::Stats& s);
nlohmann::json toJSON(const report::ErrorReport& e);
nlohmann::json toJSON(const report::CheckResult& r);
nlohmann::json toJSON(const report::Diagnostic& d);

} // namespace skein::protocol
