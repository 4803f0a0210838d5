// The paper's two-sided Closure and Realize (VC-DPOR Sec. 4, Alg. 1–4, Lemmas 4.1 and 4.3; PaperApo) against
// brute force on thousands of random annotated partial orders of the paper's shape: X1 one thread (the root,
// totally ordered by thread order), X2 the leaf threads with every two conflicting leaf events ordered
// (Mwidth(P|X2) = 1), random values, a side per root read and random good writes (of the read's value, on the
// root read's side). Brute force tries every linearisation of P. What the paper proves, asserted exactly:
// - Closure answers ⊥ iff no linearisation of P makes every read observe one of its good writes (Lemma 4.3);
// - otherwise Realize's witness is a linearisation of P respecting GoodW (Lemma 4.1);
// - every ordering Closure adds holds in every respecting linearisation (Lemma B.2's invariant: the closure is
//   the weakest closed strengthening);
// - no rule meets a "unique" event that is not unique (ClosureStats::anomalies).
#include <algorithm>
#include <map>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "core/explore/vhb/PaperApo.h"

namespace {

using namespace skein::explore::vhb;
using namespace skein::explore::vhb::paper;

bool conflict(const SymEvent& a, const SymEvent& b) { return a.key == b.key && (a.writes() || b.writes()); }

// A random APO of the paper's shape. Leaf conflicts are oriented along a random interleaving, plus (sometimes) a
// few random orderings along another one — which may make P unrealizable, as Extend's orientations can.
// relaxed: App. D optimisation 3's shape — afterwards most orderings between two conflicting leaf plain writes one
// of which is never-good (in no GoodW) are dropped (they may stay ordered through other events).
TwoSidedApo randomPaperApo(std::mt19937& rng, bool rmw, bool relaxed = false) {
    auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
    TwoSidedApo p;
    const uint32_t threads = 2 + pick(2);
    p.root = pick(threads);
    const uint32_t keys = 1 + pick(2);
    for (uint32_t k = 0; k < keys; ++k) p.events.init.push_back(pick(2));
    p.events.threads.resize(threads);
    for (auto& t : p.events.threads) {
        const uint32_t n = 1 + pick(4);
        for (uint32_t i = 0; i < n; ++i) {
            SymEvent e;
            e.key = pick(keys);
            switch (pick(rmw ? 5 : 4)) {
            case 0:
            case 1: e.op = Op::Read; break;
            case 2:
            case 3: e.op = Op::Write, e.wval = pick(3); break;
            default: e.op = Op::Rmw, e.wval = pick(3); break;
            }
            t.push_back(e);
        }
    }
    p.events.finished.assign(threads, true);
    p.events.openSection.assign(threads, false);
    p.fit();
    // A random interleaving σ: leaf conflicts follow it.
    std::vector<EventRef> sigma;
    {
        std::vector<uint32_t> pos(threads, 0);
        for (size_t left = p.events.size(); left; --left) {
            uint32_t t;
            do t = pick(threads);
            while (pos[t] == p.events.threads[t].size());
            sigma.push_back({t, pos[t]++});
        }
    }
    auto ev = [&](EventRef r) -> const SymEvent& { return p.events.threads[r.thread][r.index]; };
    for (size_t i = 0; i < sigma.size(); ++i)
        for (size_t j = i + 1; j < sigma.size(); ++j) {
            EventRef a = sigma[i], b = sigma[j];
            if (a.thread == b.thread || a.thread == p.root || b.thread == p.root) continue;
            if (conflict(ev(a), ev(b))) p.orderings.push_back({a, b});
        }
    if (pick(3) == 0) // a few orderings between the sides, along σ
        for (int k = 0; k < 2; ++k) {
            EventRef a = sigma[pick(uint32_t(sigma.size()))], b = sigma[pick(uint32_t(sigma.size()))];
            auto ia = std::find(sigma.begin(), sigma.end(), a), ib = std::find(sigma.begin(), sigma.end(), b);
            if (ia < ib && a.thread != b.thread) p.orderings.push_back({a, b});
        }
    // Values and good writes: a read picks a side (root reads) and a value of some write there, then a random
    // non-empty subset of the writes of that value on that side (the initial write is remote).
    for (uint32_t t = 0; t < threads; ++t)
        for (uint32_t i = 0; i < p.events.threads[t].size(); ++i) {
            SymEvent& e = p.events.threads[t][i];
            if (!e.reads()) continue;
            std::vector<std::pair<EventRef, uint64_t>> ws{{{kInit, e.key}, p.events.init[e.key]}};
            for (uint32_t u = 0; u < threads; ++u)
                for (uint32_t j = 0; j < p.events.threads[u].size(); ++j)
                    if ((u != t || j != i) && p.events.threads[u][j].writes() && p.events.threads[u][j].key == e.key)
                        ws.push_back({{u, j}, p.events.threads[u][j].wval});
            Side s = Side::None;
            if (t == p.root) {
                s = pick(2) ? Side::Local : Side::Remote;
                std::erase_if(ws, [&](auto& w) { return (w.first.thread == t) != (s == Side::Local); });
                p.side[t][i] = s;
            }
            if (ws.empty()) {
                e.rval = pick(3);
                continue; // no good write at all: unrealizable
            }
            e.rval = ws[pick(uint32_t(ws.size()))].second;
            for (auto& [w, v] : ws)
                if (v == e.rval && pick(4) != 0) p.goodW[t][i].push_back(w);
            if (p.goodW[t][i].empty())
                for (auto& [w, v] : ws)
                    if (v == e.rval) {
                        p.goodW[t][i].push_back(w);
                        break;
                    }
        }
    if (relaxed) {
        const auto good = goodWrites(p);
        auto neverGood = [&](EventRef r) { return !std::binary_search(good.begin(), good.end(), r); };
        std::erase_if(p.orderings, [&](const std::pair<EventRef, EventRef>& ab) {
            auto [a, b] = ab;
            return a.thread != p.root && b.thread != p.root && ev(a).op == Op::Write && ev(b).op == Op::Write &&
                   ev(a).key == ev(b).key && (neverGood(a) || neverGood(b)) && pick(4) != 0;
        });
    }
    return p;
}

// Every linearisation of P respecting GoodW (depth-first; the instances are small).
std::vector<Linearisation> respecting(const TwoSidedApo& p) {
    auto o = order(p);
    EXPECT_TRUE(o);
    o->q.computeRequired();
    const uint32_t nt = uint32_t(p.events.threads.size());
    std::vector<Linearisation> out;
    std::vector<uint32_t> pos(nt, 0);
    std::vector<EventRef> last;
    for (uint32_t k = 0; k < p.events.init.size(); ++k) last.push_back({kInit, k});
    Linearisation lin;
    auto dfs = [&](auto& self) -> void {
        if (lin.size() == p.events.size()) {
            out.push_back(lin);
            return;
        }
        for (uint32_t t = 0; t < nt; ++t) {
            if (pos[t] == p.events.threads[t].size()) continue;
            const uint32_t e = o->q.id(t, pos[t]);
            bool ready = true;
            for (uint32_t u = 0; u < nt; ++u) ready = ready && (u == t || pos[u] >= o->q.required(e, u));
            if (!ready) continue;
            const SymEvent& ev = p.events.threads[t][pos[t]];
            const auto& g = p.goodW[t][pos[t]];
            if (ev.reads() && std::find(g.begin(), g.end(), last[ev.key]) == g.end()) continue;
            const EventRef saved = ev.key < last.size() ? last[ev.key] : EventRef{};
            if (ev.writes()) last[ev.key] = {t, pos[t]};
            ++pos[t];
            lin.push_back(t);
            self(self);
            lin.pop_back();
            --pos[t];
            if (ev.writes()) last[ev.key] = saved;
        }
    };
    dfs(dfs);
    return out;
}

std::string show(const TwoSidedApo& p) {
    std::string s = "root " + std::to_string(p.root) + "\n";
    auto ref = [](EventRef r) {
        return r.thread == kInit ? "init" + std::to_string(r.index)
                                 : "t" + std::to_string(r.thread) + "." + std::to_string(r.index);
    };
    for (uint32_t t = 0; t < p.events.threads.size(); ++t)
        for (uint32_t i = 0; i < p.events.threads[t].size(); ++i) {
            const SymEvent& e = p.events.threads[t][i];
            s += ref({t, i}) + ": " + (e.op == Op::Read ? "R" : e.op == Op::Write ? "W" : "RMW") + " k" +
                 std::to_string(e.key) + " r" + std::to_string(e.rval) + " w" + std::to_string(e.wval) + " side " +
                 std::to_string(int(p.side[t][i])) + " good {";
            for (EventRef g : p.goodW[t][i]) s += " " + ref(g);
            s += " }\n";
        }
    for (uint32_t k = 0; k < p.events.init.size(); ++k) s += "init" + std::to_string(k) + " = " + std::to_string(p.events.init[k]) + "\n";
    for (auto [a, b] : p.orderings) s += ref(a) + " -> " + ref(b) + "\n";
    return s;
}

// The position of each event in a linearisation.
std::map<EventRef, size_t> positions(const TwoSidedApo& p, const Linearisation& lin) {
    std::map<EventRef, size_t> at;
    std::vector<uint32_t> pos(p.events.threads.size(), 0);
    for (size_t k = 0; k < lin.size(); ++k) at[{lin[k], pos[lin[k]]++}] = k;
    return at;
}

void checkMany(uint32_t seed, int instances, bool rmw) {
    std::mt19937 rng(seed);
    int feasible = 0, infeasible = 0, strengthened = 0;
    for (int n = 0; n < instances; ++n) {
        TwoSidedApo p = randomPaperApo(rng, rmw);
        SCOPED_TRACE("instance " + std::to_string(n));
        const auto all = respecting(p);
        TwoSidedApo closed = p;
        ClosureStats st;
        auto q = closure(closed, &st);
        ASSERT_EQ(st.anomalies, 0u) << show(p) << "closed:\n" << show(closed);
        ASSERT_EQ(bool(q), !all.empty()) << "Closure's ⊥ must be exact (Lemma 4.3)";
        if (!q) {
            ++infeasible;
            continue;
        }
        ++feasible;
        auto lin = realize(closed, *q);
        ASSERT_TRUE(lin) << "Lemma 4.1: a closed APO has a witness";
        EXPECT_TRUE(respectsGoodW(closed, *lin)) << "Realize's witness respects the closed order and GoodW";
        EXPECT_TRUE(respectsGoodW(p, *lin));
        // Each ordering Closure added holds in every respecting linearisation.
        const size_t added = closed.orderings.size() - p.orderings.size();
        strengthened += added > 0;
        for (const Linearisation& l : all) {
            auto at = positions(p, l);
            for (size_t k = p.orderings.size(); k < closed.orderings.size(); ++k) {
                auto [a, b] = closed.orderings[k];
                if (a.thread == kInit) continue; // the initial writes precede everything anyway
                ASSERT_LT(at.at(a), at.at(b)) << "an ordering Closure added is not necessary";
            }
        }
    }
    // The instances must exercise both answers and the rules.
    EXPECT_GT(feasible, instances / 10);
    EXPECT_GT(infeasible, instances / 10);
    EXPECT_GT(strengthened, instances / 20);
}

// App. D optimisation 3's shape: conflicting leaf events all ordered except pairs of plain writes one of which is
// never-good. Closure (on P without its loose writes) may now leave an unrealizable P to Realize, which decides
// by search when Lemma 4.1's witness lets a loose write be observed; asserted against brute force:
// - Closure's ⊥ implies no respecting linearisation; Closure-then-Realize answers ⊥ exactly when there is none;
// - the witness linearises the closed order and P and respects GoodW; every added ordering is forced;
// - no anomaly; on instances where nothing is loose (the paper's shape), Closure's ⊥ is exact and no search runs.
void checkRelaxed(uint32_t seed, int instances, bool rmw) {
    std::mt19937 rng(seed);
    int feasible = 0, infeasible = 0, looseInstances = 0, closureBot = 0, realizeBot = 0;
    RealizeStats rs;
    for (int n = 0; n < instances; ++n) {
        TwoSidedApo p = randomPaperApo(rng, rmw, true);
        SCOPED_TRACE("instance " + std::to_string(n) + "\n" + show(p));
        const auto all = respecting(p);
        auto o = order(p);
        ASSERT_TRUE(o);
        const bool paperShape = looseWrites(p, *o).empty();
        looseInstances += !paperShape;
        TwoSidedApo closed = p;
        ClosureStats st;
        auto q = closure(closed, &st);
        ASSERT_EQ(st.anomalies, 0u) << "closed:\n" << show(closed);
        if (!q) {
            ASSERT_TRUE(all.empty()) << "Closure's ⊥ must be sound";
            ++infeasible, ++closureBot;
            continue;
        }
        const uint64_t searchesBefore = rs.searches;
        auto lin = realize(closed, *q, &rs);
        if (paperShape) {
            ASSERT_FALSE(all.empty()) << "on the paper's shape Closure's ⊥ is exact (Lemma 4.3)";
            ASSERT_EQ(rs.searches, searchesBefore) << "on the paper's shape Lemma 4.1's witness respects GoodW";
        }
        ASSERT_EQ(bool(lin), !all.empty()) << "Closure then Realize must decide realizability exactly";
        if (!lin) {
            ++infeasible, ++realizeBot;
            continue;
        }
        ++feasible;
        EXPECT_TRUE(respectsGoodW(closed, *lin)) << "the witness respects the closed order and GoodW";
        EXPECT_TRUE(respectsGoodW(p, *lin));
        for (const Linearisation& l : all) {
            auto at = positions(p, l);
            for (size_t k = p.orderings.size(); k < closed.orderings.size(); ++k) {
                auto [a, b] = closed.orderings[k];
                if (a.thread == kInit) continue;
                ASSERT_LT(at.at(a), at.at(b)) << "an ordering Closure added is not necessary";
            }
        }
    }
    std::printf("relaxed shape (seed %u): %d instances with loose never-good writes; %d feasible, %d infeasible (%d by "
                "Closure, %d by Realize's search); %llu searches, %llu search states\n",
                seed, looseInstances, feasible, infeasible, closureBot, realizeBot, (unsigned long long)rs.searches,
                (unsigned long long)rs.searchStates);
    // The instances must exercise the loose writes, both answers, and the search deciding both ways.
    EXPECT_GT(looseInstances, instances / 20);
    EXPECT_GT(feasible, instances / 10);
    EXPECT_GT(infeasible, instances / 10);
    EXPECT_GT(realizeBot, 0);
    EXPECT_GT(rs.searches, uint64_t(realizeBot));
}

TEST(VhbPaperClosure, RelaxedShapeExact) { checkRelaxed(3, 20000, false); }

TEST(VhbPaperClosure, RelaxedShapeExactWithReadModifyWrites) { checkRelaxed(4, 20000, true); }

TEST(VhbPaperClosure, ExactOnRandomReadsAndWrites) { checkMany(1, 20000, false); }

TEST(VhbPaperClosure, ExactWithReadModifyWrites) { checkMany(2, 20000, true); }

} // namespace
