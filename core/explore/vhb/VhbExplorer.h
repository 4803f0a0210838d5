#pragma once
// The vhb explorer's class, shared by its three source files (internal to core/explore/vhb): Vhb.cpp (the
// exploration: visit a node, extend it in either mode, maximal nodes), VhbEvents.cpp (from the executor's events
// to symbolic events, nodes and their candidate extensions) and VhbRaces.cpp (the race search and the final-state
// monitor on maximal nodes). DESIGN.md beside this file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/exec/Executor.h"
#include "core/explore/Explorer.h"
#include "core/explore/RaceDetector.h"
#include "core/explore/vhb/Apo.h"
#include "core/explore/vhb/PaperVhb.h"

namespace skein::explore::vhb::detail {

using exec::ExecStatus;
using model::Event;
using model::EventKind;
using model::ThreadId;

// SKEIN_VHB_TRACE=1 prints the nodes and extensions (a debugging aid, not an interface).
inline const bool kTrace = std::getenv("SKEIN_VHB_TRACE") != nullptr;

inline uint64_t mask(uint64_t v, uint32_t size) { return size >= 8 ? v : v & ((uint64_t(1) << (8 * size)) - 1); }

inline uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// 64-bit hashes with a byte each, by open addressing over a power-of-two table: the explorer's visited nodes and
// decided extensions (hundreds of thousands; std::unordered_map's node per entry and bucket division were ~7 % of
// ticket_lock N=5). Hash 0 is stored as 1 (they are hashes: a collision is already possible).
class HashBytes {
public:
    // The byte of h (inserted as `init` when absent, then second is true). Valid until the next insertion.
    std::pair<uint8_t*, bool> tryEmplace(uint64_t h, uint8_t init) {
        if (h == 0) h = 1;
        if (2 * (size_ + 1) > keys_.size()) grow();
        const size_t m = keys_.size() - 1;
        for (size_t i = (h ^ (h >> 29)) & m;; i = (i + 1) & m) {
            if (keys_[i] == h) return {&vals_[i], false};
            if (keys_[i] == 0) {
                keys_[i] = h;
                vals_[i] = init;
                ++size_;
                return {&vals_[i], true};
            }
        }
    }
    bool insert(uint64_t h) { return tryEmplace(h, 0).second; }
    bool contains(uint64_t h) const {
        if (h == 0) h = 1;
        if (keys_.empty()) return false;
        const size_t m = keys_.size() - 1;
        for (size_t i = (h ^ (h >> 29)) & m;; i = (i + 1) & m) {
            if (keys_[i] == h) return true;
            if (keys_[i] == 0) return false;
        }
    }

private:
    std::vector<uint64_t> keys_;
    std::vector<uint8_t> vals_;
    size_t size_ = 0;
    void grow() {
        std::vector<uint64_t> keys = std::move(keys_);
        std::vector<uint8_t> vals = std::move(vals_);
        keys_.assign(std::max<size_t>(1024, keys.size() * 2), 0);
        vals_.assign(keys_.size(), 0);
        size_ = 0;
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i]) *tryEmplace(keys[i], vals[i]).first = vals[i];
    }
};

// Sorts v by `less` when it is made of a few ascending runs — a multi-word event's words or accesses: a range
// after another, reads then writes — by merging them (linear for the usual two or three; std::sort past 8).
template <class T, class Less>
void sortRuns(std::vector<T>& v, Less less) {
    size_t runs = 0;
    for (size_t i = 1; i < v.size(); ++i) {
        if (!less(v[i], v[i - 1])) continue;
        if (++runs > 8) {
            std::sort(v.begin(), v.end(), less);
            return;
        }
        size_t j = i + 1;
        while (j < v.size() && !less(v[j], v[j - 1])) ++j;
        std::inplace_merge(v.begin(), v.begin() + ptrdiff_t(i), v.begin() + ptrdiff_t(j), less);
        i = j - 1;
    }
}

// A node's events with the decisions that replay them (the choice of each event, per thread).
struct Node {
    Apo apo;
    std::vector<std::vector<uint32_t>> choices;
    // Per thread, its hash (VhbExplorer::threadHash from threadSeed) over its first hashed[t] events, kept by
    // build() across a resumed node's parent and child: the prefix of a resumed node's events and choices is its
    // parent's, so only the new events are hashed (a full pass per node was ~5 % of a run).
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> hashed;
};

