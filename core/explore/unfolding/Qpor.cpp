// Alg. 1 of QPOR, iteratively: a stack of nodes, one per event of the current execution. A node stands for the
// successive calls Explore(C_d, D ∪ {e_1..e_i}, A) at configuration C_d (the first d events). The executor holds
// state(C) and is re-run from the start (replay) whenever the exploration returns to a shorter C.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/explore/TraceBuilder.h"
#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using exec::ExecStatus;
using model::EventKind;

std::optional<int> parseAltMode(const std::string& s) {
    if (s == "optimal") return 0;
    if (s == "sdpor") return -1;
    if (s.size() >= 2 && s[0] == 'k') {
        int k = 0;
        for (size_t i = 1; i < s.size(); ++i) {
            if (s[i] < '0' || s[i] > '9' || k > 100000) return std::nullopt;
            k = k * 10 + (s[i] - '0');
        }
        if (k >= 1) return k;
    }
    return std::nullopt;
}

namespace {
// SKEIN_QPOR_TRACE=1 prints the exploration (a debugging aid for the algorithm, not an interface).
const bool kTrace = std::getenv("SKEIN_QPOR_TRACE") != nullptr;
std::string show(const UEvent* e) {
    if (!e) return "⊥";
    std::string s = "e" + std::to_string(e->id) + ":t" + std::to_string(e->thread) + ":" +
                    std::string(model::eventKindName(e->label.kind));
    if (e->label.addr) s += "@" + std::to_string(e->label.addr & 0xffff);
    for (const Access& a : e->accesses) s += "<" + show(a.parent).substr(0, 4) + ">";
    if (e->choice) s += "#" + std::to_string(e->choice);
    return s;
}
} // namespace

QporExplorer::QporExplorer(const program::Program& p, const ExploreOptions& o, Observer* obs, int altK,
                           Carried& carried, std::chrono::steady_clock::time_point start,
                           std::chrono::steady_clock::time_point attemptStart, int sectionRestarts)
    : prog_(p), opts_(o), obs_(obs), altK_(altK), clock_(o, start), carried_(carried), ex_(carried.ex),
      es_(std::max(2u, o.skipStep)), F_(std::max(2u, o.skipStep)), errors_(carried.errors),
      sections_(&carried.sections), segments_(&carried.segments), restarts_(sectionRestarts),
      restartedMs_(std::chrono::duration<double, std::milli>(attemptStart - start).count()), phase_(attemptStart),
      pruneThreshold_(o.qporPruneThreshold), crossCheck_(o.qporCrossCheck) {
    // A small exploration's buffers in one allocation each rather than grown by doubling from one element: on an
    // exploration of a dozen events the growth was ~5 % of qpor's instructions (bench/README.md).
    stack_.reserve(32);
    placeOpts_.reserve(16);
    placeAnchors_.reserve(32);
    placeRanges_.reserve(8);
    specScratch_.causes.reserve(8);
    specScratch_.accesses.reserve(4);
    // No event of this attempt was made with what the sites know: what they learn before one is, changes nothing
    // made (observeSite starts over only for a site used in this attempt). Until the thirty-eighth session `used`
    // outlived the attempt that set it, and a site's first run of the next attempt, narrower than the footprint the
    // last one learned, started it over again.
    for (auto& [loc, site] : *sections_) site.used = false;
}

void QporExplorer::resetExecution(bool executorFresh) {
    exDepth_ = 0;
    if (rootSnapshot_.valid) {
        ex_.copyStateFrom(*rootSnapshot_.ex);
        createOf_ = rootSnapshot_.createOf;
        wakers_ = rootSnapshot_.wakers;
        joinedSince_ = rootSnapshot_.joinedSince;
        return;
    }
    if (!executorFresh) ex_.reset(); // a reset costs about three executed events
    createOf_.assign(1, nullptr);
    wakers_.assign(1, nullptr);
    joinedSince_.assign(1, {});
    // The creates (and an exit) main starts with: the same at every reset (autoSteps).
    rootSteps_.clear();
    autoSteps(rootSteps_, nullptr);
    if (rootStepsRun_ && !rootSteps_.empty()) rootSnapshot_ = {ex_.clone(), createOf_, wakers_, joinedSince_, true};
    rootStepsRun_ = true;
}

