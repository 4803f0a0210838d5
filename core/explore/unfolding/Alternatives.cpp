// Alt(C, D ∪ {e}) through the comb (QPOR Def. 5, Def. 6 and the five steps under it):
//   1. select k events of D (e first, then the most recently added);
//   2. spike i = the events of U in conflict with the i-th selected event;
//   3. drop from each spike the events ê with [ê] ∪ C not a configuration or [ê] ∩ D ≠ ∅;
//   4. find a combination of pairwise non-conflicting events;
//   5. J = the union of their local configurations.
// `optimal` selects all of D (an alternative, Def. 4); `kN` selects N; `sdpor` selects 1 and marks only one
// event ahead (the paper's framing of Source-DPOR: singleton clues, which can end in sleep-set blocked runs).
#include <algorithm>
#include <optional>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

// optimal, when e is one of several outcomes of its action (a nondet value, a run of an atomic section, the waiter a
// signal wakes): another outcome x not in D is an alternative by itself when it is in conflict with every event of D
// that C is not — it is with the action's other outcomes, siblings all, and [x] ∪ C = C ∪ {x} is a configuration
// ([x] \ {x} = [e] \ {e} ⊆ C, and x has e's siblings and parents: `excluded` in alternative()). Any alternative
// will do (Alg. 1 explores each maximal configuration once whichever it is given), and this one needs no spike: the
// comb's spike of e holds every other outcome, so an action with R outcomes cost R comb events at each of its R
// alternatives (a section drawing 10 nondet bits: 10^6). Null when there is none, or when some event of D needs more:
// the comb decides then (and finds any outcome this skipped).
// Linear in neither the outcomes nor D when the node's last alternative was the same action's: the scan of the
// thread's successors goes on from where it stopped (they are in the order they were made — ids ascending — until a
// pruning unlinks some), and what it found satisfied then still is: an event of D in conflict with e is in conflict
// with another outcome of e's action too (a conflict with e comes from e's history, which they share, or from a
// sibling of e in a tree or around a write, which is theirs as well), so only what D gained since — e — is looked at.
bool QporExplorer::nextOutcome() {
    Node& n = stack_.back();
    UEvent* e = n.e;
    if (!e || n.Dlocal.empty() || n.Dlocal.back() != e) return false;
    if (!e->hasOutcomes()) return false;
    const EventList* successors = es_.threadSuccessors(e->pt, e->thread);
    if (!successors) return false;
    auto outcome = [&](const UEvent* d) { return e->sameAction(*d); }; // another outcome of e's action (or e)
    const bool resume = n.outcomeNext == e && n.outcomeEpoch == pruneEpoch_;
    UEvent* next = nullptr;
    size_t at = 0;
    for (size_t i = resume ? n.outcomeCursor : 0; i < successors->size(); ++i) {
        UEvent* x = (*successors)[i];
        if (!x->inU || x->inD || (next && x->id > next->id) || !outcome(x)) continue;
        next = x, at = i;
        if (resume) break; // the first after the last taken: ids ascend
    }
    if (!next) return false;
    auto satisfied = [&](const UEvent* d) {
        return outcome(d) || es_.conflictsWith(d, F_) || es_.conflict(next, d);
    };
    if (resume) {
        for (size_t i = n.outcomeVerified; i < n.Dlocal.size(); ++i)
            if (!satisfied(n.Dlocal[i])) return false;
    } else {
        for (uint32_t j : stack_.dNodes())
            for (const UEvent* d : stack_[j].Dlocal)
                if (!satisfied(d)) return false;
    }
    n.outcomeNext = next;
    n.outcomeCursor = at + 1;
    n.outcomeVerified = n.Dlocal.size();
    n.outcomeEpoch = pruneEpoch_;
    altJ_.assign(1, next);
    return true;
}

