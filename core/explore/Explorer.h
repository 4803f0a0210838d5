#pragma once
// What every explorer shares: options, the streaming observer, the registry by name, and the ErrorCollector
// that turns a failing execution into a deduplicated counterexample. Explorers see the executor only through
// core/exec/Executor.h and never include LLVM (CMake: skein_explore links no LLVM).
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/Executor.h"
#include "core/report/Result.h"

namespace skein::explore {

struct ExploreOptions {
    exec::ExecOptions exec;
    uint64_t maxExecutions = 0; // 0 = no limit; hitting it makes the verdict bounded
    double timeLimitSeconds = 0; // 0 = no limit
    bool stopOnFirstError = false;
    uint32_t maxErrors = 32;     // distinct errors reported; exploration stops when reached
    bool detectRaces = true;
    // qpor: how alternatives are computed (sdpor, k1, k2, ..., optimal) and the skip step of its trees.
    std::string alt = "optimal";
    unsigned skipStep = 4;
    // Polled between executions and every few thousand steps: true = stop now (the result is bounded).
    std::function<bool()> cancelled;
};

// Receives results as they are found (the language server streams them). Called on the exploring thread.
class Observer {
public:
    virtual ~Observer() = default;
    virtual void onError(const report::ErrorReport&) {}
    virtual void onProgress(const report::Stats&) {}
};

using ExploreFunction = report::CheckResult (*)(const program::Program&, const ExploreOptions&, Observer*);

struct ExplorerInfo {
    std::string name;
    std::string description;
    ExploreFunction run;
};
// The registry of explorers (ARCHITECTURE.md: "How to add an explorer").
const std::vector<ExplorerInfo>& explorers();
const ExplorerInfo* findExplorer(const std::string& name);

// Identifies a distinct error: its kind and the program locations involved (both accesses of a race, in
// either order). Cheap to build, so an explorer can ask before it renders a report.
struct ErrorKey {
    report::ErrorKind kind;
    uint32_t loc = 0, otherLoc = 0;
    auto operator<=>(const ErrorKey&) const = default;
    static ErrorKey race(uint32_t a, uint32_t b) { return {report::ErrorKind::DataRace, std::min(a, b), std::max(a, b)}; }
};

// Deduplicates errors by ErrorKey and builds each one's counterexample once.
class ErrorCollector {
public:
    ErrorCollector(const ExploreOptions& opts, Observer* obs) : opts_(opts), observer_(obs) {}
    // True (and counts one more occurrence) when the error is already known.
    bool known(const ErrorKey& key);
    // Records a new error of the execution the executor just ran (`schedule` replays it). Returns true when the
    // exploration should stop (first error with --stop-on-first, or the error limit).
    bool add(const ErrorKey& key, report::ErrorReport base, const exec::Executor& ex,
             const std::vector<report::Decision>& schedule, int raceFirst = -1, int raceSecond = -1);
    std::vector<report::ErrorReport> take() { return std::move(errors_); }
    size_t size() const { return errors_.size(); }
    bool limitReached() const { return limitReached_; }

private:
    const ExploreOptions& opts_;
    Observer* observer_;
    std::vector<report::ErrorReport> errors_;
    std::map<ErrorKey, size_t> index_;
    bool limitReached_ = false;
};

// The error an execution ended with (assertion, memory, ...), or a deadlock when no thread is enabled; shared by
// the explorers. Returns the key and the report without trace (ErrorCollector adds it).
std::optional<std::pair<ErrorKey, report::ErrorReport>> terminalError(const exec::Executor& ex);
// A data race between events `first` and `second` of the executor's trace.
std::pair<ErrorKey, report::ErrorReport> raceError(const exec::Executor& ex, uint32_t first, uint32_t second);

// Budget/cancellation/progress bookkeeping shared by the explorers' main loops.
class RunClock {
public:
    explicit RunClock(const ExploreOptions& o) : opts_(o), start_(std::chrono::steady_clock::now()) {}
    double elapsedMs() const;
    // True when the time budget is spent or the caller cancelled.
    bool shouldStop();
    bool progressDue(); // about every 200 ms

private:
    const ExploreOptions& opts_;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point lastProgress_ = start_;
};

uint64_t currentPeakRssKb();

} // namespace skein::explore