// A join is independent of every action but the joined thread's, which all precede it: it commutes with everything
// that can run between the joined thread's end and the joiner's next action. So a join is not made an event of the
// unfolding: as soon as a thread's pending join is enabled (the joined thread has finished) it is taken, right after
// the event that enabled it, and the joined thread's last event becomes a cause of the joiner's next event (noteJoin,
// eventFor). A trace with the join elsewhere is the same trace, so each Mazurkiewicz trace keeps one maximal
// configuration, with about one event fewer per join (on lastwriter N=7, 410,578 → 149,928 events). A blocked join
// blocks as before; joins inside an atomic section stay part of the section's event.
// A program exit (main's return, exit()) ends only its own thread and depends on nothing (model::dependent): it is
// taken the same way, right after its thread's last event — one event fewer per execution, and the node before it
// has no en(C) to make. (A join of a thread that called exit() blocks for good: Executor::joinable.)
// A thread create, too, is independent of everything: it only precedes the child's events, as a cause. Taken at once
// (at the root for the threads main starts with), its place in the unfolding is its creator's last event, with the
// joins the creator took since: what the child's first event follows (createOf_, joinedSince_).
// `after` is the event the steps follow (none at the root); they are appended to `steps` for replay and schedules.
void QporExplorer::autoSteps(StepList& steps, UEvent* after) {
    for (bool progress = true; progress;) {
        progress = false;
        for (ThreadId t = 0; t < ex_.numThreads(); ++t) {
            const exec::ThreadView& v = ex_.thread(t);
            const EventKind kind = v.pending.kind;
            if (v.state != exec::ThreadState::Ready || !takenAtOnce(kind) || !ex_.enabled(t) || ex_.inAtomicSection(t))
                continue;
            autoStep(t, after);
            steps.push_back(t);
            progress = true;
        }
    }
}

// Thread t's pending join, exit or create, taken after `after` (autoSteps, and their replay: the same rule gives the
// same causes). A thread with a create pending here has no event after `after` in C: it is `after`'s own thread, or
// one with no event yet (created by `after` or at the root), whose place is its own create's.
void QporExplorer::autoStep(ThreadId t, UEvent* after) {
    const model::Event& p = ex_.thread(t).pending;
    if (p.kind == EventKind::ThreadJoin) noteJoin(t, ThreadId(p.value));
    if (p.kind != EventKind::ThreadCreate) {
        ex_.step(t, 0);
        return;
    }
    UEvent* place = after && after->thread == t ? after : t < createOf_.size() ? createOf_[t] : nullptr;
    const ThreadId child = ThreadId(ex_.step(t, 0).value);
    if (createOf_.size() <= child) createOf_.resize(child + 1, nullptr), wakers_.resize(child + 1, nullptr);
    createOf_[child] = place;
    if (joinedSince_.size() <= child) joinedSince_.resize(child + 1);
    joinedSince_[child] = t < joinedSince_.size() ? joinedSince_[t] : std::vector<UEvent*>{};
}

void QporExplorer::noteJoin(ThreadId t, ThreadId joined) {
    if (joinedSince_.size() <= t) joinedSince_.resize(t + 1);
    historyEndOf(joined, joinedSince_[t]); // (`joined` != t: a thread's join of itself never completes)
}

// A thread with no event after a join it took (none at all: it only created and joined) ends with that join's
// causes, which are then no event's: without them a join of it would lose the order of the thread it joined —
// main joining a worker that only joined its own child could then move before the child's writes.
void QporExplorer::historyEndOf(ThreadId c, std::vector<UEvent*>& out) const {
    UEvent* last = F_.threadMax(c);
    addOnce(out, last ? last : c < createOf_.size() ? createOf_[c] : nullptr);
    if (c < joinedSince_.size())
        for (UEvent* x : joinedSince_[c]) addOnce(out, x);
}

