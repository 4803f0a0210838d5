#include "core/explore/Explorer.h"

#include <sys/resource.h>

#include "core/explore/TraceBuilder.h"
#include "core/explore/dfs/Dfs.h"
#include "core/explore/unfolding/Qpor.h"

namespace skein::explore {

const std::vector<ExplorerInfo>& explorers() {
    static const std::vector<ExplorerInfo> list = {
        {"dfs", "all interleavings of visible events, no reduction (the test oracle; counts Mazurkiewicz traces)",
         &dfs::explore},
        {"qpor", "Quasi-Optimal POR over the unfolding (--alt=sdpor|kN|optimal); counts sleep-set blocked runs",
         &unfolding::explore},
    };
    return list;
}

const ExplorerInfo* findExplorer(const std::string& name) {
    for (const ExplorerInfo& e : explorers())
        if (e.name == name) return &e;
    return nullptr;
}

bool ErrorCollector::known(const ErrorKey& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    errors_[it->second].occurrences++;
    return true;
}

bool ErrorCollector::add(const ErrorKey& key, report::ErrorReport base, const exec::Executor& ex,
                         const std::vector<report::Decision>& schedule, int raceFirst, int raceSecond) {
    if (known(key)) return false;
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

std::optional<std::pair<ErrorKey, report::ErrorReport>> terminalError(const exec::Executor& ex) {
    const program::Program& p = ex.program();
    report::ErrorReport rep;
    if (ex.status() == exec::ExecStatus::Error || ex.status() == exec::ExecStatus::Unsupported) {
        const exec::ExecError& err = *ex.error();
        rep.kind = err.kind;
        rep.message = err.message;
        rep.thread = err.thread;
        rep.location = p.sourceLocation(err.loc);
        return std::pair{ErrorKey{err.kind, err.loc, 0}, std::move(rep)};
    }
    if (ex.status() != exec::ExecStatus::Running || ex.exclusiveThread() != model::kNoThread) return std::nullopt;
    // No thread enabled and no atomic section holding the others back: every live thread waits on a lock, a join
    // or a condition variable.
    std::string who;
    model::ThreadId first = model::kNoThread;
    for (model::ThreadId t = 0; t < ex.numThreads(); ++t) {
        if (ex.thread(t).state == exec::ThreadState::Finished) continue;
        if (first == model::kNoThread) first = t;
        who += (who.empty() ? "" : "; ") + std::string("thread ") + std::to_string(t) + " " + ex.describeBlocked(t);
    }
    if (first == model::kNoThread) return std::nullopt;
    rep.kind = report::ErrorKind::Deadlock;
    rep.thread = first;
    uint32_t loc = ex.thread(first).pending.loc;
    rep.location = p.sourceLocation(loc);
    rep.message = "deadlock: " + who;
    return std::pair{ErrorKey{report::ErrorKind::Deadlock, loc, 0}, std::move(rep)};
}

std::pair<ErrorKey, report::ErrorReport> raceError(const exec::Executor& ex, uint32_t first, uint32_t second) {
    const program::Program& p = ex.program();
    const model::Event& a = ex.trace()[first];
    const model::Event& b = ex.trace()[second];
    report::ErrorReport rep;
    rep.kind = report::ErrorKind::DataRace;
    rep.thread = b.tid;
    rep.location = p.sourceLocation(b.loc);
    rep.otherLocation = p.sourceLocation(a.loc);
    rep.otherThread = a.tid;
    std::string var = ex.describeAddress(b.addr);
    rep.message = "data race on `" + var + "`: thread " + std::to_string(a.tid) + " " + (a.writes() ? "writes" : "reads") +
                  " it at line " + std::to_string(rep.otherLocation->line) + ", unordered with thread " +
                  std::to_string(b.tid) + "'s " + (b.writes() ? "write" : "read") + " at line " +
                  std::to_string(rep.location.line);
    return {ErrorKey::race(a.loc, b.loc), std::move(rep)};
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
