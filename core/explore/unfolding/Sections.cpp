// SV-COMP atomic sections in the unfolding (DESIGN.md "Atomic sections"). A section runs without interruption, so
// it is one action (a macro event) whose accesses are the union of its steps'. Two things vary with the state it
// starts in, and both are handled here:
//  - what it touches: every section start (source location) has a footprint, the union of the accesses of all its
//    runs seen so far; while its runs all touch all of it, its events are made with it, and once they differ each
//    event has its own run's accesses, the footprint only enumerating where the action may be placed
//    (SectionSite::runAccesses); when a run touches more, the exploration starts over (explore()), since events made
//    with the smaller footprint may lack placements;
//  - how many runs it has (nondet values inside): each run is an outcome of the action, named by the outcomes of
//    its steps (interned: `choice` = 1 + the run's number; 0 when the section has one run there). Where such a
//    section is placed without being run (a conflicting extension), its history is replayed on a scratch executor
//    to find the runs it has there;
//  - whether it can run at all: a run that blocks midway (an assume, a condition wait, a lock held by another
//    thread inside it) leaves the execution no way on, so a section that blocks at some history is placed by replay
//    as well — at a history where every run blocks it is no event (an event of the paper is enabled at its history;
//    one that is not would only ever lead to sleep-set blocked explorations).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

namespace {
// A section with more runs than this is left to dfs (the default check falls back to it): the runs of one action are
// siblings in conflict, and the comb's work per alternative grows with them — 2^10 runs took 45 s where dfs takes
// 16 ms, 2^11 seven minutes against 38 ms (measured 2026-11-25 with the cap lifted).
constexpr size_t kMaxRuns = 4096;

// Whether a section's event, which carries its site's footprint (the union of the runs' accesses, each resource with
// its strongest mode), touches more than run `run` did: a resource the run left alone, or a write where it only
// read. Either is a coarser independence than dfs's (sections_widened). The footprint holds every resource of the
// run, so equal sizes mean equal resources, and then equal numbers of writes mean equal modes. (Comparing sizes
// alone missed a section that writes a word in one run and fails before writing it in another: its failed run's
// event kept the write, ordered it against another thread's read, and optimal explored one trace twice.)
bool widens(const std::vector<Access>& run, const std::vector<Access>& footprint) {
    auto writes = [](const std::vector<Access>& v) {
        return std::count_if(v.begin(), v.end(), [](const Access& a) { return a.mode != Mode::Read; });
    };
    return run.size() != footprint.size() || writes(run) != writes(footprint);
}

// The union of accesses in `into`, one per resource with the strongest mode, in the order first seen. Past a few
// entries it is indexed by resource: a section that memsets a buffer has an access per word of it, and a scan of
// the union per access made a 64 KB memset inside a section take 1.9 s (dfs: 0.16 s) and quadratically more beyond.
class AccessUnion {
public:
    explicit AccessUnion(std::vector<Access>& into) : into_(into) {}
    // Adds a; true when the union changed.
    bool add(const Access& a) {
        Access* same = find(a.res);
        if (!same) {
            if (!at_.empty()) at_.emplace(a.res, into_.size());
            into_.push_back(a);
            return true;
        }
        if (a.mode == Mode::Read || same->mode != Mode::Read) return false;
        same->mode = a.mode;
        return true;
    }

private:
    static constexpr size_t kScan = 16; // up to this many entries a scan is cheaper than building the index
    Access* find(const Resource& r) {
        if (at_.empty() && into_.size() <= kScan) {
            auto it = std::find_if(into_.begin(), into_.end(), [&](const Access& b) { return b.res == r; });
            return it == into_.end() ? nullptr : &*it;
        }
        if (at_.empty())
            for (size_t i = 0; i < into_.size(); ++i) at_.emplace(into_[i].res, i);
        auto it = at_.find(r);
        return it == at_.end() ? nullptr : &into_[it->second];
    }
    std::vector<Access>& into_;
    std::unordered_map<Resource, size_t, ResourceHash> at_; // resource → its entry; empty until needed
};
} // namespace

