#pragma once
// The paper's two-sided annotated partial orders (VC-DPOR, Sec. 4.1): P = (X1, X2, P, val, S, GoodW) where X1 is
// the root thread's events (width(P|X1) = 1: program order) and X2 the leaf threads'. The paper requires
// Mwidth(P|X2) = 1 (every two conflicting leaf events ordered); with App. D optimisation 3 PaperVhb's Extend leaves
// unordered two conflicting leaf *writes* when one of them is never-good (in no GoodW(r)): the "relaxed shape"
// (DESIGN.md, "Never-good writes"). GoodW names write *events*, not values. `closure` is Alg. 1 with Rule1/2/3
// (Alg. 2–4) on P without its loose never-good writes (those unordered with a conflicting leaf write): ⊥ exactly
// when P is not realizable on the paper's shape (Lemma 4.3/4.4), only when it is not on the relaxed one;
// `realize` is Lemma 4.1's witness (order X1 before X2 wherever P leaves them unordered, then linearise), checked
// against GoodW on the relaxed shape and, when a loose write spoils it, an exact search.
// Used by `--vhb-equivalence=paper` only (DESIGN.md, "The paper's equivalence").
#include <compare>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/explore/vhb/Apo.h"

namespace skein::explore::vhb::paper {

// The initial write of location k (the paper's salient w(x, 0), Sec. 3) is EventRef{kInit, k}: a leaf-side (X2)
// write before every event.
inline constexpr uint32_t kInit = ~0u;

struct EventRef {
    uint32_t thread = 0, index = 0;
    auto operator<=>(const EventRef&) const = default;
};

// S(r) for a read of the root thread: it observes a local (1) or a remote (2) write (Sec. 2.1).
enum class Side : uint8_t { None = 0, Local = 1, Remote = 2 };

struct TwoSidedApo {
    Apo events;        // X = X1 ∪ X2 per thread with val (rval/wval); init per key
    uint32_t root = 1; // p1: X1 = its events; every other thread and the initial writes are X2
    std::vector<std::vector<Side>> side;                    // per thread, per event: S (root reads only)
    std::vector<std::vector<std::vector<EventRef>>> goodW;  // per thread, per event (reads): GoodW(r)
    // P beyond thread order, spawn/join (Sec. 6 item 1) and init-first: the orderings Extend chose and Closure
    // inserted. Rebuilding them over the events gives P exactly (Order closes transitively).
    std::vector<std::pair<EventRef, EventRef>> orderings;

    // side/goodW/finished/openSection sized to events.threads (after threads were added).
    void fit();
    bool isRoot(uint32_t t) const { return t == root; }
};

// P as an Order over the events plus one more thread (index events.threads.size()) holding the initial writes,
// one per key, ordered before every event. nullopt when the orderings make a cycle.
struct Ordered {
    Apo aug;
    Order q;
    uint32_t id(EventRef e) const;
    EventRef ref(uint32_t id) const;
};
std::optional<Ordered> order(const TwoSidedApo& p);

struct ClosureStats {
    uint64_t inserted = 0;  // orderings Rule1/2/3 added
    uint64_t anomalies = 0; // a "unique" event of Alg. 2–4 that was not unique, or a rule that made no progress:
                            // the APO was not of the paper's shape (counted, answered ⊥; the tests expect 0)
    uint64_t masked = 0;    // loose never-good writes Closure left out (App. D optimisation 3)
};

struct RealizeStats {
    uint64_t calls = 0;
    uint64_t searches = 0;     // Lemma 4.1's witness let a loose never-good write be observed: searched instead
    uint64_t searchStates = 0; // states the search visited
};

// Never-good (App. D item 3): a write event in no GoodW(r) of p.
std::vector<EventRef> goodWrites(const TwoSidedApo& p);
// The loose writes of p: leaf plain writes, never-good, unordered in `o` with some conflicting leaf write. Empty
// exactly when p is of the paper's shape (Mwidth(P|X2) = 1).
std::vector<EventRef> looseWrites(const TwoSidedApo& p, const Ordered& o);

// Alg. 1: the closure of p, or nullopt (⊥). Appends the orderings it inserts to p.orderings; returns P's closed
// order (Ordered) for Realize.
std::optional<Ordered> closure(TwoSidedApo& p, ClosureStats* stats = nullptr);

// Lemma 4.1 on a closed p (`closed` = closure's answer): a linearisation (real threads only) respecting GoodW.
// On the paper's shape this never fails; on the relaxed shape nullopt means p is not realizable (exact search).
std::optional<Linearisation> realize(const TwoSidedApo& p, Ordered& closed, RealizeStats* stats = nullptr);

// Lemma 4.1's construction alone (what `realize` tries first).
std::optional<Linearisation> lemma41(const TwoSidedApo& p, Ordered& closed);

// Does `lin` (all of p's events) linearise P and make every read observe one of its good writes? (Tests.)
bool respectsGoodW(const TwoSidedApo& p, const Linearisation& lin);

} // namespace skein::explore::vhb::paper
