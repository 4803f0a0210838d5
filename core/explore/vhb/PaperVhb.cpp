#include "core/explore/vhb/PaperVhb.h"

#include <chrono>

namespace skein::explore::vhb::paper {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The events the exploration adds one at a time with a choice (DESIGN.md): everything but the write-like events
// WExtend runs through (writes, unlocks, creates). Fences and exits are local events WExtend also runs; counting
// them as reads only moves a guard later, which never drops a write that was not in the trace (see guards()).
bool isGuard(const SymEvent& e) { return e.op != Op::Write && e.op != Op::Create; }

bool accesses(const SymEvent& e) { return e.reads() || e.writes(); }

// C_Q(r) ← the last read of each thread in t (Alg. 6 line 15, Alg. 7 line 10). A thread with no event in t
// (not yet created) keeps ⊥⊥: none of its writes was in t.
ChbEntry lastReads(const std::vector<std::vector<int32_t>>& g, const Apo& t) {
    ChbEntry c;
    c.init = -1; // the initial writes were all in t
    for (uint32_t u = 0; u < t.threads.size(); ++u) c.threads.push_back(t.threads[u].empty() ? -2 : g[u].back());
    return c;
}

} // namespace

std::vector<std::vector<int32_t>> guards(const Apo& t) {
    std::vector<std::vector<int32_t>> g(t.threads.size());
    for (uint32_t u = 0; u < t.threads.size(); ++u) {
        int32_t last = -1;
        for (uint32_t i = 0; i < t.threads[u].size(); ++i) {
            if (isGuard(t.threads[u][i])) last = int32_t(i);
            g[u].push_back(last);
        }
    }
    return g;
}

Node Explorer::initial() const {
    Node n;
    n.apo.root = root_;
    return n;
}

std::optional<Explorer::Closed> Explorer::close(TwoSidedApo& k) {
    auto t0 = Clock::now();
    ++c_.closureCalls;
    auto o = closure(k, &c_.closure);
    c_.closureMs += msSince(t0);
    if (!o) {
        ++c_.infeasible;
        return std::nullopt;
    }
    // Realize decides on the relaxed shape (App. D item 3): Closure's ⊥ is exact only on the paper's.
    t0 = Clock::now();
    auto lin = realize(k, *o, &c_.realize);
    c_.realizeMs += msSince(t0);
    if (!lin) {
        ++c_.infeasible;
        return std::nullopt;
    }
    return Closed{std::move(k), std::move(o), std::move(*lin)};
}

std::vector<Explorer::Closed> Explorer::extendOne(const TwoSidedApo& q, uint32_t t, const SymEvent& e, Side s,
                                                  std::vector<EventRef> good) {
    TwoSidedApo k = q;
    const EventRef me{t, uint32_t(k.events.threads[t].size())};
    k.events.threads[t].push_back(e);
    k.side[t].push_back(s);
    k.goodW[t].push_back(good);
    k.events.finished[t] = false;
    std::vector<Closed> out;
    auto leafWrite = [&](EventRef r) { return r.thread != kInit && r.thread != root_ && k.events.threads[r.thread][r.index].op == Op::Write; };
    // Extend item 1 (a root event, or one that conflicts with nothing) and no leaf write turning good: nothing to
    // orient — one APO, closed (the common case: no Order built here).
    if ((t == root_ || !accesses(e)) && std::none_of(good.begin(), good.end(), leafWrite)) {
        if (auto c = close(k)) out.push_back(std::move(*c));
        return out;
    }
    const auto goodBefore = goodWrites(q);
    auto base = order(k);
    if (!base) return out;
    // The pairs Extend orients (Sec. 5, Extend item 2), with App. D item 3: two conflicting leaf *plain writes*
    // are left unordered while one of them is never-good (in no GoodW) — it is then observed in no linearisation,
    // and their order does not decide what any read observes. A new write is never-good (no read names it yet),
    // so it is oriented with the conflicting leaf reads (and read-modify-writes) only. When a read's GoodW makes a
    // write good (here, `good`), that write is oriented with the good conflicting leaf writes it is unordered
    // with: the orderings the paper's Extend would have chosen when the write came, chosen now (DESIGN.md).
    auto isGood = [&](EventRef r) {
        return std::binary_search(goodBefore.begin(), goodBefore.end(), r) || std::find(good.begin(), good.end(), r) != good.end();
    };
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    if (t != root_ && accesses(e))
        for (uint32_t u = 0; u < k.events.threads.size(); ++u) {
            if (u == t || u == root_) continue;
            for (uint32_t j = 0; j < k.events.threads[u].size(); ++j) {
                const SymEvent& x = k.events.threads[u][j];
                if (!accesses(x) || x.key != e.key || !(x.writes() || e.writes())) continue;
                if (e.op == Op::Write && x.op == Op::Write) continue; // e is never-good
                pairs.push_back({base->id(me), base->id({u, j})});
            }
        }
    for (EventRef g : good) {
        if (!leafWrite(g) || std::binary_search(goodBefore.begin(), goodBefore.end(), g)) continue; // newly good only
        for (uint32_t u = 0; u < k.events.threads.size(); ++u) {
            if (u == g.thread || u == root_) continue;
            for (uint32_t j = 0; j < k.events.threads[u].size(); ++j) {
                const EventRef x{u, j};
                if (x == me || !leafWrite(x) || k.events.threads[u][j].key != k.events.threads[g.thread][g.index].key || !isGood(x))
                    continue;
                // Both newly good: the pair once (from its smaller end).
                if (!std::binary_search(goodBefore.begin(), goodBefore.end(), x) && x < g &&
                    std::find(good.begin(), good.end(), x) != good.end())
                    continue;
                pairs.push_back({base->id(g), base->id(x)});
            }
        }
    }
    std::vector<std::pair<EventRef, EventRef>> chosen;
    // Depth-first over the orientations; an orientation implied by earlier choices is not a choice.
    auto orient = [&](auto& self, size_t j, const Order& q0) -> void {
        if (j == pairs.size()) {
            TwoSidedApo kk = k;
            kk.orderings.insert(kk.orderings.end(), chosen.begin(), chosen.end());
            if (auto c = close(kk)) out.push_back(std::move(*c));
            return;
        }
        const auto [a0, b0] = pairs[j];
        if (q0.before(a0, b0) || q0.before(b0, a0)) return self(self, j + 1, q0);
        for (int dir = 0; dir < 2; ++dir) {
            Order q1 = q0;
            const uint32_t a = dir ? a0 : b0, b = dir ? b0 : a0;
            if (!q1.insert(a, b)) continue;
            chosen.push_back({base->ref(a), base->ref(b)});
            self(self, j + 1, q1);
            chosen.pop_back();
        }
    };
    orient(orient, 0, base->q);
    return out;
}