QporExplorer::SectionRuns QporExplorer::sectionRunsAt(const exec::Executor& from, ThreadId t) {
    SectionRuns out;
    std::vector<uint32_t> choices;
    std::vector<model::Event> events;
    // A step's accesses as it ran: a compare-exchange that failed wrote nothing, so it read its words (C11: a load),
    // as model::dependent takes it. The footprint then holds a write only where some run's compare-exchange
    // succeeded — a site whose runs all fail is a reader there (before, every compare-exchange in a section was a
    // write, and three threads failing one in a section took 6 executions for dfs's 1 trace). A run that succeeds
    // where the footprint says read grows it, and the exploration starts over (observeSite), as for any access.
    std::vector<Access> stepAccesses; // (one buffer for the probe's steps)
    auto addExecuted = [&](AccessUnion& into, const model::Event& ev) {
        if (ev.isSyncObjectOp()) unsupported_ = kSyncWritten; // (not its label)
        accessesInto(ev, stepAccesses);
        for (Access a : stepAccesses) {
            if (ev.kind == EventKind::Rmw && !ev.rmwWrote) a.mode = Mode::Read;
            into.add(a);
        }
    };
    // The values this path read from the state it started in (a byte it wrote before is its own): with the same
    // values there, it runs the same. A join that completed is an input too (size 0, the joined thread's id): it
    // completes wherever that thread can be joined, with the same return value (Executor::joinResult); so is the
    // state of a mutex it locks, unlocks or waits with (noteMutexInput), and the state of an object it frees
    // (Executor::objectState: whether it is alive, its size; a path stopped by a free that failed — a double free —
    // is known by it too). Anything else it does with other threads' objects — a realloc, a copy or a library
    // function's access — leaves the inputs unknown (SectionRuns::inputsKnown), and so does a path stopped by any
    // other error or a bound: a read of a freed object fails with no value (it was taken for a read of 0, and a
    // state where the read succeeds got the failed run: QporSections.AFailedRunThatWritesLessReadsOnly).
    // A mutex operation answers from the mutex's state (Executor::mutexInput): an input too, unless an earlier step
    // of this path (before step `before`) operated on that mutex — then the path itself set what it finds.
    // Each input once (by place and kind): a path that reads a word twice before writing it read one value.
    auto addInput = [&](uint64_t addr, uint32_t size, uint64_t value) {
        auto same = [&](const WordWrite& w) { return w.addr == addr && w.size == size; };
        if (std::none_of(out.inputs.begin(), out.inputs.end(), same)) out.inputs.push_back({addr, size, value});
    };
    auto mutexOf = [](const model::Event& ev) { return ev.kind == EventKind::CondWait ? ev.addr2 : ev.addr; };
    auto noteMutexInput = [&](uint64_t m, size_t before) {
        for (size_t j = 0; j < before; ++j)
            if (events[j].isMutexOp() && mutexOf(events[j]) == m) return;
        const std::optional<uint64_t> state = from.mutexInput(m);
        if (!state) {
            out.inputsKnown = false;
            return;
        }
        addInput(m, kMutexInput, *state);
    };
    auto frees = [](const model::Event& ev) { return ev.kind == EventKind::Free && !ev.value2; }; // (not a realloc)
    auto noteInputs = [&](const exec::Executor& end) {
        const bool stopped = end.thread(t).state == exec::ThreadState::Stopped && !end.wasCut(t);
        if (stopped && (events.empty() || !frees(events.back()))) out.inputsKnown = false;
        for (const model::Event& ev : events)
            if (ev.kind != EventKind::Write && ev.kind != EventKind::Fence) out.onlyStores = false;
        for (size_t i = 0; i < events.size() && out.inputsKnown; ++i) {
            const model::Event& ev = events[i];
            if (ev.kind == EventKind::Write || ev.kind == EventKind::Nondet || ev.kind == EventKind::Fence) continue;
            if (ev.isMutexOp()) {
                noteMutexInput(mutexOf(ev), i);
                continue;
            }
            if (frees(ev)) {
                const uint32_t object = program::pointerObject(ev.addr);
                addInput(object, kObjectInput, from.objectState(object));
                continue;
            }
            if (ev.kind == EventKind::ThreadJoin) { // (the thread it joins ran before: nothing else ran since)
                const std::optional<uint64_t> result = from.joinResult(ThreadId(ev.value));
                if (!result) {
                    out.inputsKnown = false;
                    break;
                }
                out.inputs.push_back({ev.value, 0, *result});
                continue;
            }
            if ((ev.kind != EventKind::Read && ev.kind != EventKind::Rmw) || ev.builtin || ev.size2 || ev.size == 0 ||
                ev.size > 8) {
                out.inputsKnown = false;
                break;
            }
            uint32_t own = 0; // bytes of the read this path wrote before it
            for (uint64_t a = ev.addr; a < ev.addr + ev.size; ++a)
                for (size_t j = 0; j < i; ++j)
                    if (auto [lo, hi] = events[j].writeRange(); lo <= a && a < hi) {
                        ++own;
                        break;
                    }
            if (own == ev.size) continue;
            if (own != 0) {
                out.inputsKnown = false;
                break;
            }
            addInput(ev.addr, ev.size, ev.value);
        }
    };
    // Depth first over the outcomes of each step; the last outcome reuses the copy of the state.
    auto run = [&](auto& self, std::unique_ptr<exec::Executor> probe) -> void {
        uint32_t n = probe->thread(t).choices;
        for (uint32_t c = 0; c < n && !out.error; ++c) {
            std::unique_ptr<exec::Executor> p = c + 1 < n ? probeOf(*probe) : std::move(probe);
            choices.push_back(c);
            events.push_back(p->step(t, c));
            if (p->exclusiveThread() == t && p->enabled(t)) {
                self(self, std::move(p));
            } else if (p->exclusiveThread() != t) { // the section ended (or the thread stopped in it)
                noteInputs(*p);
                SectionRun r;
                r.choices = choices;
                AccessUnion accesses(r.accesses);
                std::vector<std::pair<uint64_t, bool>> taken; // mutex → held after the run's last operation on it
                auto set = [&](uint64_t m, bool held) {
                    auto it = std::find_if(taken.begin(), taken.end(), [&](const auto& x) { return x.first == m; });
                    if (it == taken.end()) taken.push_back({m, held});
                    else it->second = held;
                };
                for (const model::Event& ev : events) {
                    if (ev.kind == EventKind::CondWait) {
                        out.error = "condition waits inside an SV-COMP atomic section are not supported by qpor yet";
                        break;
                    }
                    if (ev.kind == EventKind::ThreadJoin) r.joins.push_back(ThreadId(ev.value));
                    if (ev.kind == EventKind::Lock || (ev.kind == EventKind::TryLock && ev.value)) set(ev.addr, true);
                    if (ev.kind == EventKind::Unlock) set(ev.addr, false);
                    addExecuted(accesses, ev);
                }
                r.holdsMutex = std::any_of(taken.begin(), taken.end(), [](const auto& x) { return x.second; });
                r.reads = std::any_of(events.begin(), events.end(), [](const model::Event& ev) {
                    return ev.kind == EventKind::Read || ev.kind == EventKind::Rmw || ev.kind == EventKind::Copy ||
                           ev.kind == EventKind::TryLock;
                });
                // The values it leaves: a plain store's or a read-modify-write's, dropped where a later write —
                // any other kind, a library function's, a partial one — overlaps them.
                for (const model::Event& ev : events) {
                    auto [lo, hi] = ev.writeRange();
                    if (lo >= hi) continue;
                    std::erase_if(r.writes, [&](const WordWrite& w) { return w.addr < hi && lo < w.addr + w.size; });
                    if (ev.builtin) continue;
                    if (ev.kind == EventKind::Write) r.writes.push_back({ev.addr, ev.size, ev.value});
                    else if (ev.kind == EventKind::Rmw && ev.rmwWrote)
                        r.writes.push_back({ev.addr, ev.size, ev.value2});
                }
                out.runs.push_back(std::move(r));
                if (out.runs.size() > kMaxRuns)
                    out.error = "an SV-COMP atomic section with more than 4096 nondeterministic runs";
            } else { // blocks midway: no run from this state, but what it touched is part of the footprint
                out.blocked = true;
                // (stopped: a failed assume, decided by what it read; else it waits for another thread)
                // Where it waits is decided by its inputs too when it waits in a cond_wait (inside a section no other
                // thread runs to signal it), for a mutex (busy in the state it started in: an input) or in a join
                // (the joined thread had not ended there: Executor::joinState, an input — join_in_section.c's main,
                // probed again at every C before the child ended), not for a semaphore
                // (section_blocks_after_exit.c's waiter: its probe at the next C was taken from probeCache_).
                if (p->thread(t).state != exec::ThreadState::Stopped) {
                    out.waitsOnThreads = true;
                    const bool inCondWait = !events.empty() && events.back().kind == EventKind::CondWait;
                    const model::Event& waits = p->thread(t).pending;
                    if (!inCondWait && waits.kind == EventKind::Lock) {
                        noteMutexInput(waits.addr, events.size());
                    } else if (!inCondWait && waits.kind == EventKind::ThreadJoin) {
                        // (A path that joined the thread before fails at this join instead of waiting.)
                        addInput(waits.value, kJoinWaitInput, from.joinState(ThreadId(waits.value)));
                    } else if (!inCondWait) {
                        out.inputsKnown = false;
                    }
                }
                noteInputs(*p);
                AccessUnion accesses(out.blockedAccesses);
                for (const model::Event& ev : events) addExecuted(accesses, ev);
            }
            keepProbe(std::move(p)); // (moved on already when the section went on)
            choices.pop_back();
            events.pop_back();
        }
        keepProbe(std::move(probe)); // a loop cut short by an error never took it
    };
    run(run, probeOf(from));
    sectionRuns_ += out.runs.size();
    return out;
}

