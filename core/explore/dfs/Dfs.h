#pragma once
// The `dfs` explorer: every interleaving of visible events, no reduction. The oracle every other explorer is
// tested against: it reports the errors, the complete/blocked/bounded executions, the distinct final states and
// the number of Mazurkiewicz traces (distinct happens-before orders of dependent events).
#include "core/explore/Explorer.h"

namespace skein::explore::dfs {

report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs);

// The canonical form of an execution's Mazurkiewicz trace: the lexicographically least linearisation (by
// thread id) of the partial order given by program order, create/join, and the dependence relation
// (model::dependent). Equal hashes ⇔ equivalent executions (up to hash collisions).
uint64_t mazurkiewiczHash(const std::vector<model::Event>& events);

} // namespace skein::explore::dfs