// Brings the executor to state(C_depth): from the deepest valid snapshot at or below `depth` (or the initial
// state), replaying the decisions of the nodes after it.
void QporExplorer::ensureExecutorAt(size_t depth) {
    if (exDepth_ == depth) return;
    phase_.enter(PhaseClock::Execute); // until en(C), which follows
    size_t from = 0;
    for (size_t i = std::min(depth / kSnapshotEvery, snapshots_.size()); i > 0; --i)
        if (snapshots_[i - 1].valid) {
            from = i * kSnapshotEvery;
            break;
        }
    if (from > 0) {
        const Snapshot& s = snapshots_[from / kSnapshotEvery - 1];
        ex_.copyStateFrom(*s.ex);
        createOf_ = s.createOf;
        wakers_ = s.wakers;
        joinedSince_ = s.joinedSince;
        exDepth_ = from;
        ++snapshotsRestored_;
    } else {
        resetExecution();
    }
    for (size_t i = from; i < depth; ++i) {
        const Node& n = stack_[i];
        UEvent* e = n.e;
        const model::Event ev = stepFor(e, n.decision.thread, n.decision.choice);
        for (uint32_t c : n.inner) stepFor(e, n.decision.thread, c); // the rest of an atomic section
        e->label.value = ev.value;
        e->label.value2 = ev.value2;
        e->label.failed = ev.failed;
        if (e->thread < joinedSince_.size()) joinedSince_[e->thread].clear();
        for (ThreadId t : n.autoSteps) autoStep(t, e);
        ++exDepth_;
        ++replayedSteps_;
        maybeSnapshot();
    }
}

// Called with the executor at state(C_exDepth_) where C_exDepth_ is the stack's prefix: keeps a snapshot there when
// the depth is a multiple of kSnapshotEvery and its slot is free.
void QporExplorer::maybeSnapshot() {
    if (exDepth_ % kSnapshotEvery != 0 || replayedSteps_ < kReplayedBeforeSnapshots) return;
    size_t slot = exDepth_ / kSnapshotEvery - 1;
    if (slot >= kMaxSnapshots || (slot + 1) * ex_.stateBytes() > kSnapshotBytes) return;
    if (snapshots_.size() <= slot) snapshots_.resize(slot + 1);
    Snapshot& s = snapshots_[slot];
    if (s.valid) return;
    if (s.ex) s.ex->copyStateFrom(ex_);
    else s.ex = ex_.clone();
    s.createOf = createOf_;
    s.wakers = wakers_;
    s.joinedSince = joinedSince_;
    s.valid = true;
    ++snapshotsTaken_;
}

// A thread created by executor event `ev` (of unfolding event e) has e as the cause of its first event. Thread ids
// are canonical (the executor names the k-th child of a thread the same in every execution).
void QporExplorer::noteCreate(const model::Event& ev, UEvent* e) {
    if (ev.kind != EventKind::ThreadCreate) return;
    ThreadId child = ThreadId(ev.value);
    if (createOf_.size() <= child) createOf_.resize(child + 1, nullptr), wakers_.resize(child + 1, nullptr);
    createOf_[child] = e;
}

// One executor step of event e (e itself, or a further step of its atomic section): the threads it creates have e
// as the cause of their first event, and the threads its signal or broadcast wakes have e as the cause of their
// mutex re-acquire (a signal inside a section too: else that re-acquire could be placed before the section).
model::Event QporExplorer::stepFor(UEvent* e, ThreadId t, uint32_t choice) {
    const model::Event& p = ex_.thread(t).pending;
    std::vector<ThreadId>& woken = wokenScratch_;
    woken.clear();
    if (p.kind == EventKind::CondBroadcast) // before it: the threads it will wake
        for (ThreadId u = 0; u < ex_.numThreads(); ++u)
            if (ex_.thread(u).state == exec::ThreadState::BlockedCond && ex_.thread(u).waitObject == p.addr)
                woken.push_back(u);
    const model::Event ev = ex_.step(t, choice);
    noteCreate(ev, e);
    if (ev.kind == EventKind::CondSignal && ev.value) wakers_[ev.value - 1] = e;
    for (ThreadId u : woken) wakers_[u] = e;
    return ev;
}