// Records the runs seen at a section start; false when the site changed after events were made for it (a larger
// footprint, or several runs where there had been one): the exploration must start over.
bool QporExplorer::observeSite(uint32_t loc, const SectionRuns& runs, bool mayBlockToo) {
    SectionSite& site = (*sections_)[loc];
    bool changed = false;         // placements or events made with the old knowledge may be wrong
    bool accessesChanged = false; // ... only where the site's runs depend on the history (below)
    const bool runsBefore = !site.footprint.empty(); // some run (or a blocked one's start) was seen before these
    AccessUnion footprint(site.footprint);
    for (const SectionRun& r : runs.runs)
        for (const Access& a : r.accesses) accessesChanged |= footprint.add(a);
    // A run that blocks midway touched these before it blocked: at another history it may get past that point.
    for (const Access& a : runs.blockedAccesses) accessesChanged |= footprint.add(a);
    if (runs.runs.size() > 1 && !site.severalRuns) {
        site.severalRuns = true;
        changed = true;
    }
    site.waitsOnThreads = site.waitsOnThreads || runs.waitsOnThreads; // (restricts reuse only: no restart)
    const bool blocked = runs.blocked || mayBlockToo;
    site.onlyStores = site.onlyStores && runs.onlyStores && runs.runs.size() == 1 && !blocked; // (probeKey)
    if (blocked && !site.mayBlock) {
        site.mayBlock = true;
        changed = true;
    }
    // A site that starts to read changes how its events are made only where its runs differ (variesByHistory).
    auto reads = [](const SectionRun& r) { return r.reads; };
    bool learned = false; // something changed that need not start the exploration over
    if (!site.runsRead && std::any_of(runs.runs.begin(), runs.runs.end(), reads)) {
        site.runsRead = true;
        learned = true;
        changed = changed || site.runAccesses;
    }
    // Runs that differ — in what they touch (`if (x == 0) x = 1;`, `if (c) x = 1; else y = 1;`, a lock taken in one
    // run only) or in number (a nondet value inside): from now on each event has exactly its own run's accesses
    // (runAccessesOf), a function of its history's parents as a compare-exchange's outcome is, and where the runs
    // read, its siblings are placed by replay.
    // A larger footprint makes the runs seen before narrower too (they lacked what these added): until the
    // thirty-ninth session only these runs were compared with it, and a site that learned `y = y + 1` (after `x`
    // changed) from its look ahead before any event was made kept the footprint on every event, until a run
    // without it came again and started the exploration over (nondet_section_loop.c).
    auto narrower = [&](const SectionRun& r) { return widens(r.accesses, site.footprint); };
    if (!site.runAccesses && (site.severalRuns || (runsBefore && accessesChanged) ||
                              std::any_of(runs.runs.begin(), runs.runs.end(), narrower))) {
        site.runAccesses = true;
        accessesChanged = true;
    }
    for (const SectionRun& r : runs.runs)
        if (r.holdsMutex && !site.holdsMutex) {
            site.holdsMutex = true; // placements made as if it released its mutexes may not exist
            changed = true;
        }
    // A site whose runs neither read memory nor try a lock, with one run that never blocks, has the same run wherever
    // its thread is at the same point (a section in a loop writing x[i]: one run per iteration, whatever the history):
    // every event made for it had exactly its run's accesses (while the runs matched the footprint, the footprint was
    // the run's; after, runAccessesOf) and was placed as a plain event (not by replay: sectionPlacedByReplay). A
    // larger footprint, or runs that differ from one another, leave those events and placements as they are, so the
    // exploration goes on: section_snapshot.c's writer, whose site learns a word per iteration, started over 22 times.
    const bool sameRunAtEveryHistory = !site.runsRead && !site.severalRuns && !site.mayBlock;
    if (accessesChanged && sameRunAtEveryHistory) learned = true;
    else changed = changed || accessesChanged;
    if (changed || learned) ++sectionsVersion_; // what was made with the old knowledge is made again
    bool restart = changed && site.used;
    if (restart) footprintGrew_ = true; // run() stops; explore() starts over
    return !restart;
}

