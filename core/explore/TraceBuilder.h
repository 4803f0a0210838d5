#pragma once
// Turns an executed event sequence into the counterexample's trace and partial order (po, rf, co, sync, race).
#include <vector>

#include "core/exec/Executor.h"
#include "core/report/Result.h"

namespace skein::explore {

struct CounterexampleCut;
// The trace and partial order of the executor's last execution, up to `cut` (Explorer.h): the first
// cut.length events, then the failing operation when cut.error is set; the racing pair is marked.
void buildCounterexample(const exec::Executor& ex, report::ErrorReport& out, const CounterexampleCut& cut);

std::string describeEvent(const exec::Executor& ex, const model::Event& e);

} // namespace skein::explore
