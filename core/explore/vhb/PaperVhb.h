#pragma once
// VC-DPOR's extension logic (Alg. 5–7) for `--vhb-equivalence=paper`: Extend (root: one closed APO; leaf: every
// orientation with the conflicting leaf events), ExtendRoot/ExtendLeaf with the candidate writes M_t^C(r) of a
// causally-happens-before (CHB) map C (Sec. 5, App. C). No executor here: Vhb.cpp replays the witnesses, runs
// WExtend and asks the executor for each thread's next events (DESIGN.md, "The paper's equivalence").
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "core/explore/vhb/PaperApo.h"

namespace skein::explore::vhb::paper {

// A CHB map (Sec. 5): for each read tried, per thread, the last read ("guard") of that thread in the trace it was
// tried in: −2 = ⊥⊥ (no write of the thread considered), −1 = ⊥ (the writes before its first read), i ≥ 0: the
// writes guarded by its read i or earlier. `init` is the same for the initial writes (−2 or −1).
struct ChbEntry {
    std::vector<int32_t> threads;
    int32_t init = -2;
    int32_t at(uint32_t t) const { return t == kInit ? init : t < threads.size() ? threads[t] : -2; }
};
using Chb = std::map<EventRef, ChbEntry>;

// A node of the exploration (a type-1 node of App. C's tree): a minimal closed two-sided APO, the decisions that
// replay its events (per thread), and the CHB map it was called with.
struct Node {
    TwoSidedApo apo;
    std::vector<std::vector<uint32_t>> choices;
    Chb chb;
    // App. D optimisation 2: shared by the siblings that extend one parent with the same read observing the same
    // value; set when one of them turns out maximal, so the others (same events and values, other leaf orders)
    // are not explored.
    std::shared_ptr<bool> maximalSibling;
};

// One way thread t may go on: its next event (with the value it reads) and the executor decision for it.
struct Candidate {
    SymEvent event;
    uint32_t choice = 0;
};

struct Child {
    std::shared_ptr<const Node> node;
    Linearisation witness; // Realize (Lemma 4.1), for Alg. 5 line 1 in the child
};

struct Expansion {
    std::vector<Child> children;
    uint64_t classes = 0;  // extensions of P to E(t) (Alg. 5 line 3) that are maximal: distinct VHB classes
    uint64_t extended = 0; // |Extend(P, E(t), ...)|
};

struct Counters {
    uint64_t closureCalls = 0, infeasible = 0, chbPruned = 0, anomalies = 0;
    double closureMs = 0, realizeMs = 0;
    ClosureStats closure;
    RealizeStats realize;
};

class Explorer {
public:
    Explorer(uint32_t root, Counters& c) : root_(root), c_(c) {}
    // The empty APO and empty CHB map of the initial call (Alg. 5's caller).
    Node initial() const;
    // One VC-DPOR call (Alg. 5 lines 3–9) on `parent` (its witness already replayed and write-extended to t):
    // `t` holds parent's events plus the write extension (its events in `wextend`, by thread, in execution order),
    // `choices` its decisions, `next[p]` thread p's candidate next events (empty: none).
    Expansion expand(const Node& parent, const Apo& t, const std::vector<std::vector<uint32_t>>& choices,
                     const std::vector<uint32_t>& wextend, const std::vector<std::vector<Candidate>>& next);

private:
    uint32_t root_;
    Counters& c_;
    struct Closed {
        TwoSidedApo apo;
        std::optional<Ordered> order;
        std::optional<Linearisation> witness; // Realize's (Lemma 4.1 or the relaxed shape's search)
    };
    // Extend (Sec. 5) by one event e of thread t: root → {Closure(K)}; leaf → Closure of every orientation of e
    // with the conflicting leaf events (those that are not ⊥).
    std::vector<Closed> extendOne(const TwoSidedApo& q, uint32_t t, const SymEvent& e, Side s, std::vector<EventRef> good);
    // Closure then Realize: the closed APO with its witness, or nullopt when k is not realizable.
    std::optional<Closed> close(TwoSidedApo& k);
};

// Guard_t (Sec. 5) of each event of t as a "read" index: the last read at or before it in its thread, −1 = ⊥.
// Reads here are every event the exploration extends one at a time (reads, read-modify-writes, locks, joins, local
// choices); a read-modify-write guards itself (its write appears with its read).
std::vector<std::vector<int32_t>> guards(const Apo& t);

} // namespace skein::explore::vhb::paper