uint32_t QporExplorer::runChoice(const SectionRuns& runs, const SectionRun& r) {
    // 0: the section's one run, taking the first outcome at every step (executed as a plain section). A single run
    // that takes another outcome somewhere (the others block) is named like any run.
    if (runs.runs.size() == 1 && std::all_of(r.choices.begin(), r.choices.end(), [](uint32_t c) { return c == 0; }))
        return 0;
    auto [it, inserted] = runIds_.emplace(r.choices, uint32_t(runSteps_.size()));
    if (inserted) runSteps_.push_back(r.choices);
    return it->second + 1;
}

const std::vector<uint32_t>* QporExplorer::runOf(const UEvent* e) const {
    return e->section && e->choice ? &runSteps_[e->choice - 1] : nullptr;
}

bool QporExplorer::sectionPlacedByReplay(const UEvent& like) const {
    auto it = sections_->find(like.label.loc);
    return it != sections_->end() && (it->second.mayBlock || it->second.variesByHistory());
}

// A run's accesses as its event has them at a site whose runs differ (SectionSite::runAccesses): the run's own, in
// the footprint's order. A word or mutex it leaves alone is no access — where it once was a read of the word, which
// ordered the event against that word's writes as if the run had read it (more executions than dfs's traces:
// `sections_widened`) — so its siblings that touch the word are not found through the word's trees: each new event
// of C that touches it has them placed after it (siblingsAfterNewAccess).
void QporExplorer::runAccessesOf(const SectionRun& r, const SectionSite& site, std::vector<Access>& out) const {
    out.clear();
    for (const Access& a : site.footprint) {
        auto own = std::find_if(r.accesses.begin(), r.accesses.end(), [&](const Access& b) { return b.res == a.res; });
        if (own == r.accesses.end()) continue;
        out.push_back(a);
        out.back().mode = own->mode;
    }
}

bool QporExplorer::hasRunAccesses(const UEvent& e) const {
    if (!e.section) return false;
    auto it = sections_->find(e.label.loc);
    return it != sections_->end() && it->second.runAccesses && it->second.variesByHistory();
}

