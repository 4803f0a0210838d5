// Learning what an SV-COMP atomic section does without running it at every start (DESIGN.md "Learning a section's
// runs cheaply"): the key under which a start's runs are kept (probeKey), their keeping (keepSectionRuns; the
// look-up, cachedSectionRuns, is a template in QporImpl.h), what they tell of a section event's siblings after a
// read beside it (siblingsFixedBy), and the look ahead at a site's first start (lookAheadOfSite).
#include <algorithm>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

// The key of a section start in probeCache_: what fixes the thread's own state there — its last event and the base
// causes (its create, the joins it took since) — and the site. Events by id (never reused), so that a pruned event
// names nothing it did not.
// A thread all of whose events so far only stored — plain stores, fences, atomic sections whose runs only store —
// and that took no join since its first event has learned nothing since it was created: its state is fixed by its
// creation (its first event's base causes) and its position, whichever events of those actions its chain holds. Its
// key says so, and a start of it is probed once per position rather than once per chain (section_snapshot.c's writer:
// 300 probes of its 24 sections, one per event of U before its next one).
const std::vector<uint64_t>& QporExplorer::probeKey(ThreadId t, const model::Event& pending, const UEvent* pt,
                                                    std::span<UEvent* const> baseCauses) {
    std::vector<uint64_t>& key = probeKeyScratch_;
    auto ids = [&](std::span<UEvent* const> events) {
        for (const UEvent* c : events) key.push_back(c ? c->id + 1 : 0);
    };
    const UEvent* first = nullptr;
    bool learnedNothing = true;
    for (const UEvent* x = pt; x && learnedNothing; x = x->pt) {
        first = x;
        if (x->pt && x->baseCauses != 0) learnedNothing = false; // a join taken before it
        else if (x->section) {
            auto site = sections_->find(x->label.loc);
            learnedNothing = site != sections_->end() && site->second.onlyStores;
        } else {
            learnedNothing = x->label.kind == EventKind::Write || x->label.kind == EventKind::Fence;
        }
    }
    if (pt && learnedNothing) {
        key.assign({t, pending.loc, ~uint64_t(0), pending.indexInThread, first->baseCauses});
        ids(std::span(first->causes.data(), first->baseCauses));
    } else {
        key.assign({t, pending.loc, pt ? pt->id + 1 : 0});
    }
    ids(baseCauses);
    return key;
}

// Whether placing the siblings of a (an event of C at a site whose runs vary by history) after a new event n of C
// beside it can make nothing new, where n's only accesses to the site's footprint are reads of words a reads too,
// from the same writes (`fixed`; siblingsAfterNewAccess). A sibling made by that walk whose history holds n takes
// each fixed word's parent at or below a's (the walk goes down the trees from footprintLike's) and at or above n's,
// which is a's: it reads in them what a read. When the runs at a's history — kept in probeCache_ — read nothing
// else before writing it themselves (their inputs are fixed words), the cache's own argument gives the same runs at
// every such history; and when none of them writes a fixed word, n is none of their events' parents (a run's
// parents are writes of the words it touches) or causes (the last readers of the parents of the words it writes,
// which n does not read: its footprint words are fixed ones). Those events are then ones with a parent and causes
// in C without n — the walk made before n joined C, at a's own placement or after the event of C that brought
// them (this function or the walk) — in conflict with a, which is in C since, and so still in U. cas_in_section.c
// -DWINS: a loser's compare-exchange reads x, as the later loser beside it does; every run from there reads only x
// and fails, the sibling walk after the later loser was a fifth of the exploration's instructions. False when it
// cannot tell (the runs not kept, an input not a fixed word, a join's, mutex's or object's input): the walk is made.
bool QporExplorer::siblingsFixedBy(const UEvent& a, std::span<const Resource> fixed) {
    auto isFixed = [&](const Resource& r) { return std::find(fixed.begin(), fixed.end(), r) != fixed.end(); };
    auto valueAt = [&](uint64_t addr, uint32_t size) { // a fixed word's value is its parent's in a
        return valueAfter(addr, size, [&](const Resource& r) -> std::optional<const UEvent*> {
            if (!isFixed(r)) return std::nullopt;
            return a.access(r)->parent;
        });
    };
    const std::vector<uint64_t>& key = probeKey(a.thread, a.label, a.pt, std::span(a.causes.data(), a.baseCauses));
    const SectionRuns* runs = cachedSectionRuns(key, valueAt, false);
    if (!runs || runs->error) return false;
    for (const SectionRun& r : runs->runs)
        for (const Access& x : r.accesses)
            if (x.mode == Mode::Write && isFixed(x.res)) return false;
    return true;
}

