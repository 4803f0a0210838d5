#pragma once
// The `vhb` explorer: value-centric DPOR (VC-DPOR, Chalupa et al., OOPSLA 2018) — one exploration per class of
// executions in which every thread observes the same sequence of values. See DESIGN.md beside this file.
#include "core/explore/Explorer.h"

namespace skein::explore::vhb {

report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs);
// Its first pass alone, critical sections run alone (DESIGN.md "Critical sections run alone"): exact for
// programs without a data race, and reports one for every program that has one (the tests check both).
report::CheckResult exploreSpans(const program::Program& p, const ExploreOptions& opts, Observer* obs);

} // namespace skein::explore::vhb