class VhbExplorer {
public:
    // spans: explore with critical sections run alone (DESIGN.md "Critical sections run alone"), sound only when
    // the program has no data race — the caller (vhb::explore) runs again without when this finds one.
    VhbExplorer(const program::Program& p, const ExploreOptions& o, Observer* obs, bool spans = false)
        : opts_(o), obs_(obs), spans_(spans), mayCut_(mayCut(p)), clock_(o), errors_(o, obs),
          ex_(std::make_unique<exec::Executor>(p, o.exec)), paper_(o.vhbRoot.value_or(1), paperCounters_) {
        // An error's occurrences are the classes (and blocked runs) that show it, not the search nodes whose
        // witnesses do: counted at maximal() and leaf().
        errors_.deferCounting();
    }
    report::CheckResult run();

private:
    const ExploreOptions& opts_;
    Observer* obs_;
    const bool spans_;
    // Can a thread of the program be cut (an __VERIFIER_assume, an abort, a spin loop)? Then some nodes are leaves
    // (DESIGN.md "Cut threads end a node"), and the first pass extends every thread at every node (spanThread).
    const bool mayCut_;
    static bool mayCut(const program::Program& p);
    // SKEIN_VHB_SPAN_FIRST=0 in the environment: the first pass extends every thread at every node (for A/B
    // measurements and VhbLocksTest: same answers). Read per explorer, so a test can set it between runs.
    const bool spanFirst_ = !(std::getenv("SKEIN_VHB_SPAN_FIRST") && std::string(std::getenv("SKEIN_VHB_SPAN_FIRST")) == "0");
    report::CheckResult result_;
    RunClock clock_;
    ErrorCollector errors_;
    // The executor of the current node. A pointer: a node's children may resume a copy of it (Snapshot).
    std::unique_ptr<exec::Executor> ex_;
    RaceDetector races_;
    // Locations: dense keys for memory words (by address, one access size each), mutexes, condition variables
    // (their waiters, as a bit set) and heap objects (alive or freed).
    enum KeyKind : uint8_t { kMemory, kMutex, kCond, kAlive };
    struct KeyHash {
        size_t operator()(const std::pair<uint8_t, uint64_t>& k) const {
            return std::hash<uint64_t>()(mix(k.second, k.first));
        }
    };
    // (A hash map: every word of a large memset or memcpy is looked up per event built.)
    std::unordered_map<std::pair<uint8_t, uint64_t>, uint32_t, KeyHash> keys_;
    std::vector<uint32_t> keySize_;
    std::vector<uint8_t> keyKind_;
    std::vector<std::optional<uint64_t>> init_;
    std::set<uint32_t> writtenThisRun_;
    std::unordered_set<uint64_t> finals_;
    HashBytes visited_;
    HashBytes attempted_; // extension → realisable (decided once)
    std::set<ErrorKey> racesFound_;
    std::vector<report::Decision> schedule_;
    std::optional<std::string> limit_;
    RunLog runs_;
    bool stop_ = false;
    // Counters (Stats::extra).
    uint64_t extendResults_ = 0, siblingsSkipped_ = 0;
    uint64_t classes_ = 0, nonMaximal_ = 0, closureCalls_ = 0, realizeCalls_ = 0, infeasible_ = 0,
             searchStates_ = 0, revisits_ = 0, orderings_ = 0, monitorStates_ = 0;
    double closureMs_ = 0, realizeMs_ = 0, monitorMs_ = 0, raceMs_ = 0;
    uint64_t realizeInfeasible_ = 0, raceStates_ = 0;
    uint64_t taintSearches_ = 0, taintSearchesGaveUp_ = 0; // findRaces' searches with happens-before tracked
    uint64_t witnessInserted_ = 0; // children whose witness insertInto found (no Closure, no Realize)
    uint64_t visits_ = 0;
    uint64_t quickBottoms_ = 0; // candidates bottomAfter refuted (no Closure built)
    // Multi-word accesses with many combinations of candidate values are enumerated word by word (VhbMulti.cpp),
    // atomic sections with many ways through them event by event: the prefixes Closure refuted there (withEvents,
    // realizable). Below kPlainCombinations every combination / way is tried.
    uint64_t prefixesRefuted_ = 0;
    uint64_t wordSearches_ = 0; // multi-word events whose candidates were searched word by word (over 64)
    static constexpr size_t kPlainCombinations = 64;
    // Cut threads (DESIGN.md "Cut threads end a node"): nodes ended by a thread cut after an event that only
    // observed, those of them known without a visit, and the per-thread hashes (events, values, choices) after
    // which the thread is cut — its local state is a function of them (Remark 1), so the cut is too.
    uint64_t cutLeaves_ = 0, cutPredicted_ = 0;
    HashBytes cutAfter_;
    std::vector<char> plainKey_; // per key: some execution accessed it other than atomically
    uint64_t resumed_ = 0;         // nodes whose state was a snapshot of their parent's, stepped (no replay)
    static constexpr uint32_t kInsertTries = 4;

