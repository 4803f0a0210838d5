#pragma once
// What every explorer shares: options, the streaming observer, the registry by name, and the ErrorCollector
// that turns a failing execution into a deduplicated counterexample. Explorers see the executor only through
// core/exec/Executor.h and never include LLVM (CMake: skein_explore links no LLVM).
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/Executor.h"
#include "core/explore/RaceDetector.h"
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
    // qpor: U is pruned to Q_{C,D} once it has grown past this many events (then past twice its size after the
    // last pruning). 0 prunes at every return of Explore: the tests use it to check that pruning loses nothing.
    size_t qporPruneThreshold = 4096;
    // qpor: a memory resource per segment of an object over 16 words (the default), or per word everywhere
    // (`--qpor-resources=words`: the per-word structures, for comparison and to keep that path tested).
    bool qporSegments = true;
    // qpor, for tests: check the explorer's fast paths against the slower rules they restate wherever they decide
    // (QporExplorer::treeMaxIn against EventStructure::treeMaxOf, onlyItsOwnPlacement against earlierPlacements'
    // walk), counted in algorithm_counters (cross_checks_tree_max, cross_checks_own_placement, cross_check_failures).
    // Slower; off by default.
    bool qporCrossCheck = false;
    // vhb: enumerate the distinct final memories of each class (the final-state monitor, core/explore/vhb/DESIGN.md).
    // Off: one final state per class (faster; the final-state count is then a lower bound).
    bool vhbFinalStates = true;
    // vhb: which equivalence it explores. false ("values", the default): events + value function only (DESIGN.md).
    // true ("paper"): the paper's VHB (Sec. 3) — value and side functions, causally-happens-before on reads and
    // happens-before on the leaf threads — with the paper's two-sided Closure/Realize (PaperApo, PaperVhb).
    bool vhbPaper = false;
    // vhb paper: the root thread p1 (Skein's canonical thread id; main is 0). Unset: the first thread main
    // spawns (Sec. 6 item 2), which is thread 1.
    std::optional<uint32_t> vhbRoot;
    // false: an explorer may leave what it built (qpor's event structure: millions of small objects) allocated
    // when it returns, because the process is about to exit — the CLI's `skein check` — as Clang's -disable-free
    // does; freeing them one by one was 6 % of a large qpor run. A long-lived caller (the language server) keeps
    // the default.
    bool freeAtEnd = true;
    // Polled between executions (qpor: also every 256 steps of its loop, so within a configuration and between
    // sleep-set blocked paths): true = stop now (the result is bounded). check()/exploreProgram() also hand it
    // to the interpreter (exec.cancelled), which polls it every 64K instructions inside an execution.
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
    // The errors met from here on are those of another execution (collectErrors and the like call it first): an
    // error counts one occurrence per execution, however many threads or events of that execution meet it.
    void newExecution() {
        ++execution_;
        seen_.clear();
    }
    // For an explorer whose runs are not each an execution (vhb visits the nodes of its search, and a maximal node
    // stands for its class): the errors met since newExecution() count only when countSeen(n) says the run stands
    // for n explored executions (or runs that ended blocked) — n occurrences each.
    void deferCounting() { defer_ = true; }
    void countSeen(uint64_t times);
    // The errors found stay, but their occurrences count again from none: the exploration starts over (qpor's
    // next attempt), and meets them anew. One it does not meet again (a budget stopped it) keeps one occurrence.
    void startOver();
    struct CountSeenOnExit { // countSeen(times) at the end of a scope whatever way it is left
        ErrorCollector& errors;
        uint64_t times;
        ~CountSeenOnExit() { errors.countSeen(times); }
    };
    // True (and counts the execution as an occurrence, once) when the error is already known.
    bool known(const ErrorKey& key);
    bool has(const ErrorKey& key) const { return index_.count(key) != 0; } // known, without counting
    // Records a new error of the execution the executor just ran (`schedule` replays it). Returns true when the
    // exploration should stop (first error with --stop-on-first, or the error limit).
    // `cut` says where the counterexample ends in the executor's trace (see TraceBuilder.h).
    bool add(const ErrorKey& key, report::ErrorReport base, const exec::Executor& ex,
             const std::vector<report::Decision>& schedule, const struct CounterexampleCut& cut);
    std::vector<report::ErrorReport> take();
    size_t size() const { return errors_.size(); }
    bool limitReached() const { return limitReached_; }

private:
    const ExploreOptions& opts_;
    Observer* observer_;
    std::vector<report::ErrorReport> errors_;
    std::map<ErrorKey, size_t> index_;
    std::vector<uint64_t> lastSeen_; // per error: the execution it was last counted in
    std::vector<size_t> seen_;       // deferred counting: the errors met since newExecution(), not yet counted
    std::vector<uint64_t> counted_;  // ... and per error, the occurrences countSeen gave it (take() reports them)
    uint64_t execution_ = 0;
    bool limitReached_ = false, defer_ = false;
};

// Where a counterexample ends: the first `length` events of the executor's trace, then the failing operation
// (`error`), or the racing pair marked.
struct CounterexampleCut {
    size_t length = SIZE_MAX;
    const exec::ExecError* error = nullptr;
    int raceFirst = -1, raceSecond = -1;
};