// An event of a site whose runs differ has its own run's accesses; its placements are walked from the site's
// footprint (each resource with its strongest mode: a write's candidates include a read's, which runSpecAt keeps the
// read's part of), each candidate replayed (sectionPlacements). A resource e has keeps e's parent; one it leaves
// alone takes the last node of C's tree that does not follow e — its siblings may be placed after the events of C
// that e runs beside, and the walk goes down from there. Its causes are e's: the readers that precede e's writes are
// the original placement's.
void QporExplorer::footprintLike(const UEvent& e, UEvent& like) const {
    like.thread = e.thread;
    like.choice = e.choice;
    like.label = e.label;
    like.pt = e.pt;
    like.causes.assign(e.causes.begin(), e.causes.end());
    like.baseCauses = e.baseCauses;
    like.section = true;
    like.sectionRuns = e.sectionRuns;
    like.accesses = sections_->at(e.label.loc).footprint;
    for (Access& a : like.accesses) {
        const Access* own = e.access(a.res);
        a.parent = own ? own->parent : treeMaxBeside(e, a.res);
    }
}

// The last node of resource r's tree in C that does not follow e: the nodes of C's chain that follow e are its end.
UEvent* QporExplorer::treeMaxBeside(const UEvent& e, const Resource& r) const {
    UEvent* m = F_.treeMax(r);
    while (m && es_.leq(&e, m)) m = ownerOf(m->access(r)->node.parent);
    return m;
}

// The event of run `r` at the history [preds], for a site whose runs differ: the run's accesses (runAccessesOf) with
// their parents there, and before each write the last read of its parent by every other thread — the history
// eventFor gives it when [preds] is C, and nothing of [preds] beyond it (the placement walk's anchors and readers
// chose [preds] for the footprint's writes; a run that reads a word has no readers before it there, the same event
// for several candidates). The run is the same at that history: it reads only its accesses' parents' values.
// `s` holds the base causes (baseCauses of them) on entry.
void QporExplorer::runSpecAt(const SectionRun& r, std::span<UEvent* const> preds, EventSpec& s) const {
    s.causes.resize(s.baseCauses);
    runAccessesOf(r, sections_->at(s.label.loc), s.accesses);
    size_t threads = 0;
    for (const UEvent* p : preds)
        if (p) threads = std::max(threads, p->summary.tmax().size());
    for (Access& a : s.accesses) a.parent = es_.treeMaxOf(preds, a.res);
    for (const Access& a : s.accesses) {
        if (a.mode != Mode::Write) continue;
        for (ThreadId u = 0; u < threads; ++u) {
            if (u == s.thread) continue;
            UEvent* last = es_.lastReadOf(preds, a.res, u);
            if (last && last->access(a.res)->parent == a.parent &&
                std::find(s.causes.begin() + s.baseCauses, s.causes.end(), last) == s.causes.end())
                s.causes.push_back(last);
        }
    }
}

// Thread t's section starting in `at` — C's state, or one where other threads went on from C (lookAheadOfSite),
// where t's own state is still C's: its runs kept from an earlier probe (probeCache_), or probed now into `probed`
// (and kept when their inputs are known).
const QporExplorer::SectionRuns& QporExplorer::sectionRunsIn(const exec::Executor& at, ThreadId t,
                                                             SectionRuns& probed) {
    // Its thread's own state is fixed by pt and its pending causes — its create, the joins it took since (a join
    // inside is an input: its result). (A waker, where pt is a wait, only makes the key more particular than
    // eventFor's.)
    UEvent* const pt = F_.threadMax(t);
    std::vector<UEvent*>& base = pendingCausesScratch_;
    pendingCausesInto(t, pt, base);
    const std::vector<uint64_t>& key = probeKey(t, ex_.thread(t).pending, pt, base);
    auto peek = [&](uint64_t addr, uint32_t size) { return inputIn(at, addr, size); };
    if (const SectionRuns* cached = cachedSectionRuns(key, peek)) return *cached;
    if (&at == &ex_)
        for (auto& [u, runs] : lookaheadRuns_)
            if (u == t) { // probed at this C already (lookAheadOfSite), not kept
                probed = std::move(runs);
                u = model::kNoThread;
                return probed;
            }
    probed = sectionRunsAt(at, t);
    return keepSectionRuns(key, probed);
}

