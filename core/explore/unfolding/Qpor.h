#pragma once
// The `qpor` explorer: Quasi-Optimal POR (Nguyen, Rodríguez, Sousa, Coti, Petrucci, CAV'18), Alg. 1
// Explore(C, D, A) over the unfolding of the program, with k-partial alternatives computed by the comb (Def. 6),
// sleep-set-blocked executions counted, and U pruned to Q_{C,D}. See core/explore/unfolding/DESIGN.md.
#include "core/explore/Explorer.h"

namespace skein::explore::unfolding {

report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs);

// Parses --alt: "sdpor", "k<N>" (N ≥ 1) or "optimal". Returns 0 for optimal, N for kN; -1 for sdpor; nullopt if bad.
std::optional<int> parseAltMode(const std::string& s);

} // namespace skein::explore::unfolding