struct FoundError {
    ErrorKey key;
    report::ErrorReport report; // without trace: ErrorCollector::add builds it
    CounterexampleCut cut;
};
// The errors an execution ended with (assertions, memory errors, ... one per thread that hit one), or a
// deadlock when no thread is enabled and the live ones all wait; shared by the explorers.
std::vector<FoundError> terminalErrors(const exec::Executor& ex);
// How a thread that spins for good is described in a deadlock report, from the last event of the iteration it
// keeps repeating (Executor::spinsForever).
std::string spinDescription(const exec::Executor& ex, const model::Event& last);
// A data race between events `first` and `second` of the executor's trace.
FoundError raceError(const exec::Executor& ex, uint32_t first, uint32_t second);
// A distinct race of an execution, as the explorers meet it: the trace index of the event that met it, its key and
// the racing pair.
struct RaceMet {
    uint32_t at;
    ErrorKey key;
    uint32_t first, second;
};
// The one per-event step of race collection, shared by collectErrors, IncrementalRaces and vhb (which resumes a
// detector copied from its parent node): feeds trace event i to the detector and notes every race it meets there
// that `met` (the execution's races so far) lacks — a race counts once per execution, however often it recurs in
// it, and all of an event's races are looked at, since one can hide another (RaceDetector.cpp). Returns true when
// the exploration should stop.
bool feedRaces(RaceDetector& detector, std::vector<RaceMet>& met, uint32_t i, ErrorCollector& errors,
               const exec::Executor& ex, const std::vector<report::Decision>& schedule);
// Records the execution's terminal errors (terminalErrors). Returns true when the exploration should stop.
bool addTerminalErrors(ErrorCollector& errors, const exec::Executor& ex, const std::vector<report::Decision>& schedule);
// Records every terminal error and data race of the execution the executor just ran. Returns true when the
// exploration should stop.
bool collectErrors(ErrorCollector& errors, RaceDetector* races, const exec::Executor& ex,
                   const std::vector<report::Decision>& schedule);

// collectErrors for an explorer whose consecutive executions share a prefix (qpor: a maximal configuration and
// the next one share the events below the node the exploration went back to). The detector is rolled back to the
// longest common prefix of this execution's trace and the last one's, and fed the rest, instead of being fed the
// whole trace from a reset: equal event sequences leave equal detector states. The same errors, occurrence counts
// and counterexamples as collectErrors (the races met in the prefix are counted again, in the order met).
class IncrementalRaces {
public:
    IncrementalRaces() {
        detector_.keepUndo(true);
        detector_.reserve(64, 128);
        fedEvents_.reserve(64);
    }
    // As collectErrors(errors, detect ? detector : nullptr, ex, schedule).
    bool collect(ErrorCollector& errors, bool detect, const exec::Executor& ex,
                 const std::vector<report::Decision>& schedule);
    // Trace events the detector was fed (not taken from the shared prefix), for the explorer's counters.
    uint64_t eventsFed() const { return fed_; }
    uint64_t eventsReused() const { return reused_; }


private:
    RaceDetector detector_;
    std::vector<model::Event> fedEvents_; // what the detector was fed: the last trace, as far as it went
    std::vector<RaceMet> met_;
    uint64_t fed_ = 0, reused_ = 0;
};

// What every explorer keeps from the executions it runs as far as they go, besides their errors: instructions,
// the output of the first complete execution, whether nondet values were sampled, which bounds were hit — and
// how each one ended.
class RunLog {
public:
    // After an execution has gone as far as it can: its instructions, sampled nondet values, first output.
    void noteRun(const exec::Executor& ex, report::CheckResult& r);
    // Counts it by how it ended: executions (complete or stopped at an error), blocked (a deadlock, a cut, a
    // blocked atomic section) or bounded. True when the exploration must stop: the program reached a construct
    // Skein does not model.
    bool count(const exec::Executor& ex, report::Stats& st);
    // Nondet values drawn past an execution's end (qpor's blockedSectionFinals goes on into a section on its own).
    void noteSampled(const exec::Executor& ex) { sampled_ = sampled_ || ex.sampledNondet(); }
    // A bound of the explorer's own (reported once, like the executor's).
    void addBound(const std::string& why) { boundsSeen_[why] = true; }
    // At the end: the bounds hit and the sampled nondet domain, into the result.
    void addBoundsTo(report::CheckResult& r) const;

private:
    std::map<std::string, bool> boundsSeen_;
    bool sampled_ = false, firstOutput_ = true;
};

// Budget/cancellation/progress bookkeeping shared by the explorers' main loops.
class RunClock {
public:
    explicit RunClock(const ExploreOptions& o) : RunClock(o, std::chrono::steady_clock::now()) {}
    // From `start`: an exploration that started over (qpor after a restart) keeps its first start, so that its time
    // and its budget cover every attempt.
    RunClock(const ExploreOptions& o, std::chrono::steady_clock::time_point start) : opts_(o), start_(start) {}
    double elapsedMs() const;
    // True when the time budget is spent or the caller cancelled.
    bool shouldStop();
    bool progressDue(); // about every 200 ms
    // After each execution: applies the execution and time budgets and cancellation (recording why in `r`, which
    // is then bounded) and streams progress to `obs`. Returns true when the exploration must stop.
    bool afterExecution(report::CheckResult& r, Observer* obs);

private:
    const ExploreOptions& opts_;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point lastProgress_ = start_;
};

uint64_t currentPeakRssKb();

} // namespace skein::explore