    // The time budget or cancellation, looked at inside a visit's long loops (a multi-word event's candidates):
    // once true, the visit stops where it is and run() records the bound (RunClock::afterExecution).
    bool outOfTime_ = false;
    bool outOfTime() { return outOfTime_ || (outOfTime_ = clock_.shouldStop()); }
    static constexpr const char* kSyncObjectsLimit = "POSIX semaphores, barriers, reader-writer locks or pthread_once";
    void setLimit(std::string why) {
        if (!limit_) limit_ = std::move(why);
    }
    uint32_t key(uint8_t kind, uint64_t addr, uint32_t size);
    // Multi-location accesses (DESIGN.md): the words an event reads (with the bytes observed) and writes.
    struct WordUse {
        uint64_t word;  // aligned address
        uint64_t mask;  // bits of the word it reads (a partially written word: its other bytes)
    };
    static bool isMulti(const Event& e);
    std::vector<WordUse> readWords(const Event& e) const;
    static std::vector<uint64_t> writtenWords(const Event& e);
    uint64_t peekWord(const exec::Executor& ex, uint64_t word) const;
    // Per event of the executor's trace (index): the values of the words a multi-word event read (before it) and
    // wrote (after it) — the shadow copy of shared memory along the trace; empty for the others.
    struct Shadow {
        std::vector<WordUse> words;          // readWords when it ran (which bytes existed then)
        std::vector<uint64_t> read, written; // in the order of words / writtenWords
    };
    std::vector<Shadow> shadow_;
    // A visited node's state after its replay and WExtend — the executor and the replay's bookkeeping — kept for
    // its children whose witness is the node's followed by their new events (insertInto at the end): they step
    // it instead of replaying from the initial state (PERFORMANCE.md "Where time goes"). Shared by those children;
    // the last one to be visited takes it over instead of copying it.
    // build()'s state after a trace: the node and what it carries along (cond waiters, freed objects).
    struct BuildBase {
        Node node;
        std::map<uint32_t, uint64_t> waiters;
        std::set<uint32_t> freed;
        size_t traceLength = 0;
    };
    std::optional<BuildBase> buildBase_; // a resumed node's parent's (build() carries on from it)
    BuildBase built_;                    // the last build()'s, for snapshot()
    struct Snapshot {
        std::unique_ptr<exec::Executor> ex;
        std::set<uint32_t> writtenThisRun;
        std::vector<std::vector<uint32_t>> sectionOf;
        std::vector<Shadow> shadow;
        size_t steps = 0; // decisions of the schedule it has taken (its node's witness, write-extended)
        size_t traceLength = 0;
        RaceDetector races;             // after the node's trace (collect)
        std::vector<RaceMet> raceKeys; // the races it met there
        BuildBase built;
    };
    // The race detector's state: after the first racesFrom_ events of the trace (0 after a replay; a resumed
    // node's parent's trace), and the race keys met there.
    size_t racesFrom_ = 0;
    std::vector<RaceMet> raceKeys_;
    bool collect();
    // A node's closed order with what it was computed over (events per thread, initial values), for its
    // children's closureExtending (DESIGN.md "Closure from the parent's").
    struct Closed {
        Order q;
        std::vector<uint32_t> len;
        std::vector<uint64_t> init;
    };
    // Closure from the node's (closureAfter) and the parent's (closureExtending); SKEIN_VHB_FULL_CLOSURE=1 closes every candidate from scratch (for
    // A/B measurements: only the cost differs).
    const bool incremental_ = std::getenv("SKEIN_VHB_FULL_CLOSURE") == nullptr;
    struct Work {
        std::vector<report::Decision> schedule;
        std::shared_ptr<const paper::Node> paper; // --vhb-equivalence=paper: the node's two-sided APO and CHB map
        std::shared_ptr<Snapshot> from;           // the parent's state, whose steps are schedule's prefix
        std::shared_ptr<const Closed> closed;     // the parent's closed order
    };
    std::vector<Work> work_;
    std::shared_ptr<const Closed> nodeClosed_; // the visited node's closed order, when extendValues made it
    SymEvent multiEvent(const Event& e, const SymEvent& base, const Shadow& vals);
    // The words a multi-word event may read (with the bytes it reads there) and what each may observe
    // (VhbMulti.cpp, PERFORMANCE.md "Large objects").
    struct WordChoices {
        std::vector<WordUse> words;   // the words with two or more candidate values, by address
        std::vector<uint32_t> keys;   // their keys
        std::vector<uint64_t> single; // the others (one candidate value: the executor's copy holds it), by address
        // Per word i of `words`: its candidate values (on its mask, ascending) vals[valAt[i], valAt[i + 1]); the
        // events that write it, numbered in event order, with the value each leaves there (on the mask):
        // src/wval[wAt[i], wAt[i + 1]); the initial value Closure gives it (on the mask; initKnown 0: any).
        std::vector<uint32_t> valAt, wAt, src;
        std::vector<uint64_t> vals, wval, init;
        std::vector<uint8_t> initKnown;
        std::vector<uint32_t> group; // per word: words written by the same events share a group
        size_t groups = 0;
        // Per writing event (its number): where it is in withEvents' APO (thread, index).
        std::vector<std::pair<uint32_t, uint32_t>> writer;
    };
    // (`more`: thread t's events after the node's, as withEvents appends them.)
    WordChoices wordChoices(const Node& n, ThreadId t, const std::vector<SymEvent>& more,
                            const std::vector<WordUse>& m);
    static void mergeWords(std::vector<WordUse>& ws); // by address, each word once (masks joined)
    std::vector<SymEvent> multiCandidates(const Node& n, ThreadId t, const SymEvent& base, bool forceAlive = false);
    std::vector<std::pair<SymEvent, std::unique_ptr<exec::Executor>>>
    multiCandidatesOn(const exec::Executor& c, const Node& n, ThreadId t, const SymEvent& base,
                      const std::vector<SymEvent>& more, bool forceAlive = false);
    // The node with evs appended to thread t (not finished, its section closed after them), with the initial
    // values of keys met since the node was built: the APO of a relaxation of every extension evs begins.
    Apo withEvents(const Node& n, ThreadId t, const std::vector<SymEvent>& evs) const;
    // Some linearisation of a respects its values: Closure, then Realize within a budget (past it: true). The
    // linearisation found goes to `witness` (left empty past the budget).
    bool realizable(const Apo& a, Linearisation* witness = nullptr);
    void learnInit(ThreadId t, bool stepping = true);
    bool replay(const std::vector<report::Decision>& schedule);
    bool resume(Work& w); // w.from's state, then the rest of w.schedule
    void snapshot(Snapshot& s, const Node& node); // the current node's state, moved into s
    std::unique_ptr<exec::Executor> spare_;        // an executor not in use (resume, snapshot)
    void writeExtend();
    std::optional<SymEvent> symbolic(const Event& e);
    void condValues(SymEvent& s, ThreadId t, uint64_t waiters, ThreadId woken) const;
    // DESIGN.md "free()": the access observing that the object of alive key `alive` (default: its acc2's) is freed.
    static SymEvent useAfterFree(const SymEvent& access, uint32_t alive = kNoKey);
    static SymEvent doubleFree(uint32_t alive); // a free observing its object (alive key `alive`) freed already
    // A copy's source object, when it is a heap object other than the one at its address: its alive key.
    std::optional<uint32_t> sourceAliveKey(const Event& e);
    void addGuard(SymEvent& s, const std::vector<SymEvent>& before, ThreadId t) const;
    Node build();
    static uint64_t hashOf(const Node& n);
    // Thread t's hash from threadSeed(t) over all its events (from n.hashes when build() made them).
    static uint64_t nodeThreadHash(const Node& n, ThreadId t);
    static void rehash(Node& n); // n.hashes over every event that has its choice
    // t's events from `from` on, mixed into h.
    static uint64_t threadHash(const Node& n, ThreadId t, uint64_t h = 1469598103934665603ull, size_t from = 0);
    static uint64_t eventHash(uint64_t h, const SymEvent& e, uint32_t choice);
    static uint64_t threadSeed(ThreadId t) { return mix(1469598103934665603ull, 0xfeed0000 + t); }
    struct Probe {
        uint64_t wval = 0;
        bool wrote = false, valid = false; // valid: the executor could take the event with that value
    };
    std::unordered_map<uint64_t, Probe> probes_; // a read-modify-write's written value per thread state and value
    // One extension of a node by thread t: its next event, or a whole atomic section (DESIGN.md).
    struct Ext {
        std::vector<SymEvent> evs;
        std::vector<uint32_t> choices;
        bool open = false; // ends inside its atomic section (it blocked there)
    };
    std::vector<Ext> candidates(const Node& n, ThreadId t);
    std::vector<Ext> sectionCandidates(const Node& n, ThreadId t);
    std::set<uint64_t> valuesOf(const Node& n, uint32_t key, const std::vector<SymEvent>& more) const;
    void stepExec(ThreadId t, uint32_t choice);
    std::vector<std::vector<uint32_t>> sectionOf_; // per thread, per event of the executor's trace: its section
    void visit(Work& w);
    // The two modes' extensions of a visited node (the witness replayed and write-extended, `node` built): the
    // values mode's (below) and the paper's (PaperVhb). Each pushes its children onto work_ and returns how many
    // children and how many classes (maximal traces) the node stands for.
    struct Extended {
        size_t children = 0;
        uint64_t classes = 0;
    };
    Extended extendValues(const Work& w, const Node& node);
    // The threads of the node cut after an event that only observed (its last: a read, a failed trylock or
    // compare-exchange, a nondet choice), whose node is therefore a leaf.
    std::vector<ThreadId> cutThreads(const Node& node) const;
    bool isPlain(const Event& e) const;
    // Thread t inside a span (it locked a mutex, every event of t since is plain): whether one of those events
    // accessed the word of its pending plain read; nothing when t is not in a span or its pending event is not one.
    std::optional<bool> spanRead(ThreadId t) const;
    bool decidedRead(ThreadId t) const;
    // The first pass: the thread whose pending event is a span's read of a word the span has not accessed, the only
    // thread a node then extends (DESIGN.md "Critical sections run alone"); kNoThread when there is none.
    ThreadId spanThread() const;
    void leaf(const Work& w, const Node& node, const std::vector<ThreadId>& cut);
    // Could the last event of thread t race with a write of another thread in a? (Conservative.)
    bool racePartner(const Apo& a, ThreadId t, bool atomic) const;
    bool mayRace(const Node& n) const;
    Extended extendPaper(const Work& w, const Node& node);
    void maximal(const Node& node, ExecStatus status, uint64_t classes);
    paper::Counters paperCounters_;
    paper::Explorer paper_;
    std::unordered_set<uint64_t> maximalSeen_; // paper: value classes whose monitor and races already ran
    // Both take the node's closed order (with computeRequired done): every linearisation respecting the values
    // respects it.
    void findRaces(const Node& n, const Order& closed);
    // Closure (from the parent's closed order when given: closureAfter; the child adds one event to thread t),
    // then Realize: the child's witness schedule, or nothing when it is not realisable.
    // Closure of a (closureAfter from `parent` when given: a's new event is thread t's last), then Realize within
    // `limits`; `bottom` says Closure answered ⊥ (no search made). Counted in the closure/realize statistics.
    std::optional<Linearisation> closeAndRealize(const Apo& a, const Order* parent, ThreadId t, SearchLimits& limits,
                                                 bool& bottom);
    std::optional<std::vector<report::Decision>> realizeChild(const Node& child, const Order* parent = nullptr,
                                                              ThreadId t = 0);
    std::vector<report::Decision> toSchedule(const Node& n, const Linearisation& lin) const;
    void monitorFinalStates(const Node& n, const Order& closed);
    // The complete linearisations' distinct final memories, one linearisation each (the monitor's search).
    std::map<uint64_t, Linearisation> finalMemories(const Node& n, const Order& closed);
    // A maximal node whose run cut a thread at a spin loop: the deadlock check (terminalErrors) on a run of each
    // other final memory of the class — whether the thread would spin for good depends on which write came last.
    void spinDeadlocks(const Node& n, const Order& closed);
    bool maySpinForever() const;
    void finishStats();
};

} // namespace skein::explore::vhb::detail
