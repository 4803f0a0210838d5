#include "core/explore/Explorer.h"

#include <sys/resource.h>

#include <algorithm>

#include "core/explore/RaceDetector.h"
#include "core/explore/TraceBuilder.h"
#include "core/explore/dfs/Dfs.h"
#include "core/explore/unfolding/Qpor.h"
#include "core/explore/vhb/Vhb.h"

namespace skein::explore {

const std::vector<ExplorerInfo>& explorers() {
    static const std::vector<ExplorerInfo> list = {
        {"dfs", "all interleavings of visible events, no reduction (the test oracle; counts Mazurkiewicz traces)",
         &dfs::explore},
        {"qpor", "Quasi-Optimal POR over the unfolding (--alt=sdpor|kN|optimal); counts sleep-set blocked runs",
         &unfolding::explore},
        {"vhb", "value-centric DPOR (VC-DPOR): one run per class of executions whose threads observe the same values",
         &vhb::explore},
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
    if (lastSeen_[it->second] != execution_) {
        lastSeen_[it->second] = execution_;
        if (defer_) seen_.push_back(it->second);
        else errors_[it->second].occurrences++;
    }
    return true;
}

void ErrorCollector::countSeen(uint64_t times) {
    for (size_t i : seen_) counted_[i] += times;
    seen_.clear();
}

void ErrorCollector::startOver() {
    ++execution_; // (every error is met anew)
    seen_.clear();
    for (report::ErrorReport& e : errors_) e.occurrences = 0;
    std::fill(counted_.begin(), counted_.end(), 0);
}

std::vector<report::ErrorReport> ErrorCollector::take() {
    // Deferred: until here each error shows 1 (what an observer streamed). One met only in runs no count covered
    // (the exploration stopped before the run that would count it) was still seen once, and so was one found before
    // the exploration started over (startOver) and not met since.
    for (size_t i = 0; i < errors_.size(); ++i)
        errors_[i].occurrences = std::max<uint64_t>(defer_ ? counted_[i] : errors_[i].occurrences, 1);
    return std::move(errors_);
}

bool ErrorCollector::add(const ErrorKey& key, report::ErrorReport base, const exec::Executor& ex,
                         const std::vector<report::Decision>& schedule, const CounterexampleCut& cut) {
    if (known(key)) return false;
    if (errors_.size() >= opts_.maxErrors) {
        limitReached_ = true;
        return true;
    }
    buildCounterexample(ex, base, cut);
    base.schedule.assign(schedule.begin(), schedule.begin() + long(std::min(cut.length, schedule.size())));
    index_[key] = errors_.size();
    if (defer_) {
        seen_.push_back(errors_.size());
        counted_.push_back(0);
    }
    errors_.push_back(std::move(base));
    lastSeen_.push_back(execution_);
    if (observer_) observer_->onError(errors_.back());
    if (errors_.size() >= opts_.maxErrors) limitReached_ = true;
    return opts_.stopOnFirstError || limitReached_;
}

std::string spinDescription(const exec::Executor& ex, const model::Event& last) {
    std::string out = "spins forever at line " + std::to_string(ex.program().sourceLocation(last.loc).line);
    const bool attempt = last.kind == model::EventKind::TryLock || last.kind == model::EventKind::SemTryWait ||
                         last.kind == model::EventKind::SemGetValue;
    if (last.isMemory() || attempt) out += " on `" + ex.describeAddress(last.addr) + "`";
    return out + ": another iteration would change nothing";
}

std::vector<FoundError> terminalErrors(const exec::Executor& ex) {
    const program::Program& p = ex.program();
    std::vector<FoundError> out;
    for (const exec::ExecError& err : ex.errors()) {
        FoundError f;
        f.key = ErrorKey{err.kind, err.loc, 0};
        f.report.kind = err.kind;
        f.report.message = err.message;
        f.report.thread = err.thread;
        f.report.location = p.sourceLocation(err.loc);
        f.cut.length = err.traceLength;
        f.cut.error = &err;
        out.push_back(std::move(f));
    }
    if (!out.empty() || ex.exclusiveThread() != model::kNoThread) return out;
    if (ex.status() != exec::ExecStatus::Running && ex.status() != exec::ExecStatus::Cut) return out;
    // Every live thread waits on a lock, a join or a condition variable — or spins for good: cut at a spin loop, or
    // still able to run (an explorer may stop early: vhb's leaves, DESIGN.md "Cut threads end a node"), and run on
    // alone it would only read and fail (Executor::spinsForever; none of them changes anything, so all spin at
    // once). A thread still able to run otherwise — qpor stops before an atomic section that would block midway —
    // or cut by an assume or abort (that execution is dropped, not a state the program can be in): no deadlock.
    // (Threads left waiting after main returned are not deadlocked: the status is then Finished.)
    // Reported where a thread waits for a mutex or spins when one does (the heart of the cycle), not at a join; of
    // several, at the first in the thread tree's order, which every explorer numbers alike (ids need not be:
    // treeOrderBefore).
    if (!ex.onlyWaitersOrSpinners()) return out; // (before the copies spinsForever makes)
    std::string who;
    model::ThreadId first = model::kNoThread;
    uint32_t firstLoc = 0;
    bool firstLocked = false;
    for (model::ThreadId t = 0; t < ex.numThreads(); ++t) {
        const exec::ThreadView& v = ex.thread(t);
        if (v.state == exec::ThreadState::Finished) continue;
        uint32_t loc = v.pending.loc;
        std::string what;
        if (v.state == exec::ThreadState::Stopped || ex.enabled(t)) {
            const std::optional<model::Event> spin = ex.spinsForever(t);
            if (!spin) return out;
            loc = spin->loc;
            what = spinDescription(ex, *spin);
        } else {
            what = ex.describeBlocked(t);
        }
        who += (who.empty() ? "" : "; ") + std::string("thread ") + std::to_string(t) + " " + what;
        const bool locked = v.state != exec::ThreadState::BlockedJoin && v.state != exec::ThreadState::BlockedCond;
        if (first == model::kNoThread || (locked && !firstLocked) ||
            (locked == firstLocked && ex.treeOrderBefore(t, first))) {
            first = t;
            firstLoc = loc;
            firstLocked = locked;
        }
    }
    if (first == model::kNoThread) return out;
    FoundError f;
    const uint32_t loc = firstLoc;
    f.key = ErrorKey{report::ErrorKind::Deadlock, loc, 0};
    f.report.kind = report::ErrorKind::Deadlock;
    f.report.thread = first;
    f.report.location = p.sourceLocation(loc);
    f.report.message = "deadlock: " + who;
    out.push_back(std::move(f));
    return out;
}

FoundError raceError(const exec::Executor& ex, uint32_t first, uint32_t second) {
    const program::Program& p = ex.program();
    const model::Event& a = ex.trace()[first];
    const model::Event& b = ex.trace()[second];
    FoundError f;
    report::ErrorReport& rep = f.report;
    rep.kind = report::ErrorKind::DataRace;
    rep.thread = b.tid;
    rep.location = p.sourceLocation(b.loc);
    rep.otherLocation = p.sourceLocation(a.loc);
    rep.otherThread = a.tid;
    // Where they conflict: a copy reads one range and writes another, so the racing byte and each side's verb are
    // those of the first pair of overlapping ranges with a write among them (a copy racing on its source reads it).
    struct Range {
        uint64_t lo, hi;
        bool write;
    };
    auto ranges = [](const model::Event& e) {
        std::vector<Range> out;
        if (auto [lo, hi] = e.writeRange(); lo < hi) out.push_back({lo, hi, true});
        for (int k = 0; k < 2; ++k)
            if (auto [lo, hi] = e.readRange(k); lo < hi) out.push_back({lo, hi, false});
        return out;
    };
    uint64_t at = b.addr;
    bool aWrites = a.writes(), bWrites = b.writes();
    bool found = false;
    for (const Range& x : ranges(a))
        for (const Range& y : ranges(b))
            if (!found && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) {
                found = true;
                at = std::max(x.lo, y.lo);
                aWrites = x.write;
                bWrites = y.write;
            }
    std::string var = ex.describeAddress(at);
    rep.message = "data race on `" + var + "`: thread " + std::to_string(a.tid) + " " + (aWrites ? "writes" : "reads") +
                  " it at line " + std::to_string(rep.otherLocation->line) + ", unordered with thread " +
                  std::to_string(b.tid) + "'s " + (bWrites ? "write" : "read") + " at line " +
                  std::to_string(rep.location.line);
    f.key = ErrorKey::race(a.loc, b.loc);
    f.cut.length = second + 1;
    f.cut.raceFirst = int(first);
    f.cut.raceSecond = int(second);
    return f;
}

namespace {
// A race of the execution: counted (known) or reported when new. Returns true when the exploration should stop.
bool noteRace(ErrorCollector& errors, const exec::Executor& ex, const std::vector<report::Decision>& schedule,
              const ErrorKey& key, uint32_t first, uint32_t second) {
    if (errors.known(key)) return false;
    FoundError f = raceError(ex, first, second);
    return errors.add(f.key, std::move(f.report), ex, schedule, f.cut);
}

// A race needs a non-atomic access (RaceDetector::checkRange): an execution with none — every anchor program
// built with -DUSE_ATOMICS — skips the vector clocks.
bool hasPlainAccess(const std::vector<model::Event>& trace) {
    return std::any_of(trace.begin(), trace.end(), [](const model::Event& e) { return e.isMemory() && !e.atomic; });
}

// Every field the detector and the race reports read.
bool sameEvent(const model::Event& a, const model::Event& b) {
    return a.kind == b.kind && a.atomic == b.atomic && a.rmwWrote == b.rmwWrote && a.builtin == b.builtin &&
           a.size == b.size && a.size2 == b.size2 && a.tid == b.tid && a.indexInThread == b.indexInThread &&
           a.loc == b.loc && a.addr == b.addr && a.addr2 == b.addr2 && a.value == b.value && a.value2 == b.value2 &&
           a.span == b.span && a.span2 == b.span2;
}
} // namespace

bool feedRaces(RaceDetector& detector, std::vector<RaceMet>& met, uint32_t i, ErrorCollector& errors,
               const exec::Executor& ex, const std::vector<report::Decision>& schedule) {
    const auto& trace = ex.trace();
    if (!detector.onEvent(trace[i], i)) return false;
    for (const auto& r : detector.races()) {
        ErrorKey key = ErrorKey::race(trace[r.first].loc, trace[r.second].loc);
        if (std::any_of(met.begin(), met.end(), [&](const RaceMet& m) { return m.key == key; })) continue;
        met.push_back({i, key, r.first, r.second});
        if (noteRace(errors, ex, schedule, key, r.first, r.second)) return true;
    }
    return false;
}

bool addTerminalErrors(ErrorCollector& errors, const exec::Executor& ex,
                       const std::vector<report::Decision>& schedule) {
    bool stop = false;
    for (FoundError& f : terminalErrors(ex)) {
        if (stop) break;
        stop |= errors.add(f.key, std::move(f.report), ex, schedule, f.cut);
    }
    return stop;
}

bool collectErrors(ErrorCollector& errors, RaceDetector* races, const exec::Executor& ex,
                   const std::vector<report::Decision>& schedule) {
    errors.newExecution();
    bool stop = false;
    const auto& trace = ex.trace();
    if (races && hasPlainAccess(trace)) {
        races->reset();
        std::vector<RaceMet> met;
        for (uint32_t i = 0; i < trace.size() && !stop; ++i) stop = feedRaces(*races, met, i, errors, ex, schedule);
    }
    return stop || addTerminalErrors(errors, ex, schedule);
}

bool IncrementalRaces::collect(ErrorCollector& errors, bool detect, const exec::Executor& ex,
                               const std::vector<report::Decision>& schedule) {
    errors.newExecution();
    bool stop = false;
    const auto& trace = ex.trace();
    if (detect && hasPlainAccess(trace)) {
        // The longest common prefix with what the detector was fed; the detector goes back to it.
        size_t common = 0;
        const size_t most = std::min(trace.size(), fedEvents_.size());
        while (common < most && sameEvent(trace[common], fedEvents_[common])) ++common;
        detector_.rollback(common);
        fedEvents_.resize(common);
        while (!met_.empty() && met_.back().at >= common) met_.pop_back();
        reused_ += common;
        // The races met in the prefix, in the order met, as a pass from the start would meet them again.
        for (const RaceMet& m : met_)
            if ((stop = noteRace(errors, ex, schedule, m.key, m.first, m.second))) break;
        for (uint32_t i = uint32_t(common); i < trace.size() && !stop; ++i) {
            fedEvents_.push_back(trace[i]);
            ++fed_;
            stop = feedRaces(detector_, met_, i, errors, ex, schedule);
        }
        // The races of the last event fed were not all met: start afresh should it be called again.
        if (stop) {
            detector_.reset();
            fedEvents_.clear();
            met_.clear();
        }
    }
    return stop || addTerminalErrors(errors, ex, schedule);
}

void RunLog::noteRun(const exec::Executor& ex, report::CheckResult& r) {
    r.stats.instructions += ex.instructions();
    if (ex.sampledNondet()) sampled_ = true;
    if (firstOutput_ && ex.status() == exec::ExecStatus::Finished) {
        r.output = ex.output();
        firstOutput_ = false;
    }
}

bool RunLog::count(const exec::Executor& ex, report::Stats& st) {
    switch (ex.status()) {
    case exec::ExecStatus::Finished:
    case exec::ExecStatus::Error: ++st.executions; return false;
    case exec::ExecStatus::Unsupported: ++st.executions; return true;
    case exec::ExecStatus::Cut:
    case exec::ExecStatus::Running: ++st.blocked; return false; // Running: a deadlock or blocked atomic sections
    case exec::ExecStatus::Bounded:
        ++st.bounded;
        boundsSeen_[ex.boundReason()] = true;
        return false;
    }
    return false;
}

void RunLog::addBoundsTo(report::CheckResult& r) const {
    for (const auto& [why, _] : boundsSeen_) r.bounds.push_back({why});
    if (sampled_) r.bounds.push_back({"nondet values were drawn from a sampled domain (--nondet)"});
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

bool RunClock::afterExecution(report::CheckResult& r, Observer* obs) {
    const report::Stats& st = r.stats;
    bool stop = false;
    if (opts_.maxExecutions && st.executions + st.blocked + st.bounded >= opts_.maxExecutions) {
        r.bounds.push_back({"execution budget of " + std::to_string(opts_.maxExecutions) + " reached (--max-executions)"});
        stop = true;
    } else if (shouldStop()) {
        r.bounds.push_back({opts_.cancelled && opts_.cancelled() ? "cancelled" : "time budget reached (--time-limit)"});
        stop = true;
    }
    if (stop) r.stoppedEarly = true;
    if (obs && progressDue()) {
        r.stats.elapsedMs = elapsedMs();
        obs->onProgress(r.stats);
    }
    return stop;
}

uint64_t currentPeakRssKb() {
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return uint64_t(ru.ru_maxrss);
}

} // namespace skein::explore