Expansion Explorer::expand(const Node& parent, const Apo& t, const std::vector<std::vector<uint32_t>>& choices,
                           const std::vector<uint32_t>& wextend, const std::vector<std::vector<Candidate>>& next) {
    Expansion out;
    const uint32_t nt = uint32_t(t.threads.size());
    // Alg. 5 line 3: Extend(P, E(t), val_t, S, GoodW) — the write extension's events one at a time (Sec. 5,
    // "calls itself recursively ... on a sequence of sets Y_1, ..., Y_q"), in execution order so that a create
    // precedes its thread's first event.
    TwoSidedApo base = parent.apo;
    base.root = root_;
    base.events.threads.resize(nt);
    base.events.init = t.init;
    base.events.finished = t.finished;
    base.events.openSection = t.openSection;
    base.fit();
    std::vector<Closed> qs;
    qs.push_back({base, std::nullopt, std::nullopt});
    std::vector<uint32_t> at(nt);
    for (uint32_t u = 0; u < nt && u < parent.apo.events.threads.size(); ++u)
        at[u] = uint32_t(parent.apo.events.threads[u].size());
    for (uint32_t u : wextend) {
        const SymEvent& e = t.threads[u][at[u]++];
        std::vector<Closed> more;
        for (const Closed& q : qs)
            for (Closed& k : extendOne(q.apo, u, e, Side::None, {})) more.push_back(std::move(k));
        qs = std::move(more);
    }
    for (Closed& q : qs) {
        q.apo.events.finished = t.finished;
        q.apo.events.openSection = t.openSection;
    }
    out.extended = qs.size();

    const auto g = guards(t);
    const ChbEntry last = lastReads(g, t);
    struct W {
        EventRef ref;
        uint64_t val;
        int32_t guard;
    };
    std::vector<std::vector<W>> writes(t.init.size());
    for (uint32_t k = 0; k < t.init.size(); ++k) writes[k].push_back({{kInit, k}, t.init[k], -1});
    for (uint32_t u = 0; u < nt; ++u)
        for (uint32_t i = 0; i < t.threads[u].size(); ++i)
            if (const SymEvent& e = t.threads[u][i]; e.writes()) writes[e.key].push_back({{u, i}, e.wval, g[u][i]});
    // Alg. 5 line 5, then lines 6–8: the root thread first, then the leaves.
    std::vector<uint32_t> threads;
    if (root_ < nt) threads.push_back(root_);
    for (uint32_t p = 0; p < nt; ++p)
        if (p != root_) threads.push_back(p);
    const std::vector<Side> leafSides{Side::None}, rootSides{Side::Local, Side::Remote};

    // The good writes of r = next[p] reading v on side s: {w ∈ M_t^C(r) : val_t(w) = v} (Alg. 6 line 9, Alg. 7
    // line 5), restricted to Y_s for the root. M_t^C(r) (Sec. 5): w with Guard_t(w) strictly after C(r)(p(w)) —
    // with −2 = ⊥⊥ and −1 = ⊥ that is one comparison. cr = nullptr: no CHB entry (every write of t).
    auto goodWrites = [&](uint32_t p, const SymEvent& r, Side s, const ChbEntry* cr) {
        std::vector<EventRef> good;
        for (const W& w : writes[r.key]) {
            if (w.val != r.rval || (cr && w.guard <= cr->at(w.ref.thread))) continue;
            if (s != Side::None && (w.ref.thread == p) != (s == Side::Local)) continue;
            good.push_back(w.ref);
        }
        return good;
    };
    auto joinable = [&](const SymEvent& e) { return e.op != Op::Join || (e.other < nt && t.finished[e.other]); };

    std::map<std::pair<uint32_t, uint64_t>, std::shared_ptr<bool>> sameValue;
    bool onlyJoins = true;
    for (const auto& n : next)
        for (const Candidate& cand : n) onlyJoins = onlyJoins && cand.event.op == Op::Join; // optimisation 2: (thread, value)
    for (Closed& q : qs) {
        Chb c = parent.chb; // Alg. 5 line 4: C_Q ← C
        const size_t before = out.children.size();
        bool pruned = false;
        auto extend = [&](uint32_t p, const Candidate& cand, Side s, std::vector<EventRef> good) {
            for (Closed& k : extendOne(q.apo, p, cand.event, s, std::move(good))) {
                auto& lin = k.witness;
                if (!respects(k.apo.events, *lin)) { // Lemma 4.1 (and the search) say this cannot happen
                    ++c_.anomalies;
                    continue;
                }
                auto child = std::make_shared<Node>();
                child->apo = std::move(k.apo);
                child->choices = choices;
                child->choices.resize(nt);
                child->choices[p].resize(t.threads[p].size());
                child->choices[p].push_back(cand.choice);
                child->chb = c; // the CHB map as it is now (Alg. 6 line 12, Alg. 7 line 7)
                if (cand.event.reads()) {
                    auto& token = sameValue[{p, cand.event.rval}];
                    if (!token) token = std::make_shared<bool>(false);
                    child->maximalSibling = token;
                } else if (onlyJoins) {
                    // Joins decide nothing: a maximal trace reached through them alone is still "the extension
                    // results in a maximal trace" for the read that led here.
                    child->maximalSibling = parent.maximalSibling;
                }
                out.children.push_back({std::move(child), std::move(*lin)});
            }
        };
        for (uint32_t p : threads) {
            if (p >= next.size() || next[p].empty()) continue;
            const EventRef r{p, uint32_t(t.threads[p].size())};
            auto it = c.find(r);
            const ChbEntry* cr = it == c.end() ? nullptr : &it->second;
            if (next[p][0].event.reads()) {
                // ExtendRoot (Alg. 6 lines 4–14: each side, each value of its candidate writes) or ExtendLeaf
                // (Alg. 7 lines 3–8: each value). A read-modify-write's written value came with its candidate.
                for (const Candidate& cand : next[p])
                    for (Side s : p == root_ ? rootSides : leafSides) {
                        auto good = goodWrites(p, cand.event, s, cr);
                        if (good.empty()) {
                            if (cr && !goodWrites(p, cand.event, s, nullptr).empty()) {
                                ++c_.chbPruned;
                                pruned = true;
                            }
                            continue;
                        }
                        extend(p, cand, s, std::move(good));
                    }
            } else if (cr) {
                // A choice with no write to observe (nondet, join) tried at an ancestor's sibling: that sibling's
                // subtree has its classes (App. C, Lemma C.2: the leftmost mover), as for a read with no new write.
                ++c_.chbPruned;
                pruned = true;
                continue;
            } else {
                // A join of a thread that has not finished in t is not enabled: not tried, so not marked.
                if (!joinable(next[p][0].event)) continue;
                for (const Candidate& cand : next[p]) extend(p, cand, Side::None, {});
            }
            c[r] = last; // Alg. 6 line 15 / Alg. 7 line 10
        }
        if (out.children.size() != before) continue;
        // No child. Q is maximal unless the CHB map hid an extension (then Q is a prefix of a class explored from
        // another node): try those without C, stopping at the first realizable one.
        bool maximal = true;
        for (uint32_t p : threads) {
            if (!pruned || !maximal) break;
            if (p >= next.size()) continue;
            for (const Candidate& cand : next[p]) {
                if (!maximal) break;
                if (!cand.event.reads()) {
                    if (joinable(cand.event) && !extendOne(q.apo, p, cand.event, Side::None, {}).empty()) maximal = false;
                    continue;
                }
                for (Side s : p == root_ ? rootSides : leafSides) {
                    auto good = goodWrites(p, cand.event, s, nullptr);
                    if (!good.empty() && !extendOne(q.apo, p, cand.event, s, std::move(good)).empty()) {
                        maximal = false;
                        break;
                    }
                }
            }
        }
        out.classes += maximal;
    }
    return out;
}

} // namespace skein::explore::vhb::paper
