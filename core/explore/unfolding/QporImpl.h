#pragma once
// Internal to the qpor explorer: Qpor.cpp (Alg. 1 driver), Extensions.cpp (ex(C): en(C), blocked threads),
// Placements.cpp (cex(C): actions placed at earlier histories), Alternatives.cpp (Alt via the comb).
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <span>
#include <unordered_set>

#include "core/explore/RaceDetector.h"
#include "core/explore/unfolding/EventStructure.h"
#include "core/explore/unfolding/PhaseClock.h"
#include "core/explore/unfolding/Qpor.h"
#include "core/explore/unfolding/Segments.h"
#include "core/explore/unfolding/SmallVector.h"

namespace skein::explore::unfolding {

// A node's en(C) (a few events: at most one per thread, and its placements of blocked actions) and the steps
// taken at once after an event (autoSteps).
using EnabledList = SmallVector<UEvent*, 4>;
using StepList = SmallVector<ThreadId, 4>;
// A spike of the comb (Def. 6): the events in immediate conflict with one event of D, mostly a few.
using Spike = SmallVector<UEvent*, 4>;
// An event per thread (its create, the signal that woke it): a few threads, in place.
using ThreadEvents = SmallVector<UEvent*, 8>;

// Appends x to v unless it is null or there already (the ends of threads' histories: a handful of events).
inline void addOnce(std::vector<UEvent*>& v, UEvent* x) {
    if (x && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// Reads of a word grouped by thread (each group in program order), and the choices of a prefix of every group:
// which of them a write placed after the word's current value lets precede it. Buffers are kept: this runs for
// every executed event (earlierPlacements, makeEvent).
class ReaderGroups {
public:
    void clear();
    void add(UEvent* r);
    bool contains(const UEvent* r) const { return std::find(evs_.begin(), evs_.end(), r) != evs_.end(); }
    void group(); // after the adds: sorts by thread
    // The reads of `word` in F that read `w`, by threads other than `self`.
    // `skip`: reads not to list (a read after the event whose siblings are placed: siblingsAfterNewAccess).
    template <class Skip> void readersOf(const Frontier& F, const Resource& word, const UEvent* w, ThreadId self, Skip skip);
    bool empty() const { return evs_.empty(); }
    // The first read of group g after a prefix of length len (none when the prefix is the whole group).
    UEvent* after(size_t g, uint32_t len) const { return len < groupSize(g) ? evs_[bounds_[g] + len] : nullptr; }
    size_t groups() const { return bounds_.size() - 1; }
    size_t groupSize(size_t g) const { return bounds_[g + 1] - bounds_[g]; }
    // Every choice of a prefix of each group, the empty choice first: f(last read of each non-empty chosen prefix,
    // chosen length per group) → false to stop. Each choice is a distinct history, so none may be skipped (it was
    // cut at 64 choices: lockcnt, lastwriter, onebad, peterson gave the same events without the cut, but a placement
    // past it would never have been made).
    template <class F> void forEachPrefix(F f) {
        len_.assign(groups(), 0);
        for (;;) {
            chosen_.clear();
            for (size_t g = 0; g < groups(); ++g)
                if (len_[g]) chosen_.push_back(evs_[bounds_[g] + len_[g] - 1]);
            if (!f(std::span<UEvent* const>(chosen_), std::span<const uint32_t>(len_))) return;
            size_t g = 0;
            while (g < groups() && len_[g] == groupSize(g)) len_[g++] = 0;
            if (g == groups()) return;
            len_[g]++;
        }
    }

private:
    std::vector<UEvent*> evs_, chosen_;
    std::vector<uint32_t> bounds_{0}, len_;
};

class QporExplorer {
public:
    // What is known of each atomic section start (by source location; Sections.cpp); it outlives one run.
    struct SectionSite {
        std::vector<Access> footprint; // the union of the accesses of its runs seen so far
        bool severalRuns = false;      // some start had several runs (nondet values inside)
        bool mayBlock = false;         // some start had a run that blocks midway (an assume or a wait inside)
        // Some run ended holding a mutex it locked (mutexFreeAfter: otherwise the section leaves every mutex it
        // takes free, whatever its first action — a lock — says).
        bool holdsMutex = false;
        // Its runs differ: in what they touch (`if (x == 0) x = 1;`, a compare-exchange that fails in some runs,
        // `if (c) x = 1; else y = 1;`, a run that blocks midway) or in number (a nondet value inside; Sections.cpp
        // observeSite). Each event has exactly its own run's accesses (runAccessesOf). Where the runs vary by history
        // (variesByHistory), the accesses are a function of the history's parents as a compare-exchange's outcome
        // is: every placement is made by replay (runSpecAt), the footprint only enumerates the candidate histories,
        // and the events of C beside an event that leave its siblings other words to read or write have those
        // siblings placed after them (siblingsAfterNewAccess).
        bool runAccesses = false;
        // Some run read memory or tried a lock. A site whose runs differ but never read (a section in a loop writing
        // x[i]) has one run wherever its thread is at the same point: its events are plain events with their own
        // accesses, placed without replay and with no siblings to look for (`variesByHistory`).
        bool runsRead = false;
        bool variesByHistory() const { return severalRuns || (runAccesses && runsRead); }
        // Some run blocked midway waiting for another thread (a lock held, a join, a semaphore) rather than stopping
        // at an assume: whether it runs then depends on more than its footprint, so its events are never taken over
        // from the parent configuration (reusableSectionEvents).
        bool waitsOnThreads = false;
        // Every run seen stored and did nothing else (no read, lock, join or nondet value): its thread learns nothing
        // from it, so the thread's state after it is fixed by its position (probeKey).
        bool onlyStores = true;
        bool used = false;             // events were made with what is known
        bool lookedAhead = false;      // lookAheadOfSite ran for it (once per explore(): sites outlive attempts)
    };
    using Sections = std::map<uint32_t, SectionSite>;
    // What outlives one attempt (explore() starts over when a section or a segment learned more): defined below.
    struct Carried;
    // `carried`: what the attempts before this one learned and built (sections, segments, errors, executors).
    // `start`: when the first attempt began (explore() starts over after a restart; time and budget cover all).
    // `attemptStart`: when this attempt began — the time before it went to attempts that were started over.
    // `sectionRestarts`: how many attempts before this one a section's footprint ended (for the counters).
    QporExplorer(const program::Program& p, const ExploreOptions& o, Observer* obs, int altK, Carried& carried,
                 std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point attemptStart,
                 int sectionRestarts = 0);
    // The errors are left in the Carried collector when the attempt is to be started over (footprintGrew()):
    // explore() takes them from there if it keeps the attempt after all.
    report::CheckResult run();
    // What is known of a section changed after events were made with it, or an access cut a segment already used
    // (Segments.h): run() stopped; start over.
    bool footprintGrew() const { return footprintGrew_; }
    // The counters of an attempt that stopped with footprintGrew() and is kept after all (run() leaves them out).
    void addCounters(report::CheckResult& r) const { reportCounters(r.stats); }
    ~QporExplorer() {
        if (!opts_.freeAtEnd && !footprintGrew_) es_.abandon(); // a restarted run is freed: the process goes on
    }

private:
    // A node of the iterative Alg. 1: the calls Explore(C_d, D ∪ {e_1..e_i}, A) made at one configuration.
    struct Node {
        UEvent* e = nullptr;            // the event being explored from this node (C_{d+1} = C_d ∪ {e})
        SmallVector<UEvent*, 2> A;      // the clue still to follow
        SmallVector<UEvent*, 2> Dlocal; // events added to D at this node
        bool choose = true;
        report::Decision decision;      // executor decision that executes e (replay)
        std::vector<uint32_t> inner;    // an atomic section: the outcomes of its further steps (thread decision.thread)
        EnabledList en;                 // en(C_d) as last computed here (reused by the child: enabledEvents)
        bool enKnown = false;           // en holds en(C_d), to be reused when this node chooses again (after Alt)
        // en(C_d) has an atomic section's events, made with what its site knew at this sectionsVersion_: reused
        // only while the sites know the same (enabledEvents).
        bool enSections = false;
        uint64_t enSectionsVersion = 0;
        uint64_t enEpoch = 0; // pruneEpoch_ when en's events (and the placements made with them) were last put in U
        // The outcome of e's action that nextOutcome took as the node's last alternative, where its scan of the
        // thread's successors stopped, how much of Dlocal it found satisfied, and in which pruning epoch.
        UEvent* outcomeNext = nullptr;
        size_t outcomeCursor = 0, outcomeVerified = 0;
        uint64_t outcomeEpoch = 0;
        StepList autoSteps;             // joins, exits, creates taken after e, each by its thread (autoSteps)
        void reset() { // as a new node, keeping the vectors' capacity
            e = nullptr;
            A.clear();
            Dlocal.clear();
            choose = true;
            decision = {};
            inner.clear();
            en.clear();
            enKnown = false;
            enSections = false;
            outcomeNext = nullptr;
            autoSteps.clear();
        }
    };
    // The DFS stack. A popped node keeps its vectors' buffers for the next node pushed at its depth: a node is
    // pushed and popped per explored event, and their allocations were ~4 % of a small program's exploration.
    class NodeStack {
    public:
        size_t size() const { return size_; }
        bool empty() const { return size_ == 0; }
        Node& operator[](size_t i) { return nodes_[i]; }
        const Node& operator[](size_t i) const { return nodes_[i]; }
        Node& back() { return nodes_[size_ - 1]; }
        const Node& back() const { return nodes_[size_ - 1]; }
        Node& push() { // invalidates references to the nodes
            if (size_ == nodes_.size()) nodes_.emplace_back();
            Node& n = nodes_[size_++];
            n.reset();
            return n;
        }
        void pop() {
            const Node& n = back();
            if (!n.Dlocal.empty()) {
                dSize_ -= n.Dlocal.size();
                dNodes_.pop_back();
            }
            --size_;
        }
        void reserve(size_t n) { nodes_.reserve(n); }
        std::span<const Node> live() const { return {nodes_.data(), size_}; }
        // D (Alg. 1) is the union of the nodes' Dlocal. Its size and the nodes that hold some of it are kept as it
        // changes, so that alternative() visits those nodes only: a walk over every node per call was quadratic in
        // the depth (a thread writing 4,000 words: a fifth of the run).
        void addToD(UEvent* e) { // to the top node's
            Node& n = back();
            if (n.Dlocal.empty()) dNodes_.push_back(uint32_t(size_ - 1));
            n.Dlocal.push_back(e);
            ++dSize_;
        }
        size_t dSize() const { return dSize_; }
        std::span<const uint32_t> dNodes() const { return dNodes_; } // ascending depths

    private:
        std::vector<Node> nodes_;
        size_t size_ = 0;
        size_t dSize_ = 0;
        std::vector<uint32_t> dNodes_;
    };

    // An executor state and the explorer's per-thread bookkeeping at it (snapshots_, the root's state).
    struct Snapshot {
        std::unique_ptr<exec::Executor> ex;
        ThreadEvents createOf, wakers;
        std::vector<std::vector<UEvent*>> joinedSince;
        bool valid = false;
    };
    // What explore()'s attempts share. What the sites and segments learned is why an attempt is started over. The
    // errors found are each a real execution's (the executor's, whatever the unfolding knew), so they stay found: the
    // next attempt meets them again without building their counterexamples anew (about 10,000 instructions each on a
    // small racy program: bench/README.md, thirty-ninth session) and without streaming them to the observer twice.
    // The executors keep their buffers (and one lineage of thread ids: the probes', the scratch executor's and the
    // root state's ids are the main executor's); the root state holds no event.
public:
    struct Carried {
        Carried(const program::Program& p, const ExploreOptions& o, Observer* obs)
            : segments(o.qporSegments), errors(o, obs), ex(p, o.exec) {}
        Sections sections;
        Segments segments;
        ErrorCollector errors;
        exec::Executor ex;
        bool exUsed = false; // an attempt ran ex from its initial state (the next one resets it)
        std::vector<std::unique_ptr<exec::Executor>> probes;
        std::unique_ptr<exec::Executor> scratch, replayRoot;
        Snapshot root;
        StepList rootSteps;
        bool rootStepsRun = false;
    };

private:
    const program::Program& prog_;
    const ExploreOptions& opts_;
    Observer* obs_;
    int altK_; // -1 sdpor, 0 optimal, k
    // First, so that the timed exploration includes setting up the executor and U, as dfs's does.
    RunClock clock_;
    Carried& carried_;
    exec::Executor& ex_; // carried_.ex
    EventStructure es_;
    Frontier F_;
    NodeStack stack_;
    ErrorCollector& errors_; // carried_.errors
    IncrementalRaces races_; // rolled back to the prefix shared with the last maximal configuration
    report::CheckResult result_;
    RunLog runs_;
    bool stop_ = false;
    Sections* sections_; // carried_.sections
    Segments* segments_; // carried_.segments
    mutable bool footprintGrew_ = false; // also set by accessesInto (a segment cut)
    int restarts_ = 0;
    double restartedMs_ = 0; // the attempts before this one (started over: a section learned more, a segment was cut)
    bool sectionsWidened_ = false; // some section event touches more than its run did (a coarser independence)
    // Some compare-exchange was taken as a write because its history does not tell the value it reads (a copy's
    // bytes, a realloc's; casFailsAfter): a coarser independence too, where it fails there.
    mutable bool casUnknown_ = false;
    std::optional<std::string> unsupported_;
    static constexpr const char* kTwoJoiners = "two threads join the same thread, and qpor does not order joins";
    static constexpr const char* kBarrierRoundsVary =
        "a barrier met by more threads than its size, or by a thread that skipped a round: qpor takes an arrival's "
        "round from its own thread's arrivals";
    static constexpr const char* kSyncInitLate =
        "a semaphore, reader-writer lock or barrier initialised after the first thread was created: qpor derives its "
        "state at a history from an initialisation that every history holds";
    static constexpr const char* kSyncDestroyLate =
        "a semaphore, reader-writer lock or barrier destroyed while threads that may use it run: qpor derives its "
        "state at a history from its initialisation and operations";
    static constexpr const char* kSyncWritten =
        "a semaphore, reader-writer lock or barrier whose bytes a plain access or an atomic section changed: qpor "
        "derives its state from its own operations";
    std::unordered_set<uint64_t> finals_; // distinct final states of complete executions
    std::vector<report::Decision> schedule_; // recordMaximal's: the executor decisions of C

    // Per execution (rebuilt by every replay): create events, wakers. Thread ids are the executor's, which are
    // canonical (the same logical thread has the same id in every execution).
    size_t exDepth_ = 0;          // events the executor has executed since its reset
    static constexpr size_t kNoDepth = SIZE_MAX; // ex_ is at no prefix of the stack (blockedSectionFinals)
    ThreadEvents createOf_;       // thread → its create event
    ThreadEvents wakers_;         // thread → the signal/broadcast that woke it (for the re-acquire)
    // Joins are not events of the unfolding (autoSteps): thread → the last events of the threads it joined since its
    // last event, which are causes of its next event.
    std::vector<std::vector<UEvent*>> joinedSince_;
    void autoSteps(StepList& steps, UEvent* after);
    void autoStep(ThreadId t, UEvent* after);
    StepList& rootSteps_ = carried_.rootSteps; // the auto steps at the root (autoSteps), before the first node's event
    void noteJoin(ThreadId t, ThreadId joined);
    // Appends to `out` (no duplicates) the maximal events of thread c's history as it is now: its last event (its
    // create's place when it has none) and the joins it took since — what a join of c follows.
    void historyEndOf(ThreadId c, std::vector<UEvent*>& out) const;
    // Snapshots of the executor at depths kSnapshotEvery, 2·kSnapshotEvery, … of the current stack, so that going
    // back to a shorter C replays fewer than kSnapshotEvery events instead of the whole prefix (replaying was a sixth
    // of a run on lastwriter, thread creation included). Slot i holds depth (i + 1)·kSnapshotEvery and is valid
    // while the nodes below that depth keep their events: popNode() invalidates the slots at or above the new top.
    // At most kMaxSnapshots, each a copy of the executor (its trace included), and together at most
    // kSnapshotBytes (a program with a large array gets fewer), so memory stays bounded on long executions; deeper
    // prefixes replay from the last slot.
    // None is taken before the exploration has replayed kReplayedBeforeSnapshots steps: a snapshot is a copy of the
    // executor, and an exploration that backtracks little never restores the ones it took (double_checked_init:
    // 6 taken, none restored, 15 steps replayed; waiting saves 2.5 % of its instructions, costs lockcnt 0.4 %).
    static constexpr size_t kSnapshotEvery = 8, kMaxSnapshots = 64, kSnapshotBytes = size_t(64) << 20,
                            kReplayedBeforeSnapshots = 64;
    std::vector<Snapshot> snapshots_;
    // The state after the root's auto steps, when there are any (main's first creates): a reset then copies it
    // instead of running main to them again and creating each thread (lastwriter: six creates per replay). Taken
    // at the second reset, not the first: an exploration of one execution never restores it, and the copy was 2 %
    // of semaphore_buffer's (bench/README.md, thirtieth session).
    Snapshot& rootSnapshot_ = carried_.root; // (it holds no event: the root has none)
    bool& rootStepsRun_ = carried_.rootStepsRun; // a reset ran the root's auto steps already
    uint64_t placementsReused_ = 0; // executed events whose earlier placements were already in U (UEvent::placed)
    uint64_t snapshotsTaken_ = 0, snapshotsRestored_ = 0, replayedSteps_ = 0;
    void maybeSnapshot();

    // blockedPlacements' walk of the mutex tree, per blocked thread: the history it was made for and the tree
    // maximum it started from. (For a semaphore, lock or barrier word — blockedSyncPlacements — also the word's reads
    // in C, which its placements choose from and count.)
    struct BlockedWalk {
        bool valid = false;
        UEvent* pt = nullptr;
        std::vector<UEvent*> causes;
        uint64_t mutex = 0;
        UEvent* top = nullptr;
        Resource word;               // blockedSyncPlacements: the object's word (its resource: a segment, perhaps)
        std::vector<UEvent*> reads;  // ... and its reads in C
    };
    std::vector<BlockedWalk> blockedWalks_;
    // Atomic sections: bumped whenever a site learns something (observeSite), which changes the events made for it
    // from then on; what was made at an older version is made again (enabledEvents, sectionPlacements).
    uint64_t sectionsVersion_ = 0;
    uint64_t pruneEpoch_ = 0; // prunings that dropped events (and so unlinked some: Node::outcomeCursor)
    uint64_t sectionRuns_ = 0; // runs of atomic sections executed to learn their events (sectionRunsAt)
    // The histories where a section's placements were made (sectionPlacements), each by its key — the thread, the
    // site, pt, the causes, the accesses and the history's events, events by id — while
    // U keeps what they added and the sites know the same: the runs of one section at one history are siblings that
    // share their placements, which each of them made again — every run of the section each time, quadratic in
    // its runs (a section drawing 8 nondet bits: 256 runs, 512 executions, 0.5 s where dfs takes 24 ms).
    struct KeyHash {
        size_t operator()(const std::vector<uint64_t>& k) const { return size_t(EventIndex::fingerprint(k).hash); }
    };
    std::unordered_set<std::vector<uint64_t>, KeyHash> sectionPlacementsMade_;
    uint64_t sectionPlacementsVersion_ = 0; // sectionsVersion_ when they were made
    std::vector<uint64_t> sectionKeyScratch_;
    std::vector<ThreadId> blockedScratch_; // enabledEvents: the threads blocked on a mutex at C

    // Statistics.
    uint64_t enLookups_ = 0, enReused_ = 0, altQuickFailures_ = 0;
    uint64_t alternatives_ = 0, altFailures_ = 0, combSpikeEvents_ = 0, peakU_ = 0, cexEvents_ = 0;
    PhaseClock phase_;
    size_t pruneThreshold_;
    uint64_t stamp_ = 0; // visit marks (UEvent::stamp)

    // Qpor.cpp
    void resetExecution(bool executorFresh = false);
    void ensureExecutorAt(size_t depth);
    void execute(UEvent* e, Node& n);
    void noteCreate(const model::Event& ev, UEvent* e);
    void popNode();
    void recordMaximal();
    void reportCounters(report::Stats& st) const; // U's and the phases' counters into st.extra
    void prune();
    bool nextOutcome(); // Alternatives.cpp: into altJ_
    void keepHistories(std::vector<UEvent*>& drop);

    // Extensions.cpp
    const EnabledList& enabledEvents(size_t depth);
    UEvent* reusableEnabled(size_t depth, ThreadId t, uint32_t choice, const model::Event& pending) const;
    UEvent* eventFor(ThreadId execTid, uint32_t choice, const model::Event& pending,
                     const std::vector<Access>* accesses = nullptr, const std::vector<ThreadId>* joins = nullptr);
    // Sections.cpp: SV-COMP atomic sections.
    // A value a section's run leaves in memory: `size` bytes at `addr`, stored whole by its last write there.
    struct WordWrite {
        uint64_t addr = 0;
        uint32_t size = 0;
        uint64_t value = 0;
    };
    // SectionRuns::inputs holds, besides values read (size 1-8), joins (size 0: addr is the thread joined, value its
    // result), mutexes (kMutexInput: value is Executor::mutexInput), joins a run blocked at (kJoinWaitInput: addr
    // is the thread it waits for, value Executor::joinState) and objects it frees (kObjectInput: addr is the object's
    // id, value Executor::objectState).
    static constexpr uint32_t kMutexInput = ~0u, kJoinWaitInput = ~0u - 1, kObjectInput = ~0u - 2;
    static bool isValueInput(uint32_t size) { return size != 0 && size <= 8; }
    struct SectionRun {
        std::vector<uint32_t> choices; // the outcome of each step
        std::vector<Access> accesses;
        std::vector<ThreadId> joins;   // threads it joins: their last events are causes
        bool holdsMutex = false;       // it ends holding a mutex it locked
        // It reads memory or tries a lock: what it does may depend on the history (one that only writes does the
        // same wherever its thread is at the same point).
        bool reads = false;
        std::vector<WordWrite> writes; // what it leaves in the words it stores to whole (sectionWrites)
    };
    struct SectionRuns {
        std::vector<SectionRun> runs; // the runs that complete (a run that blocks midway has none)
        bool blocked = false;         // some run blocked midway
        bool waitsOnThreads = false;  // ... waiting for another thread, not stopped at an assume
        // The values the runs read before writing there themselves — everything they depend on besides their
        // thread's own state, when `inputsKnown` (only reads, writes, read-modify-writes and nondet values inside,
        // no run waiting for another thread): the same runs come from any state with these values (probeCache_).
        std::vector<WordWrite> inputs;
        bool inputsKnown = true;
        bool onlyStores = true; // every path's steps are stores and fences (SectionSite::onlyStores)
        std::vector<Access> blockedAccesses; // what the runs that blocked touched before they did
        const char* error = nullptr;  // why qpor cannot handle this section
    };
    // For each section event (by id), what its run leaves in the words it stores to whole: a compare-exchange whose
    // parent is that event reads one of these values (casFailsAfter). An event missing here tells nothing.
    std::unordered_map<uint64_t, std::vector<WordWrite>> sectionWrites_;
    void noteSectionWrites(const UEvent* e, const SectionRun& r) {
        if (!r.writes.empty()) sectionWrites_.try_emplace(e->id, r.writes);
    }
    SectionRuns sectionRunsAt(const exec::Executor& from, ThreadId t);
    // Section runs probed before, by thread, site, pt and base causes (which fix the thread's own state) — each
    // with the values it read (SectionRuns::inputs): a state that holds them has the same runs, without a replay of
    // its history or a probe on a copy of the executor (cachedSectionRuns).
    struct ProbeGroup { // the probes of one start that read the same places, by the values they read there
        std::vector<std::pair<uint64_t, uint32_t>> reads;
        std::unordered_map<std::vector<uint64_t>, SectionRuns, KeyHash> byValues;
    };
    std::unordered_map<std::vector<uint64_t>, std::vector<ProbeGroup>, KeyHash> probeCache_;
    std::vector<uint64_t> probeValuesScratch_;
    std::vector<uint64_t> probeKeyScratch_;
    uint64_t sectionRunsCached_ = 0; // section starts whose runs came from probeCache_
    size_t probesKept_ = 0;          // ... the probes it holds (keepSectionRuns bounds them)
    const std::vector<uint64_t>& probeKey(ThreadId t, const model::Event& pending, const UEvent* pt,
                                          std::span<UEvent* const> baseCauses);
    // The runs probed before from a state where the section's thread was as now and every value they read was what
    // valueAt(addr, size) gives now (nothing when it cannot tell): by induction over the steps of each run, each
    // reads the same values, takes the same branches and outcomes, and so touches, writes and blocks the same.
    // `start`: the look-up is for a start (counted in sectionRunsCached_), not a question about one (siblingsFixedBy).
    template <class ValueAt>
    const SectionRuns* cachedSectionRuns(const std::vector<uint64_t>& key, ValueAt valueAt, bool start = true) {
        auto it = probeCache_.find(key);
        if (it == probeCache_.end()) return nullptr;
        std::vector<uint64_t>& values = probeValuesScratch_;
        for (const ProbeGroup& g : it->second) {
            values.clear();
            for (auto [addr, size] : g.reads) {
                const std::optional<uint64_t> v = valueAt(addr, size);
                if (!v) break;
                values.push_back(*v);
            }
            if (values.size() != g.reads.size()) continue;
            if (auto hit = g.byValues.find(values); hit != g.byValues.end()) {
                if (start) ++sectionRunsCached_;
                return &hit->second;
            }
        }
        return nullptr;
    }
    // A value input (`size` bytes at addr) as the writes parentOf(word) names leave it — each word's latest write at
    // a history, as for a compare-exchange (bytesAfter); nothing where an input is no value, a word is not its own
    // resource (a segment), parentOf cannot tell (nullopt) or the writes do not tell (a copy's, a free's bytes).
    template <class ParentOf>
    std::optional<uint64_t> valueAfter(uint64_t addr, uint32_t size, ParentOf parentOf) const {
        if (!isValueInput(size)) return std::nullopt;
        model::Event read;
        read.addr = addr;
        read.size = size;
        uint64_t value = 0;
        for (uint64_t w = addr & ~uint64_t(model::kWordSize - 1); w < addr + size; w += model::kWordSize) {
            if (!segments_->perWord(w)) return std::nullopt;
            const std::optional<const UEvent*> parent = parentOf(Resource{w, ResKind::Memory});
            if (!parent || !bytesAfter(read, w, *parent, true, value)) return std::nullopt;
        }
        return value;
    }
    // An input of SectionRuns::inputs as the state `at` holds it: a value, a join's result, a mutex's or an
    // object's state.
    static std::optional<uint64_t> inputIn(const exec::Executor& at, uint64_t addr, uint32_t size) {
        if (size == kMutexInput) return at.mutexInput(addr);
        if (size == kJoinWaitInput) return at.joinState(ThreadId(addr));
        if (size == kObjectInput) return at.objectState(uint32_t(addr));
        return size ? at.peek(addr, size) : at.joinResult(ThreadId(addr)); // (size 0: a join's input)
    }
    const SectionRuns& sectionRunsIn(const exec::Executor& at, ThreadId t, SectionRuns& probed);
    // Keeps `runs` (moved in) when their inputs are known; returns where they are now: the kept copy, or `runs`.
    const SectionRuns& keepSectionRuns(const std::vector<uint64_t>& key, SectionRuns& runs);
    // `mayBlockToo`: the section starts with an acquire, which blocks where the mutex is busy (as a run that blocks).
    bool observeSite(uint32_t loc, const SectionRuns& runs, bool mayBlockToo = false);
    // A site's first start (SectionProbes.cpp): its section also probed after each other thread's next action that
    // writes or locks what its runs touched, before any event is made with what it knows. False: start over.
    bool lookAheadOfSite(ThreadId t, bool mayBlockToo);
    uint64_t sectionLookaheads_ = 0; // section_lookaheads: the probes lookAheadOfSite made
    // lookAheadOfSite's probes at C of other threads at the same site whose runs were not kept (inputs unknown):
    // en(C) takes them (sectionRunsIn) rather than probing again. Cleared when en(C) is made anew.
    std::vector<std::pair<ThreadId, SectionRuns>> lookaheadRuns_;
    uint32_t runChoice(const SectionRuns& runs, const SectionRun& r);
    const std::vector<uint32_t>* runOf(const UEvent* e) const;
    bool sectionPlacedByReplay(const UEvent& like) const;
    bool learnBlockedSection(UEvent& like, UEvent* earlier);
    std::vector<UEvent*> pendingCauses(ThreadId t, UEvent* pt) const;
    void pendingCausesInto(ThreadId t, UEvent* pt, std::vector<UEvent*>& out) const; // (out cleared first)
    std::vector<UEvent*> pendingCausesScratch_; // blockedPlacements' and blockedSyncPlacements' buffer
    void sectionPlacementsWithoutEvent(ThreadId t);
    bool blockedSectionFinals();
    model::Event stepFor(UEvent* e, ThreadId t, uint32_t choice);
    std::vector<ThreadId> wokenScratch_; // stepFor's
    std::vector<UEvent*> atomicSectionEvents(ThreadId t);
    bool reusableSectionEvents(size_t depth, ThreadId t, EnabledList& en);
    bool replayHistory(std::span<UEvent* const> preds, exec::Executor& into,
                       std::vector<std::vector<UEvent*>>* endOf = nullptr);
    std::vector<std::vector<UEvent*>> replayEnds_; // sectionPlacements' scratch: replayHistory's endOf
    void sectionPlacements(const UEvent& like, const EventSpec& spec, std::span<UEvent* const> preds);
    void sectionPlacementsAt(const UEvent& like, const EventSpec& spec, std::span<UEvent* const> preds);
    void runSpecAt(const SectionRun& r, std::span<UEvent* const> preds, EventSpec& s) const;
    void runAccessesOf(const SectionRun& r, const SectionSite& site, std::vector<Access>& out) const;
    std::vector<Access> runAccessScratch_;     // atomicSectionEvents'
    bool hasRunAccesses(const UEvent& e) const; // e is an event of a section site whose runs differ
    void footprintLike(const UEvent& e, UEvent& like) const;
    UEvent* treeMaxBeside(const UEvent& e, const Resource& r) const;
    void siblingsAfterNewAccess(const UEvent* n);
    bool siblingsFixedBy(const UEvent& a, std::span<const Resource> fixed);
    std::vector<Resource> siblingFixedScratch_;
    uint64_t siblingWalksSkipped_ = 0; // sibling walks siblingsFixedBy showed would make nothing
    // While the placements of an event of C are walked for its siblings, that event: the events of C after it (a
    // join of its thread, then a read) cannot precede its siblings, whose histories would then hold it.
    const UEvent* siblingsOf_ = nullptr;
    bool afterSiblingsOf(const UEvent* r) const { return siblingsOf_ && es_.leq(siblingsOf_, r); }
    // ... and the new event of C they are placed after: a placement whose history does not hold it (none of its
    // anchors and readers follows it) was made before, by the walk of the newest event of C in its history
    // (siblingsAfterNewAccess; makeEvent checks).
    const UEvent* siblingsAfter_ = nullptr;
    bool holdsSiblingsAfter(std::span<UEvent* const> anchors) const {
        return std::any_of(anchors.begin(), anchors.end(), [&](const UEvent* x) { return es_.leq(siblingsAfter_, x); });
    }
    bool hasRunAccessSites_ = false;    // some site's events have their runs' accesses (the walk above is needed)
    std::map<std::vector<uint32_t>, uint32_t> runIds_; // a section run's steps → its number (runOf)
    std::vector<std::vector<uint32_t>> runSteps_;
    std::unique_ptr<exec::Executor>& scratch_ = carried_.scratch; // sectionPlacements' executor
    // The state every replay starts from — the initial state after the creates (and an exit) main starts with —
    // kept after the first replay (replayHistory): restoring it costs a copy, not a reset and a thread per create.
    std::unique_ptr<exec::Executor>& replayRoot_ = carried_.replayRoot;
    // The executors a section's runs are probed on (sectionRunsAt, blockedSectionFinals), kept for the next probe: a
    // copy into one reuses its buffers, where a clone allocated the executor, its memory and every thread anew: 4-13 %
    // of qpor's time on the corpus's small section programs (bench/README.md, thirty-seventh session).
    std::vector<std::unique_ptr<exec::Executor>>& probes_ = carried_.probes;
    std::unique_ptr<exec::Executor> probeOf(const exec::Executor& from) {
        if (probes_.empty()) return from.clone();
        std::unique_ptr<exec::Executor> p = std::move(probes_.back());
        probes_.pop_back();
        p->copyStateFrom(from);
        return p;
    }
    void keepProbe(std::unique_ptr<exec::Executor> p) {
        if (p) probes_.push_back(std::move(p));
    }
    void ensureScratch() { // ... in ex_'s lineage of thread ids: a replay may create a thread before ex_ does
        if (scratch_) return;
        scratch_ = std::make_unique<exec::Executor>(prog_, opts_.exec);
        scratch_->adoptThreadIds(ex_);
    }
    // Placements.cpp (cex(C)), but for blockedPlacements, accessesInto and describePending (Extensions.cpp)
    void addConflictingExtensions(UEvent* e);
    void earlierPlacements(UEvent* e);
    // earlierPlacements would find only e's own placement (no option but the original for any access): checked
    // without the walk's buffers.
    bool onlyItsOwnPlacement(const UEvent& e) const;
    struct PlacementOption {
        uint32_t first, count; // anchors: placeAnchors_[first, first + count)
        int choice;            // the outcome (the waiter a signal wakes), or -1
        // A memory access placed at an earlier position with every reader of the value there before it (a read:
        // reading an earlier write): once that placement has had its own earlier placements made, they are the rest
        // of this walk (earlierPlacements).
        bool coversAbove = false;
        // A write placed before only some readers of its parent: the first reader left out of each thread's
        // prefix, placeExcluded_[xfirst, xfirst + xcount) (a combination whose history holds one is another's).
        uint32_t xfirst = 0, xcount = 0;
    };
    std::vector<PlacementOption> placeOpts_;
    // earlierPlacements' buffers; those a small exploration fills with a few elements, in place.
    using PlaceEvents = SmallVector<UEvent*, 8>;
    using PlaceIndices = SmallVector<uint32_t, 8>;
    PlaceEvents placeExcluded_;
    std::vector<UEvent*> placeAnchors_;
    PlaceEvents placeCombo_, placePreds_;
    std::vector<uint32_t> placeRanges_;
    PlaceIndices placeIdx_, placeMarks_;
    std::vector<uint32_t> placeCovered_; // earlierPlacements: option vectors of placed placements met, back to back
    std::vector<std::pair<bool, int>> placeEntry_;
    std::vector<const UEvent*> placeWalkMade_; // the walk's events, cross-checked against singleWriterPlacements
    std::vector<UEvent*> placeWriters_;        // singleWriterPlacements' anchors of u
    bool singleWriterPlacements(const UEvent& e, std::vector<const UEvent*>* made);
    void blockedPlacements(ThreadId t);
    void readsFromNewWrite(UEvent* w);
    // Returns the event placed with no optional reader, when that is the only one placed (else null).
    UEvent* makeEvent(const UEvent& like, std::span<UEvent* const> anchors, std::span<UEvent* const> readers,
                      int choice = -1);
    uint64_t placementsCut_ = 0; // earlierPlacements walks ended early (PlacementOption::coversAbove)
    PlaceEvents mkBase_, mkPreds_, mkBaseMax_; // makeEvent's buffers
    ReaderGroups mkOptional_, placeReaders_;
    EventSpec mkSpec_;
    uint32_t waitersAt(const Resource& cond, const UEvent* node) const;
    void accessesInto(const model::Event& label, std::vector<Access>& out) const;
    EventSpec specScratch_; // eventFor's description, reused
    bool mutexFreeAfter(const UEvent* node) const;
    // EventStructure::treeMaxOf(events, r), by a short walk down C's chain of r when every event is in C.
    UEvent* treeMaxIn(std::span<UEvent* const> events, const Resource& r) const;
    // ExploreOptions::qporCrossCheck: treeMaxOf(events, r), checked against what the walk found.
    UEvent* treeMaxChecked(std::span<UEvent* const> events, const Resource& r, UEvent* walked) const;
    // ExploreOptions::qporCrossCheck: a fast path's answers against its slow rule's (treeMaxIn, onlyItsOwnPlacement).
    const bool crossCheck_;
    mutable uint64_t treeMaxChecks_ = 0, ownPlacementChecks_ = 0, readCutChecks_ = 0, singleWriterChecks_ = 0;
    mutable uint64_t siblingSkipChecks_ = 0, siblingWalkChecks_ = 0;
    mutable uint64_t crossCheckFailures_ = 0;
    void crossChecked(uint64_t& checks, bool agrees) const {
        ++checks;
        if (!agrees) ++crossCheckFailures_;
    }
    // Semaphores, reader-writer locks and barriers (DESIGN.md, "Semaphores, reader-writer locks and barriers"):
    // whether the operation
    // `like` describes is enabled at the history [preds] ⊆ C, where `spec` (its event there) has its parents; the
    // count of the semaphore (the readers of the lock) at `addr`, resource `res`, at that history — its count at C
    // less what the operations of C outside the history did; both set unsupported_ where another kind of write of C
    // changed its word. And a thread's wait or lock at C, blocked there, placed earlier.
    bool syncEnabledAt(const UEvent& like, const EventSpec& spec, std::span<UEvent* const> preds);
    int64_t syncCountAt(const Resource& res, uint64_t addr, std::span<UEvent* const> preds);
    // Whether a wait `e` placed right after the write `after` of the semaphore's word can be enabled at all: the
    // count at the largest history such a placement has (every post of C that reads `after`) is above 0 — above 1
    // at e's own place (`same`), where the placements left are those without some post e's history holds.
    bool semWaitCanFollow(const UEvent& e, const Resource& res, UEvent* after, bool same);
    // x is in the history of every placement of e's action: in [pt(e)] or in a base cause's history.
    bool isForced(const UEvent& e, const UEvent* x) const {
        return isForced(e.pt, std::span<UEvent* const>(e.causes.data(), e.baseCauses), x);
    }
    // The same from the parts of an action not yet described as an event (blockedSyncPlacements).
    bool isForced(const UEvent* pt, std::span<UEvent* const> baseCauses, const UEvent* x) const {
        if (es_.leq(x, pt)) return true;
        for (const UEvent* c : baseCauses)
            if (es_.leq(x, c)) return true;
        return false;
    }
    std::vector<UEvent*> semPreds_; // its buffer
    std::vector<Access> blockedAccessesScratch_; // blockedSyncPlacements's
    void blockedSyncPlacements(ThreadId t, const model::Event& pending);
    // The event thread t's pending operation would be after pt and `causes` (a blocked one's): a description for the
    // placement walks, never registered. Its accesses have no parents yet.
    void describePending(ThreadId t, const model::Event& pending, UEvent* pt, std::span<UEvent* const> causes,
                         UEvent& like) const;
    // A compare-exchange outside an atomic section (one word, or two: 8 bytes): its accesses are reads where its
    // history makes it fail (it reads a value other than the one it expects) and writes otherwise (DESIGN.md,
    // "Compare-exchange").
    static bool casByOutcome(const model::Event& label, size_t accesses, bool section) {
        return !section && label.kind == model::EventKind::Rmw && label.cas && accesses >= 1 && accesses <= 2;
    }
    static bool casByOutcome(const UEvent& e) { return casByOutcome(e.label, e.accesses.size(), e.section); }
    // The kinds not made events: taken as soon as their thread reaches them (autoSteps, replayHistory).
    static bool takenAtOnce(model::EventKind k) {
        return k == model::EventKind::ThreadJoin || k == model::EventKind::ProgramExit ||
               k == model::EventKind::ThreadCreate;
    }
    // CompareExchange.cpp
    // The compare-exchange `label`, reading each of its words (1 or 2: the resources of `accesses`) as the history
    // ending at that word's write `parents[i]` (null: none) left it, finds a value other than it expects. False when the history does not
    // tell (a copy, a free, a section's library store, a realloc's copy, a stack word nobody wrote), which takes the
    // compare-exchange as a write (sound: a failed one writes back what it read) and sets casUnknown_. With `walk`
    // the bytes a write leaves alone are looked up in the writes before it (a memset, then a store of one byte);
    // without, each parent must hold every byte.
    bool casFailsAfter(const model::Event& label, std::span<const Access> accesses, std::span<UEvent* const> parents,
                       bool walk = true) const;
    // The bytes of `label` in word `word` as the history ending at `parent` left them, or'ed into `value` (byte a at
    // bit 8·(a − label.addr)); false when they are not known (casFailsAfter).
    bool bytesAfter(const model::Event& label, uint64_t word, const UEvent* parent, bool walk, uint64_t& value) const;
    // A compare-exchange placed right after `earlier`, a write of one of its words (earlierPlacements): with one
    // word, the word's history below `earlier` tells; with two, the other word's parent at that placement is not
    // known here, so `earlier` must hold all its bytes (an 8-byte store).
    bool casFailsAt(const UEvent& e, UEvent* earlier) const {
        UEvent* const parents[2] = {earlier, earlier};
        const size_t n = e.accesses.size();
        return casFailsAfter(e.label, e.accesses, std::span(parents, n), /*walk=*/n == 1);
    }

    // Alternatives.cpp
    // Alt(C, D ∪ {e}) for the top node (its Dlocal ends with e): true when there is one, J \ C then in altJ_.
    bool alternative();
    // alternative()'s buffers, in place while a few events (as most of a small exploration's are)
    using AltBuffer = SmallVector<UEvent*, 8>;
    AltBuffer altJ_, altSelected_, altCombo_, altTodo_;
    std::vector<Spike> altSpikes_;
    SmallVector<char, 8> altSatisfied_;
};

} // namespace skein::explore::unfolding