const QporExplorer::SectionRuns& QporExplorer::keepSectionRuns(const std::vector<uint64_t>& key, SectionRuns& runs) {
    // Bounds: past them a start is probed as before (a section whose inputs take very many values, or a long
    // exploration: the cache is not pruned with U, so it holds at most kMaxKept probes in all).
    constexpr size_t kGroupsPerStart = 8, kStatesPerGroup = 1024, kMaxKept = size_t(1) << 16;
    if (!runs.inputsKnown || runs.error || probesKept_ == kMaxKept) return runs;
    std::vector<ProbeGroup>& groups = probeCache_[key];
    auto same = [&](const ProbeGroup& g) {
        return g.reads.size() == runs.inputs.size() &&
               std::equal(g.reads.begin(), g.reads.end(), runs.inputs.begin(), [](const auto& r, const WordWrite& w) {
                   return r.first == w.addr && r.second == w.size;
               });
    };
    auto g = std::find_if(groups.begin(), groups.end(), same);
    if (g == groups.end()) {
        if (groups.size() == kGroupsPerStart) return runs;
        g = groups.emplace(groups.end());
        for (const WordWrite& w : runs.inputs) g->reads.emplace_back(w.addr, w.size);
    }
    if (g->byValues.size() == kStatesPerGroup) return runs;
    std::vector<uint64_t> values;
    values.reserve(runs.inputs.size());
    for (const WordWrite& w : runs.inputs) values.push_back(w.value);
    auto [it, added] = g->byValues.try_emplace(std::move(values), std::move(runs));
    probesKept_ += added;
    return it->second; // (not added: the same values kept already, the same runs)
}