std::vector<UEvent*> QporExplorer::atomicSectionEvents(ThreadId t) {
    std::vector<UEvent*> out;
    SectionRuns probed;
    const SectionRuns& runs = sectionRunsIn(ex_, t, probed);
    if (runs.error) {
        unsupported_ = runs.error;
        return out;
    }
    const model::Event& pending = ex_.thread(t).pending;
    // A section that starts with a lock cannot start at a history where the mutex is held: it may block as well.
    // (One that starts with a join has the joined thread's end among its causes: it can start wherever placed.)
    const bool startsBlocking = pending.kind == EventKind::Lock || pending.kind == EventKind::CondWait;
    if (!observeSite(pending.loc, runs, startsBlocking)) return out;
    if (!lookAheadOfSite(t, startsBlocking)) return out;
    if (runs.runs.empty()) return out; // every run blocks midway: the section cannot start now
    SectionSite& site = (*sections_)[pending.loc];
    site.used = true;
    for (const SectionRun& r : runs.runs) {
        std::vector<Access>& own = runAccessScratch_;
        if (site.runAccesses) runAccessesOf(r, site, own);
        else if (widens(r.accesses, site.footprint)) sectionsWidened_ = true;
        UEvent* e = eventFor(t, runChoice(runs, r), pending, site.runAccesses ? &own : &site.footprint, &r.joins);
        hasRunAccessSites_ = hasRunAccessSites_ || (site.runAccesses && site.variesByHistory());
        e->section = true;
        e->sectionRuns = site.severalRuns;
        noteSectionWrites(e, r);
        out.push_back(e);
    }
    return out;
}

// A thread blocked on the acquire that starts an atomic section (blockedPlacements): its section is placed at the
// histories where the mutex is free, by replay (the site may block). Its footprint may be unknown — the section
// never ran — or grow: it is run once at the history [pt(like)] ∪ causes ∪ [earlier] and the site observed.
// `like.accesses` becomes the footprint (empty while no run is known). False when the exploration must stop.
bool QporExplorer::learnBlockedSection(UEvent& like, UEvent* earlier) {
    std::vector<UEvent*> preds(like.causes.begin(), like.causes.begin() + like.baseCauses);
    if (like.pt) preds.push_back(like.pt);
    if (earlier) preds.push_back(earlier);
    ensureScratch();
    SectionRuns runs;
    if (replayHistory(preds, *scratch_) && like.thread < scratch_->numThreads() && scratch_->enabled(like.thread) &&
        scratch_->inAtomicSection(like.thread))
        runs = sectionRunsAt(*scratch_, like.thread);
    if (runs.error) {
        unsupported_ = runs.error;
        return false;
    }
    runs.blocked = true; // it starts with an acquire
    if (!observeSite(like.label.loc, runs)) return false;
    like.accesses = (*sections_)[like.label.loc].footprint;
    return true;
}

// A thread inside an atomic section with no event at C — every run blocks midway (an assume, a wait, a lock taken
// inside), or its first step is an acquire of a busy mutex — may have one at an earlier history, where what it
// reads or locks was different: those histories are conflicting extensions of C (the section's action placed
// earlier, as for an executed event: earlierPlacements). The action is described by the site's footprint with
// the current parents, never registered; each placement is replayed (the site may block) and made only where a
// run completes.
void QporExplorer::sectionPlacementsWithoutEvent(ThreadId t) {
    const model::Event& pending = ex_.thread(t).pending;
    SectionRuns blocks;
    blocks.blocked = true;
    if (!observeSite(pending.loc, blocks)) return; // placed by replay from now on
    const SectionSite& site = (*sections_)[pending.loc];
    if (site.footprint.empty()) return;
    UEvent like;
    like.thread = t;
    like.label = pending;
    like.label.tid = t;
    like.pt = F_.threadMax(t);
    const std::vector<UEvent*> causes = pendingCauses(t, like.pt);
    like.causes.assign(causes.begin(), causes.end());
    like.baseCauses = uint32_t(like.causes.size());
    like.section = true;
    like.sectionRuns = site.severalRuns;
    like.accesses = site.footprint;
    for (Access& a : like.accesses) a.parent = F_.treeMax(a.res);
    earlierPlacements(&like);
}

// A maximal configuration where a thread could still enter an atomic section all of whose runs block midway: the
// executor's execution goes on into the section until it blocks, as dfs's does; when the program has exited by
// then (main returned), that is a complete execution, whose final memory is one of the program's final states.
// Every way into the section (its steps' outcomes) may block with a different memory. True when one of them is such
// a complete execution.
// The execution is over (recordMaximal has taken its errors, races and schedule), so the walk steps ex_ itself on
// each step's last outcome, and a copy only for the others: the copies and the clones behind them were half of
// section_blocks_after_exit.c's exploration. ex_ no longer shows the stack's prefix afterwards (exDepth_ says so).
bool QporExplorer::blockedSectionFinals() {
    std::vector<ThreadId> waiting;
    for (ThreadId t = 0; t < ex_.numThreads(); ++t)
        if (ex_.enabled(t) && ex_.inAtomicSection(t)) waiting.push_back(t);
    if (waiting.empty()) return false;
    bool complete = false;
    for (size_t i = 0; i < waiting.size(); ++i) {
        const ThreadId t = waiting[i];
        // From `at`, whose state the walk may change (it is a copy, or ex_ for the last thread).
        auto walk = [&](auto& self, exec::Executor& at) -> void {
            const uint32_t n = at.thread(t).choices;
            for (uint32_t c = 0; c < n; ++c) {
                std::unique_ptr<exec::Executor> copy = c + 1 < n ? probeOf(at) : nullptr;
                exec::Executor& p = copy ? *copy : at;
                p.step(t, c);
                runs_.noteSampled(p); // (a nondet value drawn from a sampled domain bounds the verdict, as in dfs)
                if (p.exclusiveThread() == t) { // else a run: it has an event, not this case
                    if (p.enabled(t)) self(self, p);
                    else if (p.status() == exec::ExecStatus::Finished) {
                        finals_.insert(p.finalStateHash());
                        complete = true;
                    }
                }
                keepProbe(std::move(copy));
            }
        };
        if (i + 1 < waiting.size()) {
            std::unique_ptr<exec::Executor> copy = probeOf(ex_);
            walk(walk, *copy);
            keepProbe(std::move(copy));
        } else {
            exDepth_ = kNoDepth;
            walk(walk, ex_);
        }
    }
    return complete;
}