bool QporExplorer::alternative() {
    phase_.enter(PhaseClock::Comb); // until the next phase: the node's en(C), or the pop
    ++alternatives_;
    // A quick no: every event of an alternative J goes beyond C, so J ∪ C contains an event of en(C) (the first
    // event of J's in some thread: the one event of that thread whose history lies in C and that is compatible
    // with C — the executor's enabled event). When all of en(C) is in D, every candidate contains an event of D.
    // (An outcome nextOutcome finds is in en(C) and not in D: it goes first, as the test below is linear in en(C).)
    if (altK_ == 0)
        if (nextOutcome()) return true;
    const EnabledList& en = stack_.back().en;
    if (std::all_of(en.begin(), en.end(), [](const UEvent* x) { return x->inD > 0; })) {
        ++altFailures_;
        ++altQuickFailures_;
        return false;
    }
    // k events of D: e (the top node's last addition) first, then the most recently added.
    const size_t dSize = stack_.dSize();
    size_t k = altK_ <= 0 ? dSize : std::min<size_t>(size_t(altK_), dSize);
    if (altK_ < 0) k = 1;
    AltBuffer& selected = altSelected_; // the explorer's buffers: this runs once per explored event
    selected.clear();
    const std::span<const uint32_t> dNodes = stack_.dNodes();
    for (size_t i = dNodes.size(); i-- > 0 && selected.size() < k;) {
        const auto& dl = stack_[dNodes[i]].Dlocal;
        for (size_t j = dl.size(); j-- > 0 && selected.size() < k;) selected.push_back(dl[j]);
    }

    // Another outcome of e's own action at the same history (a nondet value, a run of an atomic section: same thread,
    // predecessors and accesses, another choice) is in conflict with every event of e's spike: such an event x is
    // another outcome of the action (then also of d's, x ∉ D), or a sibling of e in a resource tree, or a read or
    // write of a word e writes or reads on the same side of the same parent — and d has the same parents, so x is in
    // the same relation to d unless x ≥ d, which the spike excludes ([x] ∩ D = ∅). So d needs no spike of its own:
    // an action with N outcomes costs the comb N spike events per alternative, not N per outcome explored.
    auto outcomeOfE = [&](const UEvent* d) { return d->choice != selected[0]->choice && selected[0]->sameAction(*d); };
    // [x] ∩ D ≠ ∅, for x compatible with C: every event of D was explored from a prefix of C, so its thread
    // predecessor is in C; one whose thread C has gone past conflicts with C. So in each thread t in which x goes
    // beyond C, the only event of D that x can contain is its first event there (the one after C's last event of
    // t): one ancestor query per thread instead of a causality test per event of D.
    // The test against D first: it is a few ancestor queries where the one against C looks up the resources' trees.
    // Another outcome x of e's action needs neither: [x] \ {x} = [e] \ {e} ⊆ C, and x is in conflict with no event of
    // C, as e is not (e was enabled at C: x's thread and resource siblings and the reads it overwrites are e's, and
    // none of them is in C) — so only x itself can be in D. The spike of one of an action's many outcomes (a
    // section's runs, 2^10 for one drawing ten nondet bits) is mostly such siblings.
    auto excluded = [&](UEvent* x) {
        if (x->inD) return true;
        if (outcomeOfE(x)) return false;
        const auto tmax = x->summary.tmax();
        for (ThreadId t = 0; t < tmax.size(); ++t) {
            UEvent* m = tmax[t];
            if (!m || m->inC) continue;
            const UEvent* last = F_.threadMax(t);
            uint32_t depth = last ? last->tnode.depth + 1 : 1;
            const UEvent* first = ownerOf(ancestorAtDepth(&m->tnode, depth, es_.step()));
            if (first && first->inD) return true;
        }
        return es_.conflictsWith(x, F_); // [x] ∪ C is not a configuration
    };
    std::vector<Spike>& spikes = altSpikes_;
    if (spikes.size() < k) spikes.resize(k);
    for (size_t i = 0; i < k; ++i) spikes[i].clear();
    // optimal: an event of D already in conflict with C needs nothing of J (C itself holds its conflict), so it
    // gets no spike (its spike would offer the event of C it conflicts with; any J satisfies it).
    SmallVector<char, 8>& satisfied = altSatisfied_;
    satisfied.assign(k, 0);
    bool empty = false;
    for (size_t i = 0; i < k && !empty; ++i) {
        // (The outcome test first: D holds every outcome of the action explored so far, and the test against C
        // looks up the resources' trees — R of them per alternative, for R outcomes, made the comb quadratic.)
        if (i > 0 && (outcomeOfE(selected[i]) || (altK_ == 0 && es_.conflictsWith(selected[i], F_)))) {
            satisfied[i] = 1;
            continue;
        }
        ++stamp_;
        auto seen = [&](const UEvent* x) { return !x->inU || x->stamp == stamp_; };
        es_.forEachImmediateConflict(selected[i], seen, [&](UEvent* x) {
            x->stamp = stamp_;
            if (excluded(x)) return;
            spikes[i].push_back(x);
        });
        // An empty spike: no alternative (most calls end here, so it is checked before building the rest).
        empty = spikes[i].empty();
    }
    if (empty) {
        ++altFailures_;
        return false;
    }
    // Deterministic order: events created first first. With a single spike to take an event from, the search takes
    // its first: the one created first, found without sorting the spike (one per alternative, each as long as the
    // action's outcomes when they are many).
    const size_t toFill = size_t(std::count(satisfied.begin(), satisfied.begin() + k, 0));
    auto byId = [](UEvent* a, UEvent* b) { return a->id < b->id; };
    for (size_t i = 0; i < k; ++i) {
        Spike& s = spikes[i];
        combSpikeEvents_ += s.size();
        if (toFill > 1) std::sort(s.begin(), s.end(), byId);
        else if (!satisfied[i] && !s.empty()) std::iter_swap(s.begin(), std::min_element(s.begin(), s.end(), byId));
    }
    // Step 4: a combination of pairwise non-conflicting events (depth-first over the spikes).
    AltBuffer& combo = altCombo_;
    combo.clear();
    // Plain recursion (a std::function per level cost 2 % of a run); at most one level per selected event.
    struct Search {
        const EventStructure& es;
        const std::vector<Spike>& spikes;
        const SmallVector<char, 8>& satisfied;
        size_t k;
        AltBuffer& combo;
        bool operator()(size_t i) {
            while (i < k && satisfied[i]) ++i;
            if (i == k) return true;
            for (UEvent* x : spikes[i]) {
                bool ok = true;
                for (UEvent* y : combo)
                    if (y != x && es.conflict(x, y)) {
                        ok = false;
                        break;
                    }
                if (!ok) continue;
                combo.push_back(x);
                if ((*this)(i + 1)) return true;
                combo.pop_back();
            }
            return false;
        }
    } search{es_, spikes, satisfied, k, combo};
    bool found = k > 0 && search(0);
    if (!found) {
        ++altFailures_;
        return false;
    }
    // Step 5: J \ C, the events of the combination's local configurations outside C.
    AltBuffer& out = altJ_;
    AltBuffer& todo = altTodo_;
    out.clear();
    todo.assign(combo.begin(), combo.end());
    ++stamp_; // the comb is done with its marks: they now mean "in out"
    while (!todo.empty()) {
        UEvent* x = todo.back();
        todo.pop_back();
        if (!x || x->stamp == stamp_ || F_.contains(x)) continue;
        x->stamp = stamp_;
        out.push_back(x);
        forEachPredecessor(*x, [&](UEvent* p) {
            todo.push_back(p);
            return true;
        });
    }
    if (altK_ < 0 && !out.empty()) {
        // sdpor: only one event ahead — a minimal event of J \ C (its history lies in C).
        std::sort(out.begin(), out.end(), [](UEvent* a, UEvent* b) { return a->id < b->id; });
        for (UEvent* x : out) {
            bool minimal = forEachPredecessor(*x, [&](UEvent* p) { return F_.contains(p); });
            if (minimal) {
                out.assign(1, x);
                return true;
            }
        }
    }
    return true;
}

} // namespace skein::explore::unfolding