// Runs e (enabled at C) in the executor and adds it to C with the conflicting extensions it creates.
void QporExplorer::execute(UEvent* e, Node& n) {
    phase_.enter(PhaseClock::Execute); // until cex(C), which follows
    // The executor decisions: the thread and, for events with outcomes, the outcome; an atomic section's further
    // steps are recorded too (the counterexample schedules replay step by step).
    const std::vector<uint32_t>* run = runOf(e); // a section with several runs: the outcome of each step
    n.decision = {e->thread, run ? (*run)[0] : e->choice};
    n.inner.clear();
    const size_t threadsBefore = ex_.numThreads();
    const model::Event ev = stepFor(e, n.decision.thread, n.decision.choice);
    ++exDepth_;
    ++result_.stats.events;
    while (ex_.exclusiveThread() == e->thread && ex_.enabled(e->thread)) {
        uint32_t c = run && n.inner.size() + 1 < run->size() ? (*run)[n.inner.size() + 1] : 0;
        // The rest of an atomic section: the same event of the unfolding (threads it creates have it as cause).
        stepFor(e, e->thread, c);
        n.inner.push_back(c);
        ++result_.stats.events;
    }
    e->label.value = ev.value;
    e->label.value2 = ev.value2;
    e->label.rmwWrote = ev.rmwWrote;
    e->label.failed = ev.failed;
    // A compare-exchange made a read because its parent says it fails must fail (casFailsAfter); otherwise the
    // unfolding would miss what its write conflicts with. Not a verdict then: check() falls back to dfs.
    if (casByOutcome(*e) && e->accesses[0].mode == Mode::Read && ev.rmwWrote) // (its accesses share a mode)
        unsupported_ = "internal: a compare-exchange taken to fail succeeded";
    if (e->thread < joinedSince_.size()) joinedSince_[e->thread].clear(); // they are causes of e
    n.autoSteps.clear();
    F_.push(e); // the joins look up the joined threads' last events in C
    // No join, exit or create was enabled before e (each was taken at once), and one becomes enabled only when its
    // thread reaches it or (a join) the joined thread finishes: here only e's thread or a thread e created can have
    // done either (a thread's state changes by its own steps). The scan looks at every thread, so skip it otherwise.
    const exec::ThreadView& v = ex_.thread(e->thread);
    if (ex_.numThreads() != threadsBefore || v.state == exec::ThreadState::Finished ||
        v.state == exec::ThreadState::Stopped || takenAtOnce(v.pending.kind)) {
        const size_t before = n.autoSteps.size();
        autoSteps(n.autoSteps, e);
        result_.stats.events += n.autoSteps.size() - before;
    }
    maybeSnapshot();
    addConflictingExtensions(e);
}

void QporExplorer::recordMaximal() {
    // Joins are not events (autoSteps), so two joins of one thread are never ordered — but the second call fails when
    // the first already returned, and dfs explores both orders: such a program is handed over. (An execution where
    // both threads reach their joins is in every class of one where the misuse happens: reaching a join depends only
    // on the thread's own events.)
    if (ex_.twoJoiners()) unsupported_ = kTwoJoiners;
    runs_.noteRun(ex_, result_);
    std::vector<report::Decision>& schedule = schedule_; // reused: one per complete execution
    schedule.clear();
    schedule.reserve(rootSteps_.size() + 2 * stack_.size()); // at once, not by doubling (the first execution's)
    for (ThreadId t : rootSteps_) schedule.push_back({t, 0});
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
        schedule.push_back(stack_[i].decision);
        for (uint32_t c : stack_[i].inner) schedule.push_back({stack_[i].decision.thread, c}); // one per step
        for (ThreadId t : stack_[i].autoSteps) schedule.push_back({t, 0});
    }
    if (races_.collect(errors_, opts_.detectRaces, ex_, schedule)) stop_ = true;
    if (runs_.count(ex_, result_.stats)) stop_ = true;
    if (ex_.status() == ExecStatus::Finished) finals_.insert(ex_.finalStateHash());
    else if (ex_.status() == ExecStatus::Running && blockedSectionFinals()) {
        --result_.stats.blocked; // (RunLog counted it by the executor's status) a complete execution, as in dfs
        ++result_.stats.executions;
    }
}

