#pragma once
// Turns an executed event sequence into the counterexample's trace and partial order (po, rf, co, sync, race).
#include <vector>

#include "core/exec/Executor.h"
#include "core/report/Result.h"

namespace skein::explore {

// `events` is the executor's trace; `raceA`/`raceB` index the racing pair (or -1). When the execution stopped
// at an error, the failing operation is appended as a last step.
void buildCounterexample(const exec::Executor& ex, report::ErrorReport& out, int raceA = -1, int raceB = -1);

std::string describeEvent(const exec::Executor& ex, const model::Event& e);

} // namespace skein::explore