// Brings `into` to the state after the history [preds]: its events in a causal order, each with its outcomes.
// `endOf`, when given, receives for every thread the maximal events of its history there: its last event (for a
// thread with none, its creator's), and the ends of the threads it joined since — what a join of that thread
// follows (historyEndOf).
bool QporExplorer::replayHistory(std::span<UEvent* const> preds, exec::Executor& into,
                                 std::vector<std::vector<UEvent*>>* endOf) {
    std::vector<UEvent*> order;
    std::unordered_set<UEvent*> seen;
    std::vector<std::pair<UEvent*, bool>> work;
    for (UEvent* p : preds) work.push_back({p, false});
    while (!work.empty()) { // post-order: an event after its predecessors
        auto [x, expanded] = work.back();
        work.pop_back();
        if (expanded) {
            order.push_back(x);
            continue;
        }
        if (!x || !seen.insert(x).second) continue;
        work.push_back({x, true});
        forEachPredecessor(*x, [&](UEvent* q) {
            if (!seen.count(q)) work.push_back({q, false});
            return true;
        });
    }
    if (endOf)
        for (auto& v : *endOf) v.clear(); // (kept: their capacity)
    auto slot = [&](ThreadId t) -> std::vector<UEvent*>& {
        if (endOf->size() <= t) endOf->resize(t + 1);
        return (*endOf)[t];
    };
    auto note = [&](UEvent* x, const model::Event& ev) { // x's step (of its run) was ev
        if (!endOf) return;
        slot(x->thread).assign(1, x);
        if (ev.kind == EventKind::ThreadCreate) slot(ThreadId(ev.value)).assign(1, x);
    };
    // Joins, exits and creates are not events (QporExplorer::autoSteps): whatever of them is enabled before each event
    // of the history and after the last is taken, as the explorer takes them as soon as they are (the event's thread
    // may be one created so, or wait in a join for a thread that only joins its own child: until the twenty-first
    // session only the event's own thread took its joins, and such a thread never ended).
    // A thread created so starts where its creator is (autoStep); a join adds the joined thread's end (noteJoin).
    auto autoSteps = [&] {
        for (bool progress = true; progress;) {
            progress = false;
            for (ThreadId u = 0; u < into.numThreads(); ++u) {
                const EventKind k = into.thread(u).pending.kind;
                if (!into.enabled(u) || into.inAtomicSection(u) || !takenAtOnce(k)) continue;
                const model::Event& ev = into.step(u, 0);
                if (endOf && ev.kind == EventKind::ThreadCreate) {
                    std::vector<UEvent*> creator = slot(u); // (a copy: the child's slot may move the vector)
                    slot(ThreadId(ev.value)) = std::move(creator);
                } else if (endOf && ev.kind == EventKind::ThreadJoin) {
                    std::vector<UEvent*> joined = slot(ThreadId(ev.value));
                    for (UEvent* y : joined) addOnce(slot(u), y);
                }
                progress = true;
            }
        }
    };
    // Before the first event the steps taken at once are the same for every history (main's creates: each child's
    // end is its creator's, none), so the state after them is kept and restored.
    if (replayRoot_) {
        into.copyStateFrom(*replayRoot_);
    } else {
        into.reset();
        autoSteps();
        replayRoot_ = into.clone();
    }
    for (UEvent* x : order) {
        autoSteps();
        if (x->thread >= into.numThreads() || !into.enabled(x->thread) ||
            into.thread(x->thread).pending.kind != x->label.kind)
            return false;
        const std::vector<uint32_t>* run = runOf(x);
        note(x, into.step(x->thread, run ? (*run)[0] : x->choice));
        for (size_t i = 1; into.exclusiveThread() == x->thread && into.enabled(x->thread); ++i)
            note(x, into.step(x->thread, run && i < run->size() ? (*run)[i] : 0));
    }
    autoSteps();
    return true;
}