// Takes out of `drop` every event in the history of an event of U that stays. The paper's Alt takes from U every
// event in conflict with an event of D; the comb takes only those in immediate conflict (Alternatives.cpp), which
// for an event of U in conflict with d lie in its history — so that history must stay in U with it. An event in
// conflict with C ∪ D whose history left U made an alternative unreachable: t2's load of a before t1's RMW stayed
// (in conflict with the RMW in C) while its history — t2's read of t3's write, itself in conflict with t2's other
// read only later added to D — left, and pruning at every return lost a trace (the long differential run, seed
// 31415926; QporPrune.TheHistoriesOfKeptEventsStayInU).
void QporExplorer::keepHistories(std::vector<UEvent*>& drop) {
    if (drop.empty()) return;
    for (UEvent* x : drop) x->marked = true; // to drop, unless a kept event's history has it
    std::vector<UEvent*> todo;
    es_.forEachInU([&](UEvent* y) {
        if (!y->marked) todo.push_back(y);
    });
    const uint64_t visited = ++stamp_;
    while (!todo.empty()) {
        UEvent* y = todo.back();
        todo.pop_back();
        forEachPredecessor(*y, [&](UEvent* p) {
            if (p->stamp != visited) {
                p->stamp = visited;
                p->marked = false;
                todo.push_back(p);
            }
            return true;
        });
    }
    std::erase_if(drop, [](UEvent* x) {
        const bool kept = !x->marked;
        x->marked = false; // the collection's mark, clear again
        return kept;
    });
}

// U := U ∩ Q_{C,D} (Alg. 1, line 13): keep C, D and the events in conflict with C ∪ D, with their histories
// (keepHistories); then free what no kept event's history needs. Amortised: only when U has doubled since the last
// pruning.
void QporExplorer::prune() {
    if (es_.uSize() < pruneThreshold_) return;
    phase_.enter(PhaseClock::Other); // until the parent's Alt
    std::vector<UEvent*> D;
    for (uint32_t i : stack_.dNodes()) D.insert(D.end(), stack_[i].Dlocal.begin(), stack_[i].Dlocal.end());
    std::vector<UEvent*> drop;
    es_.forEachInU([&](UEvent* x) {
        if (x->inD || F_.contains(x) || es_.conflictsWith(x, F_)) return;
        for (UEvent* d : D)
            if (es_.conflict(x, d)) return;
        drop.push_back(x);
    });
    keepHistories(drop);
    for (UEvent* x : drop) es_.removeFromU(x);
    if (!drop.empty()) {
        // Placements may have left U: make them again (the blocked acquires', and executed events' cexp).
        blockedWalks_.clear();
        es_.clearPlaced();
        sectionPlacementsMade_.clear();
        ++pruneEpoch_;
    }
    if (kTrace) {
        std::fprintf(stderr, "prune: U %zu, dropped %zu:", es_.uSize() + drop.size(), drop.size());
        for (UEvent* x : drop) std::fprintf(stderr, " %s", show(x).c_str());
        std::fprintf(stderr, "\n");
    }
    // Amortised: the next pruning when U has doubled — quadrupled when this one freed little, eightfold when it freed
    // nothing (on programs where nearly every event stays in conflict with C ∪ D — lastwriter, lockcnt — the scan
    // costs more than it saves: it was 8 % of lastwriter N=7).
    const size_t factor = drop.empty() ? 8 : drop.size() * 8 < es_.uSize() + drop.size() ? 4 : 2;
    pruneThreshold_ = opts_.qporPruneThreshold == 0 ? 0 : std::max(opts_.qporPruneThreshold, factor * es_.uSize());
    // Every event made enters U, so the garbage is what left U — now, or in an earlier pruning while a node still
    // held it. With nothing dropped now, the collection would walk every event to free little or nothing (on
    // ase14_fig8, where all of U stays, 5 % of the run): the next pruning that drops events frees those as well.
    if (drop.empty()) return;
    std::vector<UEvent*> roots(F_.events().begin(), F_.events().end());
    for (const Node& n : stack_.live()) {
        roots.insert(roots.end(), n.A.begin(), n.A.end());
        roots.insert(roots.end(), n.en.begin(), n.en.end()); // reused by enabledEvents
    }
    for (UEvent* c : createOf_) roots.push_back(c);
    for (UEvent* w : wakers_) roots.push_back(w);
    es_.collect(roots);
    // The values of the sections' runs of events the collection freed (ids are never reused: only memory).
    if (!sectionWrites_.empty()) {
        std::unordered_set<uint64_t> alive;
        es_.forEachEvent([&](const UEvent* e) {
            if (e->section) alive.insert(e->id);
        });
        std::erase_if(sectionWrites_, [&](const auto& w) { return !alive.count(w.first); });
    }
}

