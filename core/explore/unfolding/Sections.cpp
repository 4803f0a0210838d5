// SV-COMP atomic sections in the unfolding (DESIGN.md "Atomic sections"). A section runs without interruption, so
// it is one action (a macro event) whose accesses are the union of its steps'. Two things vary with the state it
// starts in, and both are handled here:
//  - what it touches: every section start (source location) has a footprint, the union of the accesses of all its
//    runs seen so far, with which all its events are made (a coarser independence: sound); when a run touches more,
//    the exploration starts over (explore()), since events made with the smaller footprint may lack placements;
//  - how many runs it has (nondet values inside): each run is an outcome of the action, named by the outcomes of
//    its steps (interned: `choice` = 1 + the run's number; 0 when the section has one run there). Where such a
//    section is placed without being run (a conflicting extension), its history is replayed on a scratch executor
//    to find the runs it has there.
#include <algorithm>
#include <unordered_set>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

namespace {
constexpr size_t kMaxRuns = 4096;
}

QporExplorer::SectionRuns QporExplorer::sectionRunsAt(const exec::Executor& from, ThreadId t) {
    SectionRuns out;
    std::vector<uint32_t> choices;
    std::vector<model::Event> events;
    // Depth first over the outcomes of each step; the last outcome reuses the copy of the state.
    auto run = [&](auto& self, std::unique_ptr<exec::Executor> probe) -> void {
        uint32_t n = probe->thread(t).choices;
        for (uint32_t c = 0; c < n && !out.error; ++c) {
            std::unique_ptr<exec::Executor> p = c + 1 < n ? probe->clone() : std::move(probe);
            choices.push_back(c);
            events.push_back(p->step(t, c));
            if (p->exclusiveThread() == t && p->enabled(t)) {
                self(self, std::move(p));
            } else if (p->exclusiveThread() != t) { // the section ended (or the thread stopped in it)
                SectionRun r;
                r.choices = choices;
                for (const model::Event& ev : events) {
                    if (ev.kind == EventKind::CondWait) {
                        out.error = "condition waits inside an SV-COMP atomic section are not supported by qpor yet";
                        break;
                    }
                    if (ev.kind == EventKind::ThreadJoin) r.joins.push_back(ThreadId(ev.value));
                    for (const Access& a : accessesFor(ev)) {
                        auto it = std::find_if(r.accesses.begin(), r.accesses.end(),
                                               [&](const Access& b) { return b.res == a.res; });
                        if (it == r.accesses.end()) r.accesses.push_back(a);
                        else if (a.mode != Mode::Read) it->mode = a.mode;
                    }
                }
                out.runs.push_back(std::move(r));
                if (out.runs.size() > kMaxRuns)
                    out.error = "an SV-COMP atomic section with more than 4096 nondeterministic runs";
            } // else: blocks midway, no run from this state
            choices.pop_back();
            events.pop_back();
        }
    };
    run(run, from.clone());
    return out;
}

