// The linearisation search behind Realize, the race search and the final-state monitor (`search`, `canStep`,
// `realize`, `respects`) and the cheap witnesses by insertion (`replayBase`, `insertInto`): the half of Apo.h that
// walks linearisations, where Apo.cpp is the half that orders events (Order, Closure and its ⊥ checks).
#include "core/explore/vhb/Apo.h"

#include <algorithm>
#include <unordered_set>

namespace skein::explore::vhb {

namespace {

// The set of states `search` has visited, by hash: open addressing over a power-of-two table (a node-based
// std::unordered_set allocated once per state and was a sixth of vhb's run time). 0 marks an empty slot.
class StateSet {
public:
    bool insert(uint64_t h) {
        if (h == 0) h = 1;
        if (2 * (size_ + 1) > slots_.size()) grow();
        size_t mask = slots_.size() - 1;
        for (size_t i = (h ^ (h >> 31)) & mask;; i = (i + 1) & mask) {
            if (slots_[i] == h) return false;
            if (slots_[i] == 0) {
                slots_[i] = h;
                ++size_;
                return true;
            }
        }
    }

private:
    std::vector<uint64_t> slots_;
    size_t size_ = 0;
    void grow() {
        std::vector<uint64_t> old = std::move(slots_);
        slots_.assign(std::max<size_t>(256, old.size() * 2), 0);
        size_ = 0;
        for (uint64_t h : old)
            if (h) insert(h);
    }
};

} // namespace

// The thread that holds the others back in state `pos`: mid-way through an atomic section (Sec. 6 does not
// have them; DESIGN.md "Atomic sections").
uint32_t exclusiveThread(const Apo& a, const std::vector<uint32_t>& pos) {
    for (uint32_t u = 0; u < a.threads.size(); ++u) {
        const auto& evs = a.threads[u];
        uint32_t p = pos[u];
        if (p == 0) continue;
        uint32_t s = evs[p - 1].section;
        if (s == 0) continue;
        if (p < evs.size() ? evs[p].section == s : bool(a.openSection[u])) return u;
    }
    return ~0u;
}

bool canStep(const Apo& a, const Order* q, const std::vector<uint32_t>& pos, const std::vector<uint64_t>& mem,
             uint32_t t, bool creatorChecked, uint32_t exclusive) {
    const auto& evs = a.threads[t];
    if (pos[t] >= evs.size()) return false;
    const SymEvent& e = evs[pos[t]];
    const uint32_t x = exclusive == kExclusiveUnknown ? exclusiveThread(a, pos) : exclusive;
    if (x != ~0u && x != t) return false;
    if (pos[t] == 0 && !creatorChecked) // a thread starts after its creator's create
        for (uint32_t u = 0; u < a.threads.size(); ++u)
            for (uint32_t i = 0; i < a.threads[u].size(); ++i)
                if (a.threads[u][i].op == Op::Create && a.threads[u][i].other == t && pos[u] <= i) return false;
    if (q) {
        uint32_t id = q->id(t, pos[t]);
        for (uint32_t u = 0; u < a.threads.size(); ++u)
            if (u != t && pos[u] < q->required(id, u)) return false;
    }
    if (!e.enabledOn(mem)) return false;
    return e.op != Op::Join || (pos[e.other] == a.threads[e.other].size() && a.finished[e.other]);
}

bool search(const Apo& a, const Order* q, const std::function<bool(const SearchState&)>& visit,
            SearchLimits* limits) {
    const uint32_t nt = uint32_t(a.threads.size());
    // A thread's first event needs its creator's create (without q, which has that edge).
    std::vector<std::pair<uint32_t, uint32_t>> createdAt(nt, {~0u, 0});
    for (uint32_t t = 0; t < nt; ++t)
        for (uint32_t i = 0; i < a.threads[t].size(); ++i)
            if (a.threads[t][i].op == Op::Create && a.threads[t][i].other < nt) createdAt[a.threads[t][i].other] = {t, i};
    std::vector<uint32_t> pos(nt, 0);
    std::vector<uint64_t> mem = a.init;
    Linearisation path;
    StateSet seen;
    // A state's hash: the positions folded, and the memory as the XOR of one hash per (location, value), kept up to
    // date at each write — hashing the whole memory per state cost a step the number of locations (a node with a
    // 1 MB buffer has 262,144: PERFORMANCE.md "Large objects").
    auto word = [](uint64_t k, uint64_t v) {
        uint64_t z = (k + 1) * 0x9e3779b97f4a7c15ull ^ (v + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    uint64_t memHash = 0;
    for (size_t k = 0; k < mem.size(); ++k) memHash ^= word(k, mem[k]);
    auto set = [&](uint32_t k, uint64_t v) {
        memHash ^= word(k, mem[k]) ^ word(k, v);
        mem[k] = v;
    };
    auto apply = [&](const SymEvent& e) { // SymEvent::applyTo, keeping memHash
        if (e.writes()) set(e.key, e.wval);
        if (e.acc2 == Acc2::Write) set(e.key2, e.val2);
        if (e.accs)
            for (const WordAcc& w : *e.accs)
                if (w.write) set(w.key, w.val);
    };
    auto hash = [&] {
        uint64_t h = 1469598103934665603ull;
        for (uint32_t p : pos) h = (h ^ p) * 1099511628211ull;
        return (h ^ memHash) * 1099511628211ull;
    };
    struct Frame {
        uint32_t next = 0;       // the next thread to try from this state
        uint32_t stepped = ~0u;  // the thread stepped to reach the state above (for undo)
        uint32_t exclusive = kExclusiveUnknown; // exclusiveThread of this frame's state, once known
        uint64_t old = 0, old2 = 0; // the values its event overwrote (at key, at key2)
        uint32_t savedAt = 0;       // a multi-word event: its overwritten words are saved[savedAt..]
    };
    std::vector<uint64_t> saved; // the words multi-word events overwrote, a stack
    auto undo = [&](uint32_t t, const Frame& f) {
        const SymEvent& e = a.threads[t][pos[t]];
        if (e.accs) { // restore every word it wrote, in reverse (a word is written at most once per event)
            const auto& accs = *e.accs;
            size_t j = saved.size();
            for (size_t k = accs.size(); k-- > 0;)
                if (accs[k].write) set(accs[k].key, saved[--j]);
            saved.resize(f.savedAt);
        }
        if (e.acc2 == Acc2::Write) set(e.key2, f.old2);
        if (e.writes()) set(e.key, f.old);
    };
    std::vector<Frame> stack;
    seen.insert(hash());
    if (limits) limits->states++;
    if (visit({pos, mem, path})) return true;
    stack.push_back({});
    while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.exclusive == kExclusiveUnknown) f.exclusive = exclusiveThread(a, pos);
        bool moved = false;
        while (f.next < nt) {
            uint32_t t = f.next++;
            if (pos[t] == 0 && createdAt[t].first != ~0u && pos[createdAt[t].first] <= createdAt[t].second) continue;
            if (limits && !limits->cap.empty() && pos[t] >= limits->cap[t]) continue;
            if (!canStep(a, q, pos, mem, t, /*creatorChecked=*/true, f.exclusive)) continue;
            const SymEvent& e = a.threads[t][pos[t]];
            Frame child;
            child.stepped = t;
            if (e.writes()) child.old = mem[e.key];
            if (e.acc2 == Acc2::Write) child.old2 = mem[e.key2];
            if (e.accs) {
                child.savedAt = uint32_t(saved.size());
                for (const WordAcc& w : *e.accs)
                    if (w.write) saved.push_back(mem[w.key]);
            }
            apply(e);
            pos[t]++;
            if (!seen.insert(hash())) {
                pos[t]--;
                undo(t, child);
                continue;
            }
            path.push_back(t);
            if (limits) {
                if (limits->maxStates && limits->states >= limits->maxStates) {
                    limits->exhausted = true;
                    return false;
                }
                limits->states++;
            }
            if (visit({pos, mem, path})) return true;
            stack.push_back(child);
            moved = true;
            break;
        }
        if (moved) continue;
        Frame done = stack.back();
        stack.pop_back();
        if (done.stepped != ~0u) {
            pos[done.stepped]--;
            undo(done.stepped, done);
            path.pop_back();
        }
    }
    return false;
}

std::optional<Linearisation> realize(const Apo& a, const Order& q, SearchLimits* limits) {
    std::optional<Linearisation> out;
    search(
        a, &q,
        [&](const SearchState& s) {
            for (uint32_t t = 0; t < a.threads.size(); ++t)
                if (s.pos[t] != a.threads[t].size()) return false;
            out = s.path;
            return true;
        },
        limits);
    return out;
}

bool respects(const Apo& a, const Linearisation& lin) {
    const uint32_t nt = uint32_t(a.threads.size());
    std::vector<uint32_t> pos(nt, 0);
    std::vector<uint64_t> mem = a.init;
    std::vector<std::pair<uint32_t, uint32_t>> createdAt(nt, {~0u, 0});
    for (uint32_t t = 0; t < nt; ++t)
        for (uint32_t i = 0; i < a.threads[t].size(); ++i)
            if (a.threads[t][i].op == Op::Create && a.threads[t][i].other < nt) createdAt[a.threads[t][i].other] = {t, i};
    for (uint32_t t : lin) {
        if (t >= nt) return false;
        if (pos[t] == 0 && createdAt[t].first != ~0u && pos[createdAt[t].first] <= createdAt[t].second) return false;
        if (!canStep(a, nullptr, pos, mem, t)) return false;
        a.threads[t][pos[t]++].applyTo(mem);
    }
    for (uint32_t t = 0; t < nt; ++t)
        if (pos[t] != a.threads[t].size()) return false;
    return true;
}

ReplayedBase replayBase(const Apo& a, Linearisation base) {
    ReplayedBase r;
    r.base = std::move(base);
    const uint32_t nt = uint32_t(a.threads.size());
    r.pos.assign(nt, 0);
    r.lastStep.assign(nt, 0);
    r.mem.assign(a.init.begin(), a.init.end());
    r.undoAt.reserve(r.base.size() + 1);
    r.undo.reserve(r.base.size());
    const size_t keys = r.mem.size();
    for (size_t p = 0; p < r.base.size(); ++p) {
        r.undoAt.push_back(uint32_t(r.undo.size()));
        const uint32_t u = r.base[p];
        if (u >= nt || r.pos[u] >= a.threads[u].size()) return r;
        const SymEvent& e = a.threads[u][r.pos[u]++];
        if (!e.accs && e.acc2 == Acc2::None && e.guardKey == kNoKey) [[likely]] { // one access at most
            if ((e.reads() || e.writes()) && e.key >= keys) return r;
            if (e.reads() && r.mem[e.key] != e.rval) return r;
            if (e.writes()) {
                r.undo.push_back({e.key, r.mem[e.key]});
                r.mem[e.key] = e.wval;
            }
        } else {
            bool known = e.guardKey == kNoKey || e.guardKey < keys;
            forEachAccess(e, [&](uint32_t key, bool, uint64_t, uint64_t) { known &= key < keys; });
            if (!known || !e.enabledOn(r.mem)) return r;
            forEachAccess(e, [&](uint32_t key, bool write, uint64_t, uint64_t) {
                if (write) r.undo.push_back({key, r.mem[key]});
            });
            e.applyTo(r.mem);
        }
        r.lastStep[u] = uint32_t(p + 1);
    }
    r.undoAt.push_back(uint32_t(r.undo.size()));
    r.ok = true;
    return r;
}

std::optional<Linearisation> insertInto(const Apo& a, const Linearisation& base, uint32_t t, uint32_t k,
                                        uint32_t maxTries) {
    if (t >= a.threads.size() || k == 0 || k > a.threads[t].size()) return std::nullopt;
    // The base must not take any of t's block: replay it over a with t's block left out.
    const ReplayedBase r = replayBase(a, base);
    if (!r.ok || r.pos[t] != a.threads[t].size() - k) return std::nullopt;
    return insertInto(a, r, t, k, maxTries);
}

std::optional<Linearisation> insertInto(const Apo& a, const ReplayedBase& r, uint32_t t, uint32_t k,
                                        uint32_t maxTries) {
    const uint32_t nt = uint32_t(a.threads.size());
    const Linearisation& base = r.base;
    if (!r.ok || t >= nt || r.pos.size() != nt || k == 0 || k > a.threads[t].size() || base.size() + k != a.size() ||
        maxTries == 0)
        return std::nullopt;
    const uint32_t len = uint32_t(a.threads[t].size()) - k; // t's events in base
    if (r.pos[t] != len) return std::nullopt;
    const SymEvent& first = a.threads[t][len];
    // Where the block may go: after t's earlier events, where its first event observes its value.
    const size_t from = r.lastStep[t];
    // (Scratch kept across calls: this runs for every candidate of every node.) The state after base, with the
    // keys a knows beyond the base's at their initial values (no event of the base accesses them).
    thread_local std::vector<uint32_t> pos;
    thread_local std::vector<uint64_t> mem;
    pos.assign(r.pos.begin(), r.pos.end());
    mem.assign(r.mem.begin(), r.mem.end());
    for (size_t key = mem.size(); key < a.init.size(); ++key) mem.push_back(a.init[key]);
    // At the end first (the common case, and the one whose child resumes the parent's state): the state there is
    // the one after the base, and no later event can be disturbed.
    if (first.enabledOn(mem)) {
        thread_local std::vector<uint32_t> pos2;
        thread_local std::vector<uint64_t> mem2;
        pos2.assign(pos.begin(), pos.end());
        mem2.assign(mem.begin(), mem.end());
        bool ok = true;
        for (uint32_t i = 0; i < k && ok; ++i) {
            if (!canStep(a, nullptr, pos2, mem2, t)) ok = false;
            else a.threads[t][pos2[t]++].applyTo(mem2);
        }
        if (ok) {
            Linearisation lin;
            lin.reserve(base.size() + k);
            lin.assign(base.begin(), base.end());
            lin.insert(lin.end(), k, t);
            return lin;
        }
        if (maxTries-- <= 1) return std::nullopt;
    }
    // The last maxTries places before the end, latest first, with their states: walking back from the end,
    // undoing each step (what it overwrote), down to t's last event.
    std::vector<std::pair<size_t, std::pair<std::vector<uint32_t>, std::vector<uint64_t>>>> states;
    for (size_t p = base.size(); p-- > from && states.size() < maxTries;) {
        for (uint32_t j = r.undoAt[p + 1]; j-- > r.undoAt[p];) mem[r.undo[j].first] = r.undo[j].second;
        --pos[base[p]];
        if (first.enabledOn(mem)) states.push_back({p, {pos, mem}});
    }
    // base respects a's events but t's block (a parent's witness): inserted at p, the block must be able to run
    // there (canStep: values, its creator, sections, a join), must not leave an atomic section open before other
    // threads' events, and every later event must still observe its value. Nothing else changes for them: t has no
    // event after p, t is not finished (no join of it passes), and a section another thread is in at p makes the
    // block's first canStep fail.
    for (auto& [p, state] : states) {
        auto& [ps, ms] = state;
        bool ok = true;
        for (uint32_t i = 0; i < k && ok; ++i) {
            if (!canStep(a, nullptr, ps, ms, t)) ok = false;
            else a.threads[t][ps[t]++].applyTo(ms);
        }
        if (!ok || (p < base.size() && exclusiveThread(a, ps) == t)) continue;
        for (size_t i = p; i < base.size() && ok; ++i) {
            const uint32_t u = base[i];
            const SymEvent& e = a.threads[u][ps[u]++];
            if (!e.enabledOn(ms)) ok = false;
            else e.applyTo(ms);
        }
        if (!ok) continue;
        Linearisation lin;
        lin.reserve(base.size() + k);
        lin.assign(base.begin(), base.begin() + p);
        lin.insert(lin.end(), k, t);
        lin.insert(lin.end(), base.begin() + p, base.end());
        return lin;
    }
    return std::nullopt;
}

} // namespace skein::explore::vhb