// A section with several runs, or one that may block, placed at the history [preds] (spec names it, with `like`'s
// run): every run it has there, each an event with the site's footprint — none when every run blocks there.
void QporExplorer::sectionPlacements(const UEvent& like, const EventSpec& spec, std::span<UEvent* const> preds) {
    // Made already at this history, with these causes and accesses (a sibling's placement: another run of the same
    // section at the same history): the same runs, the same events, still in U. By event ids, never reused.
    if (sectionPlacementsVersion_ != sectionsVersion_) {
        sectionPlacementsMade_.clear();
        sectionPlacementsVersion_ = sectionsVersion_;
    }
    std::vector<uint64_t>& key = sectionKeyScratch_;
    auto id = [](const UEvent* e) { return e ? e->id + 1 : 0; };
    key.assign({like.thread, like.label.loc, id(spec.pt), spec.baseCauses, spec.causes.size()});
    for (const UEvent* c : spec.causes) key.push_back(id(c));
    for (const Access& a : spec.accesses) key.insert(key.end(), {a.res.key, uint64_t(a.mode), id(a.parent)});
    const size_t predsAt = key.size();
    for (const UEvent* p : preds) key.push_back(id(p));
    std::sort(key.begin() + predsAt, key.end());
    if (sectionPlacementsMade_.contains(key)) return;
    std::vector<uint64_t> made = key;
    sectionPlacementsAt(like, spec, preds);
    if (!footprintGrew_ && !unsupported_ && sectionPlacementsVersion_ == sectionsVersion_)
        sectionPlacementsMade_.insert(std::move(made));
}

void QporExplorer::sectionPlacementsAt(const UEvent& like, const EventSpec& spec, std::span<UEvent* const> preds) {
    // The values at the history [preds]: each word's latest write there (its tree's maximum) tells them, as for a
    // compare-exchange (bytesAfter) — where it does not (a copy's, a free's, a segment's), the history is replayed.
    const std::vector<uint64_t>& key = probeKey(like.thread, like.label, spec.pt,
                                                std::span(spec.causes.data(), spec.baseCauses));
    // (A join's, a mutex's or an object's input — whether the join completes or waits, the mutex is free or the
    // object alive — is the replay's.)
    auto valueAt = [&](uint64_t addr, uint32_t size) {
        return valueAfter(addr, size, [&](const Resource& r) -> std::optional<const UEvent*> {
            return es_.treeMaxOf(preds, r);
        });
    };
    const SectionRuns* cached = cachedSectionRuns(key, valueAt);
    std::vector<std::vector<UEvent*>>& endOf = replayEnds_;
    SectionRuns probed;
    if (!cached) {
        const std::vector<uint64_t> keep = key; // (the scratch key is reused by the replay's look-ups)
        ensureScratch();
        if (!replayHistory(preds, *scratch_, &endOf) || like.thread >= scratch_->numThreads() ||
            !scratch_->inAtomicSection(like.thread) || scratch_->thread(like.thread).pending.kind != like.label.kind) {
            unsupported_ = "internal: the history of an atomic section could not be replayed";
            return;
        }
        if (!scratch_->enabled(like.thread)) return; // it starts with a lock or join that blocks here: no event
        // The replayed state answers what the history did not (a join's result, a mutex's state): runs kept from a
        // probe of a state with the same inputs are these runs (join_in_section.c: main's section joins a thread).
        auto peek = [&](uint64_t addr, uint32_t size) { return inputIn(*scratch_, addr, size); };
        cached = cachedSectionRuns(keep, peek);
        if (!cached) {
            probed = sectionRunsAt(*scratch_, like.thread);
            cached = &keepSectionRuns(keep, probed);
        }
    }
    const SectionRuns& runs = *cached;
    if (runs.error) {
        unsupported_ = runs.error;
        return;
    }
    if (!observeSite(like.label.loc, runs) || runs.runs.empty()) return;
    const SectionSite& site = (*sections_)[like.label.loc];
    for (const SectionRun& r : runs.runs) {
        EventSpec s = spec;
        s.choice = runChoice(runs, r);
        // A join inside the run follows the end of the joined thread's history (its last event or its creation, and
        // the threads it joined since), as in eventFor: the replay completed the join, so those events are in the
        // history [preds] — the event's history, hence its identity, is the same; the causes keep the join's order
        // explicit for its own placements (their base is pt and the base causes), so that none can move the section
        // before the joined thread's end. (A thread that main created at the start and that has no event has no end:
        // nothing orders the join then.)
        for (ThreadId c : r.joins) {
            if (c >= scratch_->numThreads()) {
                unsupported_ = "internal: a join inside an atomic section of a thread its history did not create";
                return;
            }
            if (c >= endOf.size()) continue;
            for (UEvent* last : endOf[c]) {
                auto base = s.causes.begin() + s.baseCauses;
                if (std::find(s.causes.begin(), base, last) == base) {
                    s.causes.insert(base, last);
                    ++s.baseCauses;
                }
            }
        }
        // The same footprint, so the same resource parents as `like`'s placement — or, where the site's runs
        // differ, the run's own accesses and the part of [preds] they need.
        if (site.runAccesses) runSpecAt(r, preds, s);
        else if (widens(r.accesses, site.footprint)) sectionsWidened_ = true;
        bool created = false;
        UEvent* e = es_.findOrCreate(s, &created);
        if (created) ++cexEvents_;
        e->section = true;
        e->sectionRuns = site.severalRuns;
        noteSectionWrites(e, r);
        if (e != &like) es_.addToU(e);
    }
}

} // namespace skein::explore::unfolding