void QporExplorer::popNode() {
    // Counted in the phase it follows (its Alt or en(C)), but for pruning (prune()): a few stores otherwise.
    Node& n = stack_.back();
    for (UEvent* d : n.Dlocal) d->inD--;
    stack_.pop();
    // The new top may explore another event: the snapshots at or past its depth no longer show the stack's prefix —
    // slot i (depth (i + 1)·kSnapshotEvery) for every i ≥ ⌈size / kSnapshotEvery⌉ − 1 that exists. (There are at
    // most kMaxSnapshots slots: on a stack deeper than 512 the slot of the new top's depth is none of them — it was
    // written past the end once, and a single thread taking a mutex 2,000 times crashed.)
    const size_t size = stack_.size();
    for (size_t i = size == 0 ? 0 : (size + kSnapshotEvery - 1) / kSnapshotEvery - 1; i < snapshots_.size(); ++i)
        snapshots_[i].valid = false;
    if (stack_.empty()) return;
    prune();
    F_.pop(); // back to the parent's configuration
}


// After the timer stopped (run()). Out of line so that bench/qpor_vs_dfs_instructions.py can leave it out of the
// explorer's instructions as the timer leaves it out of its time (20 map insertions: ~10 k instructions, a sixth of a
// small exploration).
[[gnu::noinline]] void QporExplorer::reportCounters(report::Stats& st) const {
    st.extra["u_events"] = double(es_.uSize());
    st.extra["u_peak"] = double(peakU_);
    st.extra["events_allocated"] = double(es_.allocated());
    st.extra["alternatives"] = double(alternatives_);
    st.extra["alternatives_none"] = double(altFailures_);
    st.extra["alternatives_none_quick"] = double(altQuickFailures_); // of which: en(C) ⊆ D, no comb needed
    st.extra["comb_spike_events"] = double(combSpikeEvents_);
    st.extra["cex_events"] = double(cexEvents_);
    st.extra["sections_widened"] = sectionsWidened_ ? 1 : 0; // 1: a section event touches more than its run
    st.extra["cas_unknown"] = casUnknown_ ? 1 : 0; // 1: a compare-exchange whose parent does not tell was a write
    st.extra["enabled_lookups"] = double(enLookups_); // en(C) events looked up in U's index
    st.extra["enabled_reused"] = double(enReused_);   // ... and taken over from the parent configuration
    st.extra["placements_reused"] = double(placementsReused_);
    st.extra["placements_cut"] = double(placementsCut_);
    st.extra["sibling_walks_skipped"] = double(siblingWalksSkipped_);
    st.extra["snapshots_taken"] = double(snapshotsTaken_);
    st.extra["snapshots_restored"] = double(snapshotsRestored_);
    st.extra["race_events_fed"] = double(races_.eventsFed());
    st.extra["race_events_reused"] = double(races_.eventsReused());
    st.extra["replayed_steps"] = double(replayedSteps_);
    // The attempts started over, then this one's phases: the six add up to elapsed_ms.
    const double restarted = std::min(restartedMs_, st.elapsedMs), attempt = st.elapsedMs - restarted;
    st.extra["ms_restarted"] = restarted;
    st.extra["ms_execute"] = phase_.ms(PhaseClock::Execute, attempt);
    st.extra["ms_extensions"] = phase_.ms(PhaseClock::Extensions, attempt);
    st.extra["ms_comb"] = phase_.ms(PhaseClock::Comb, attempt);
    st.extra["ms_cex"] = phase_.ms(PhaseClock::Cex, attempt);
    st.extra["ms_other"] = phase_.ms(PhaseClock::Other, attempt);
    st.extra["section_restarts"] = restarts_;
    st.extra["section_runs"] = double(sectionRuns_); // runs of atomic sections executed to learn their events
    st.extra["section_runs_cached"] = double(sectionRunsCached_); // section starts whose runs were known already
    st.extra["section_lookaheads"] = double(sectionLookaheads_); // probes after another thread's next action
    st.extra["segment_restarts"] = segments_->restarts(); // of the attempts so far: this one is the last
    st.extra["segmented_objects"] = double(segments_->segmentedObjects());
    if (crossCheck_) {
        st.extra["cross_checks_tree_max"] = double(treeMaxChecks_);
        st.extra["cross_checks_own_placement"] = double(ownPlacementChecks_);
        st.extra["cross_checks_read_cut"] = double(readCutChecks_);
        st.extra["cross_checks_single_writer"] = double(singleWriterChecks_);
        st.extra["cross_checks_siblings"] = double(siblingSkipChecks_);
        st.extra["cross_checks_sibling_walk"] = double(siblingWalkChecks_);
        st.extra["cross_check_failures"] = double(crossCheckFailures_);
    }
}