// What a site learns after events were made with what it knew starts the exploration over (observeSite): a section
// that reads `x` and writes `z` at the root, and `y` once another thread has written x, threw away the attempt that
// placed it as a writer of z at every history — 20–45 % of the time of the small programs that restart. At the
// site's first start, before any event is made for it, the section is therefore also run where the other threads'
// next actions leave it: for each enabled thread u whose next action writes a word the runs touched, or takes one of
// their mutexes — a store, a read-modify-write, or an atomic section whose site's footprint does so (a site not
// known yet is not run: that cost more than it saved, free_race_in_section.c) — that action is taken on a copy of
// the executor (a section to its end) and the section probed there. That state is reachable, so what its runs show
// is what a later start would show (the exploration reaches every start of the section whose run completes): the
// site learns it sooner, never something else. A thread whose next action touches nothing of the runs goes on for a
// few actions (probeAfterLater). Once per site and explore() (SectionSite::lookedAhead): a thread that writes later
// than that, or a thread created later, is not waited for, and the site may still start over. Other threads at a
// start of the same site are probed at C first, as en(C) would next.
bool QporExplorer::lookAheadOfSite(ThreadId t, bool mayBlockToo) {
    const uint32_t loc = ex_.thread(t).pending.loc;
    const SectionSite& site = (*sections_)[loc]; // (a map's element: observeSite below leaves it where it is)
    if (site.lookedAhead) return true;
    (*sections_)[loc].lookedAhead = true;
    if (!site.runsRead) return true; // it runs the same wherever its thread is at this point
    // The resources the site's runs touched so far: the footprint's first entries (observeSite only appends). A memory
    // resource is matched by its first word (a segment of several words past it is missed: no look ahead there, which
    // costs a restart at worst, never a wrong event).
    const size_t touched = site.footprint.size();
    auto touches = [&](ResKind kind, uint64_t lo, uint64_t hi) {
        for (size_t i = 0; i < touched; ++i) {
            const Access& a = site.footprint[i];
            if (a.res.kind() != kind) continue;
            const uint64_t at = a.res.addr();
            if (kind == ResKind::Memory ? at < hi && lo < at + model::kWordSize : at == lo) return true;
        }
        return false;
    };
    // What an action of another thread does that t's runs can see: a write of a word they touched, an operation on
    // one of their mutexes.
    auto writes = [&](const std::vector<Access>& accesses) {
        return std::any_of(accesses.begin(), accesses.end(), [&](const Access& a) {
            if (a.res.kind() == ResKind::Mutex) return touches(ResKind::Mutex, a.res.addr(), 0);
            return a.res.kind() == ResKind::Memory && a.mode == Mode::Write &&
                   touches(ResKind::Memory, a.res.addr(), a.res.addr() + model::kWordSize);
        });
    };
    auto nextActionTouches = [&](const model::Event& next) {
        if (next.isMutexOp()) return touches(ResKind::Mutex, next.addr, 0);
        if (next.kind == EventKind::Rmw) return touches(ResKind::Memory, next.addr, next.addr + next.size);
        auto [lo, hi] = next.writeRange();
        return lo < hi && touches(ResKind::Memory, lo, hi);
    };
    // c's next action starts a section at this site, in p.
    auto startsAt = [&](const exec::Executor& p, ThreadId c) {
        return c < p.numThreads() && p.exclusiveThread() == model::kNoThread && p.enabled(c) &&
               p.inAtomicSection(c) && p.thread(c).pending.loc == loc;
    };
    // t's section probed in p, where other threads went on from C: the site learns what its runs there show. False:
    // start over.
    auto probeIn = [&](std::unique_ptr<exec::Executor> p) {
        bool ok = true;
        if (startsAt(*p, t)) {
            // t's own state is C's (only u went on): its runs there are kept and looked up as at C.
            SectionRuns probed;
            const uint64_t before = sectionRuns_;
            const SectionRuns& runs = sectionRunsIn(*p, t, probed);
            sectionLookaheads_ += sectionRuns_ != before;
            // (A run qpor cannot handle is left for the exploration to meet and report where it is.)
            ok = runs.error || observeSite(loc, runs, mayBlockToo);
        }
        keepProbe(std::move(p));
        return ok;
    };
    // u's next action taken on a copy of the executor — a section along `choices` (one of its runs), to its end —
    // and t's section probed where it leaves it.
    auto probeAfter = [&](ThreadId u, std::span<const uint32_t> choices) {
        std::unique_ptr<exec::Executor> p = probeOf(ex_);
        size_t step = 0;
        do p->step(u, step < choices.size() ? choices[step] : 0);
        while (++step, p->exclusiveThread() == u && p->enabled(u));
        return probeIn(std::move(p));
    };
    // A thread u creates on the way that starts at this site too (its first action is this section) is probed where
    // it starts, and after t's section there (along its first outcomes: t's run may change what it reads) —
    // children_numbered_alike.c's second worker creates a child whose run, after the first worker's child wrote x0,
    // writes x1 where that one wrote x0: a restart, 14 % of the exploration's time.
    auto probeChildAt = [&](const exec::Executor& p, ThreadId c) {
        const SectionRuns runs = sectionRunsAt(p, c);
        ++sectionLookaheads_;
        return runs.error || observeSite(loc, runs, mayBlockToo);
    };
    auto probeChild = [&](const exec::Executor& p, ThreadId c) {
        if (!startsAt(p, c)) return true;
        if (!probeChildAt(p, c)) return false;
        if (!startsAt(p, t)) return true;
        std::unique_ptr<exec::Executor> q = probeOf(p);
        do q->step(t, 0);
        while (q->exclusiveThread() == t && q->enabled(t));
        const bool ok = !startsAt(*q, c) || probeChildAt(*q, c);
        keepProbe(std::move(q));
        return ok;
    };
    // u's next actions touch nothing t's runs did: u goes on, on a copy, for a few actions more — each a plain
    // action or a section to its end along its first outcomes (a site known or not: only that path is run, not its
    // site's runs) — and where one of them writes what t's runs touched, t is probed there. free_in_section.c's
    // producer publishes its node in a section after a calloc and a store: the consumer's section, which read only
    // `ready` at C, learnt that it also reads `head` and the node, writes `got` and frees, only when it ran after
    // that, and started over (38 % of the exploration's time).
    constexpr size_t kActionsAhead = 4;
    auto probeAfterLater = [&](ThreadId u) {
        std::unique_ptr<exec::Executor> p = probeOf(ex_);
        bool touched = false;
        for (size_t k = 0; k < kActionsAhead && !touched; ++k) {
            if (u >= p->numThreads() || !p->enabled(u) || p->exclusiveThread() != model::kNoThread) break;
            const bool section = p->inAtomicSection(u);
            bool childOk = true;
            do {
                const model::Event& ev = p->step(u, 0);
                touched = nextActionTouches(ev) || touched;
                if (ev.kind == EventKind::ThreadCreate) childOk = probeChild(*p, ThreadId(ev.value));
            } while (childOk && section && p->exclusiveThread() == u && p->enabled(u));
            if (!childOk) {
                keepProbe(std::move(p));
                return false;
            }
        }
        if (!touched) {
            keepProbe(std::move(p));
            return true;
        }
        return probeIn(std::move(p));
    };
    constexpr size_t kRunsAhead = 4; // of another thread's section: the runs followed, at most
    for (ThreadId u = 0; u < ex_.numThreads(); ++u) {
        if (u == t || !ex_.enabled(u)) continue;
        const model::Event& next = ex_.thread(u).pending;
        if (!ex_.inAtomicSection(u)) {
            if (!(nextActionTouches(next) ? probeAfter(u, {}) : probeAfterLater(u))) return false;
            continue;
        }
        if (ex_.exclusiveThread() != model::kNoThread) continue;
        // A section of u: of this site (which en(C) probes next: its run here may touch other words — its own
        // element of an array — learnt before t's event is made: cas_in_section.c -DWINS started over on won[1]),
        // or of a site known already (one not known yet is not run: that cost more than it saved,
        // free_race_in_section.c). Its runs here are kept for en(C) as any probe's (in probeCache_, or in
        // lookaheadRuns_), and t is probed after each that writes what t's runs touched (a nondet value inside
        // picks the run: nondet_section_loop.c's writer increments x in one run only).
        const bool same = next.loc == loc;
        if (!same) {
            auto su = sections_->find(next.loc);
            if (su == sections_->end() || su->second.footprint.empty() || !writes(su->second.footprint)) continue;
        }
        SectionRuns probed;
        const SectionRuns& runs = sectionRunsIn(ex_, u, probed);
        if (runs.error) continue;
        if (same && !observeSite(loc, runs, mayBlockToo)) return false;
        size_t followed = 0;
        for (const SectionRun& r : runs.runs) {
            if (followed == kRunsAhead) break;
            if (!writes(r.accesses)) continue;
            ++followed;
            if (!probeAfter(u, r.choices)) return false;
        }
        if (&runs == &probed) lookaheadRuns_.emplace_back(u, std::move(probed)); // (not kept: for en(C))
    }
    return true;
}

} // namespace skein::explore::unfolding