// Records the runs seen at a section start; false when the site changed after events were made for it (a larger
// footprint, or several runs where there had been one): the exploration must start over.
bool QporExplorer::observeSite(uint32_t loc, const SectionRuns& runs) {
    SectionSite& site = (*sections_)[loc];
    bool changed = false;
    for (const SectionRun& r : runs.runs)
        for (const Access& a : r.accesses) {
            auto it = std::find_if(site.footprint.begin(), site.footprint.end(),
                                   [&](const Access& b) { return b.res == a.res; });
            if (it == site.footprint.end()) {
                site.footprint.push_back(a);
                changed = true;
            } else if (a.mode != Mode::Read && it->mode == Mode::Read) {
                it->mode = a.mode;
                changed = true;
            }
        }
    if (runs.runs.size() > 1 && !site.severalRuns) {
        site.severalRuns = true;
        changed = true;
    }
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

bool QporExplorer::sectionHasRuns(const UEvent& like) const {
    auto it = sections_->find(like.label.loc);
    return it != sections_->end() && it->second.severalRuns;
}

std::vector<UEvent*> QporExplorer::atomicSectionEvents(ThreadId t) {
    std::vector<UEvent*> out;
    SectionRuns runs = sectionRunsAt(ex_, t);
    if (runs.error) {
        unsupported_ = runs.error;
        return out;
    }
    if (runs.runs.empty()) return out; // every run blocks midway: the section cannot start now
    const model::Event& pending = ex_.thread(t).pending;
    if (!observeSite(pending.loc, runs)) return out;
    SectionSite& site = (*sections_)[pending.loc];
    site.used = true;
    for (const SectionRun& r : runs.runs) {
        if (r.accesses.size() != site.footprint.size()) sectionsWidened_ = true;
        UEvent* e = eventFor(t, runChoice(runs, r), pending, &site.footprint, &r.joins);
        e->section = true;
        e->sectionRuns = site.severalRuns;
        out.push_back(e);
    }
    return out;
}

// Brings `into` to the state after the history [preds]: its events in a causal order, each with its outcomes.
bool QporExplorer::replayHistory(const std::vector<UEvent*>& preds, exec::Executor& into) {
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
    into.reset();
    for (const UEvent* x : order) {
        // Joins are not events (QporExplorer::autoJoins): x's thread takes the ones before x first.
        while (x->thread < into.numThreads() && into.enabled(x->thread) && !into.inAtomicSection(x->thread) &&
               into.thread(x->thread).pending.kind == EventKind::ThreadJoin)
            into.step(x->thread, 0);
        if (x->thread >= into.numThreads() || !into.enabled(x->thread) ||
            into.thread(x->thread).pending.kind != x->label.kind)
            return false;
        const std::vector<uint32_t>* run = runOf(x);
        into.step(x->thread, run ? (*run)[0] : x->choice);
        for (size_t i = 1; into.exclusiveThread() == x->thread && into.enabled(x->thread); ++i)
            into.step(x->thread, run && i < run->size() ? (*run)[i] : 0);
    }
    return true;
}

// A section with several runs placed at the history [preds] (spec names it, with `like`'s run): every run it has
// there, each an event with the site's footprint.
void QporExplorer::sectionPlacements(const UEvent& like, const EventSpec& spec, const std::vector<UEvent*>& preds) {
    if (!scratch_) scratch_ = std::make_unique<exec::Executor>(prog_, opts_.exec);
    if (!replayHistory(preds, *scratch_) || like.thread >= scratch_->numThreads() ||
        !scratch_->enabled(like.thread) || !scratch_->inAtomicSection(like.thread)) {
        unsupported_ = "internal: the history of an atomic section could not be replayed";
        return;
    }
    SectionRuns runs = sectionRunsAt(*scratch_, like.thread);
    if (runs.error) {
        unsupported_ = runs.error;
        return;
    }
    if (runs.runs.empty() || !observeSite(like.label.loc, runs)) return;
    const SectionSite& site = (*sections_)[like.label.loc];
    for (const SectionRun& r : runs.runs)
        if (!r.joins.empty()) { // its causes would have to come from the replayed history
            unsupported_ = "a join inside an SV-COMP atomic section with nondeterministic runs is not supported by qpor "
                           "yet";
            return;
        }
    for (const SectionRun& r : runs.runs) {
        EventSpec s = spec;
        s.choice = runChoice(runs, r);
        // The same footprint, so the same resource parents as `like`'s placement.
        bool created = false;
        UEvent* e = es_.findOrCreate(s, &created);
        if (created) ++cexEvents_;
        e->section = true;
        e->sectionRuns = site.severalRuns;
        if (r.accesses.size() != site.footprint.size()) sectionsWidened_ = true;
        if (e != &like) es_.addToU(e);
    }
}

} // namespace skein::explore::unfolding
