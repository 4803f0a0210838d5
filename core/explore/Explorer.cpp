#include "core/explore/Explorer.h"

#include <sys/resource.h>

#include "core/explore/TraceBuilder.h"
#include "core/explore/dfs/Dfs.h"

namespace skein::explore {

const std::vector<ExplorerInfo>& explorers() {
    static const std::vector<ExplorerInfo> list = {
        {"dfs", "all interleavings of visible events, no reduction (the test oracle; counts Mazurkiewicz traces)",
         &dfs::explore},
    };
    return list;
}

const ExplorerInfo* findExplorer(const std::string& name) {
    for (const ExplorerInfo& e : explorers())
        if (e.name == name) return &e;
    return nullptr;
}

bool ErrorCollector::add(report::ErrorReport base, const exec::Executor& ex,
                         const std::vector<report::Decision>& schedule, int raceFirst, int raceSecond) {
    std::string key = std::string(report::errorKindName(base.kind)) + "@" + report::formatLocation(base.location);
    if (base.otherLocation) {
        // A race is one error whichever access came first.
        std::string a = report::formatLocation(base.location), b = report::formatLocation(*base.otherLocation);
        key = "race@" + std::min(a, b) + "|" + std::max(a, b);
    }
    auto it = index_.find(key);
    if (it != index_.end()) {
        errors_[it->second].occurrences++;
        return false;
    }
    if (errors_.size() >= opts_.maxErrors) {
        limitReached_ = true;
        return true;
    }
    buildCounterexample(ex, base, raceFirst, raceSecond);
    base.schedule = schedule;
    index_[key] = errors_.size();
    errors_.push_back(std::move(base));
    if (observer_) observer_->onError(errors_.back());
    if (errors_.size() >= opts_.maxErrors) limitReached_ = true;
    return opts_.stopOnFirstError || limitReached_;
}

double RunClock::elapsedMs() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

bool RunClock::shouldStop() {
    if (opts_.cancelled && opts_.cancelled()) return true;
    return opts_.timeLimitSeconds > 0 && elapsedMs() > opts_.timeLimitSeconds * 1000;
}

bool RunClock::progressDue() {
    auto now = std::chrono::steady_clock::now();
    if (now - lastProgress_ < std::chrono::milliseconds(200)) return false;
    lastProgress_ = now;
    return true;
}

uint64_t currentPeakRssKb() {
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return uint64_t(ru.ru_maxrss);
}

} // namespace skein::explore