report::CheckResult QporExplorer::run() {
    report::Stats& st = result_.stats;
    result_.algorithm = "qpor";
    resetExecution(/*executorFresh=*/!carried_.exUsed); // (the first attempt's ex_ is at the initial state)
    carried_.exUsed = true;
    st.events += rootSteps_.size();
    stack_.push();
    uint32_t sinceCheck = 0;
    while (!stack_.empty() && !stop_) {
        // The budget and cancellation are looked at after every maximal configuration, and every 256 steps of the
        // loop as well: sdpor's sleep-set blocked paths can run by the hundred thousand between two maximal
        // configurations (sdpor_blowup -DLOCKS N=16 ran 4 s under a 2 s --time-limit).
        if (++sinceCheck == 256) {
            sinceCheck = 0;
            if (clock_.afterExecution(result_, obs_)) {
                stop_ = true;
                break;
            }
        }
        size_t d = stack_.size() - 1;
        Node& n = stack_[d];
        if (n.choose) {
            ensureExecutorAt(d);
            phase_.enter(PhaseClock::Extensions); // and choosing e: until the event's execution or the pop
            const EnabledList& en = enabledEvents(d);
            peakU_ = std::max<uint64_t>(peakU_, es_.uSize());
            if (unsupported_ || footprintGrew_) break;
            if (kTrace) {
                std::fprintf(stderr, "%*sC%zu en:", int(d), "", d);
                for (UEvent* x : en) std::fprintf(stderr, " %s%s", show(x).c_str(), x->inD ? "(D)" : "");
                std::fprintf(stderr, " A:");
                for (UEvent* x : n.A) std::fprintf(stderr, " %s", show(x).c_str());
                std::fprintf(stderr, "\n");
            }
            if (en.empty()) { // maximal configuration
                if (kTrace) std::fprintf(stderr, "%*s== maximal (status %d)\n", int(d), "", int(ex_.status()));
                phase_.enter(PhaseClock::Other);
                recordMaximal();
                if (!stop_ && clock_.afterExecution(result_, obs_)) stop_ = true;
                popNode();
                continue;
            }
            UEvent* e = nullptr;
            for (UEvent* x : en)
                if (!x->inD && (n.A.empty() || std::find(n.A.begin(), n.A.end(), x) != n.A.end())) {
                    e = x;
                    break;
                }
            if (!e) {
                // en(C) ⊆ D (line 3): a sleep-set blocked execution when C is not maximal. (With a clue A that
                // has no enabled event — impossible when J ∪ C is a configuration — this is where it would show.)
                if (kTrace) std::fprintf(stderr, "%*s== SSB\n", int(d), "");
                ++st.ssb;
                popNode();
                continue;
            }
            n.e = e;
            n.choose = false;
            execute(e, n);
            Node& child = stack_.push(); // `n` is invalid from here
            for (UEvent* a : stack_[d].A)
                if (a != e) child.A.push_back(a);
            continue;
        }
        // The subtree of C ∪ {e} is done (line 10). Now the configurations with C but without e (lines 11-12).
        stack_.addToD(n.e); // n is the top node
        n.e->inD++;
        if (alternative()) {
            if (kTrace) {
                std::fprintf(stderr, "%*sALT after %s:", int(d), "", show(n.e).c_str());
                for (UEvent* x : altJ_) std::fprintf(stderr, " %s", show(x).c_str());
                std::fprintf(stderr, "\n");
            }
            n.A.assign(altJ_.begin(), altJ_.end());
            n.choose = true;
            n.e = nullptr;
            continue;
        }
        popNode();
    }

    if (unsupported_) {
        // A limit of this explorer, not a property of the program: no verdict (check() may fall back to dfs).
        result_.explorerLimit = *unsupported_;
        result_.stoppedEarly = true;
        result_.bounds.push_back({"qpor: " + *unsupported_});
    }
    runs_.addBoundsTo(result_);
    if (stop_ && (errors_.limitReached() || opts_.stopOnFirstError)) result_.stoppedEarly = true;
    phase_.enter(PhaseClock::Other); // closes the last phase
    st.elapsedMs = clock_.elapsedMs();
    st.peakRssKb = currentPeakRssKb();
    st.finalStates = finals_.size();
    // An attempt that is started over is thrown away: its counters (a few dozen map insertions, ~18 k instructions,
    // a twentieth of a small exploration with restarts) are made only if explore() keeps it (addCounters).
    if (!footprintGrew_) {
        reportCounters(st);
        result_.errors = errors_.take();
    }
    result_.verdict = report::computeVerdict(result_);
    return std::move(result_);
}

report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs) {
    auto k = parseAltMode(opts.alt);
    // Each restart follows a section whose footprint grew or that showed several runs (Sections.cpp): at most
    // twice per resource a section can touch, in practice once or twice. Restarts after a segment cut (Segments.h)
    // are bounded there, and not counted here.
    constexpr int kMaxRestarts = 64;
    const auto start = std::chrono::steady_clock::now();
    QporExplorer::Carried carried(p, opts, obs);
    Segments& segments = carried.segments;
    for (int sectionRestarts = 0, attempt = 0;; ++attempt) {
        // The attempts before this one were started over (their teardown too): their time is ms_restarted.
        const auto attemptStart = attempt == 0 ? start : std::chrono::steady_clock::now();
        segments.startExploration();
        carried.errors.startOver(); // each error counts the executions of the attempt kept that meet it
        QporExplorer x(p, opts, obs, k.value_or(0), carried, start, attemptStart, sectionRestarts);
        report::CheckResult r = x.run();
        r.algorithm = "qpor";
        // An attempt kept although a site learned more: run() left its counters and errors out.
        auto keep = [&](report::CheckResult& kept) {
            x.addCounters(kept);
            kept.errors = carried.errors.take();
            kept.verdict = report::computeVerdict(kept);
        };
        // An attempt the budget, a cancellation or the error limit stopped is the answer, partial as it is: starting
        // over would find less in what is left (the budget covers every attempt).
        RunClock clock(opts, start);
        const bool spent = x.footprintGrew() && !r.stoppedEarly && clock.shouldStop();
        if (spent) { // no time left to start over in: this attempt's errors, bounded
            r.bounds.push_back({opts.cancelled && opts.cancelled() ? "cancelled" : "time budget reached (--time-limit)"});
            r.stoppedEarly = true;
        }
        if (!x.footprintGrew()) return r; // (the segments' counters: reportCounters)
        if (r.stoppedEarly) {
            keep(r);
            return r;
        }
        if (segments.restart()) {
            carried.sections.clear(); // their footprints name resources that are now cut
            continue;
        }
        if (sectionRestarts++ == kMaxRestarts) {
            r.explorerLimit = "the footprints of the atomic sections kept growing";
            r.bounds.push_back({"qpor: " + *r.explorerLimit});
            keep(r);
            return r;
        }
    }
}

} // namespace skein::explore::unfolding
