// The vhb explorer, part 4 of 4 (VhbExplorer.h): what is checked on a maximal node besides its witness — the
// distinct final memories of its class (the final-state monitor) and the data races some linearisation of it
// exhibits (DESIGN.md "Final states", "Data races").
#include "core/explore/vhb/VhbExplorer.h"

#include <functional>
#include <map>
#include <set>
#include <unordered_set>


namespace skein::explore::vhb::detail {

// The final-state monitor: the node fixes what every thread observes, not the order of the last writes to each
// location; the distinct final memories are the complete linearisations' (DESIGN.md "Final states").
std::map<uint64_t, Linearisation> VhbExplorer::finalMemories(const Node& n, const Order& closed) {
    std::map<uint64_t, Linearisation> memories;
    SearchLimits limits;
    limits.maxStates = 2'000'000;
    search(
        n.apo, &closed,
        [&](const SearchState& s) {
            for (uint32_t t = 0; t < n.apo.threads.size(); ++t)
                if (s.pos[t] != n.apo.threads[t].size()) return false;
            uint64_t h = 1469598103934665603ull;
            for (uint64_t m : s.mem) h = mix(h, m);
            memories.try_emplace(h, s.path);
            return false;
        },
        &limits);
    monitorStates_ += limits.states;
    if (limits.exhausted) runs_.addBound("vhb: the final-state monitor gave up on a class with over 2M states");
    return memories;
}

void VhbExplorer::monitorFinalStates(const Node& n, const Order& closed) {
    auto t0 = Clock::now();
    std::map<uint64_t, Linearisation> memories = finalMemories(n, closed);
    if (memories.size() <= 1) {
        finals_.insert(ex_->finalStateHash());
    } else {
        for (auto& [_, lin] : memories)
            if (replay(toSchedule(n, lin))) finals_.insert(ex_->finalStateHash());
    }
    monitorMs_ += msSince(t0);
}

void VhbExplorer::spinDeadlocks(const Node& n, const Order& closed) {
    auto t0 = Clock::now();
    std::map<uint64_t, Linearisation> memories = finalMemories(n, closed);
    if (memories.size() > 1) // (one: the witness's, checked by collect())
        for (auto& [_, lin] : memories)
            if (replay(toSchedule(n, lin)) && addTerminalErrors(errors_, *ex_, schedule_)) {
                stop_ = true;
                break;
            }
    monitorMs_ += msSince(t0);
}

// Data races: two conflicting accesses of different threads (one a write, not both atomic) that some execution
// of the node runs back to back — then nothing orders them (DESIGN.md "Data races"). The witness execution only
// shows the races of one linearisation, so each new event is paired with the node's earlier conflicting ones and
// a prefix ending with the pair adjacent is searched for.
void VhbExplorer::findRaces(const Node& n, const Order& closed) {
    const auto t0 = Clock::now();
    struct Timer { // race_ms, however the search ends
        double& ms;
        Clock::time_point t0;
        ~Timer() { ms += msSince(t0); }
    } timer{raceMs_, t0};
    // A copy: the replays below change the executor's trace. (Any linearisation of the node has the same events
    // per thread.)
    const std::vector<Event> trace = ex_->trace();
    std::vector<std::vector<uint32_t>> traceIndex(n.apo.threads.size());
    for (uint32_t i = 0; i < trace.size(); ++i) traceIndex[trace[i].tid].push_back(i);
    struct Access {
        uint32_t t, i;
    };
    std::vector<Access> accesses;
    auto isFree = [&](const SymEvent& e) { return e.role == Role::Free; };
    // The memory words an event accesses, each with whether it writes it (a use after free keeps its location in
    // key2; a multi-word event accesses each of its words: DESIGN.md "Multi-location accesses"), sorted by key so
    // that the tests below are merges and binary searches — a memcpy of 4,096 words against a memset of them was
    // 4,096² comparisons per test with the scans (PERFORMANCE.md "Large objects").
    auto memAccs = [&](const SymEvent& e) {
        std::vector<std::pair<uint32_t, bool>> out;
        if (e.role == Role::UseAfterFree) {
            out.push_back({e.key2, e.val2 != 0});
            return out;
        }
        forEachAccess(e, [&](uint32_t k, bool write, uint64_t, uint64_t) {
            if (keyKind_[k] == kMemory) out.push_back({k, write});
        });
        sortRuns(out, std::less<>()); // a key's read, then its write: keep one, writing if either does
        size_t n = 0;
        for (size_t i = 0; i < out.size(); ++i) {
            if (n && out[n - 1].first == out[i].first) out[n - 1].second = out[n - 1].second || out[i].second;
            else out[n++] = out[i];
        }
        out.resize(n);
        return out;
    };
    auto hasKey = [](const std::vector<std::pair<uint32_t, bool>>& keys, uint32_t k) {
        auto it = std::lower_bound(keys.begin(), keys.end(), std::make_pair(k, false));
        return it != keys.end() && it->first == k ? &*it : nullptr;
    };
    // Does e access the heap object of alive key k (its address's object, or a copy's source: an alive read in accs)?
    auto touchesObject = [&](const SymEvent& e, uint32_t k) {
        if (e.role == Role::UseAfterFree) return e.key == k;
        if (e.acc2 == Acc2::Read && e.key2 == k) return true;
        return e.accs && std::any_of(e.accs->begin(), e.accs->end(), [&](const WordAcc& w) { return w.key == k; });
    };
    // Conflicting accesses: of one memory word with a write among them, a free and an access of its object,
    // or two frees of one object (as for the race detector, where a free writes its whole object).
    auto conflict = [&](const SymEvent& a, const SymEvent& b, const std::vector<std::pair<uint32_t, bool>>& ma,
                        const std::vector<std::pair<uint32_t, bool>>& mb) {
        for (size_t i = 0, j = 0; i < ma.size() && j < mb.size();) { // (both sorted by key: memAccs)
            if (ma[i].first < mb[j].first) ++i;
            else if (mb[j].first < ma[i].first) ++j;
            else if (ma[i++].second || mb[j++].second) return true;
        }
        if (isFree(a) && isFree(b)) return a.key == b.key;
        return (isFree(a) && touchesObject(b, a.key)) || (isFree(b) && touchesObject(a, b.key));
    };
    auto bytesMeet = [](const Event& x, const Event& y) {
        auto meet = [](std::pair<uint64_t, uint64_t> a, std::pair<uint64_t, uint64_t> b) {
            return a.first < a.second && b.first < b.second && a.first < b.second && b.first < a.second;
        };
        auto wx = x.writeRange(), wy = y.writeRange();
        if (meet(wx, wy)) return true;
        for (int k = 0; k < 2; ++k)
            if (meet(wx, y.readRange(k)) || meet(wy, x.readRange(k))) return true;
        return false;
    };
    std::vector<std::vector<std::pair<uint32_t, bool>>> maccs; // memAccs of each access, once
    for (uint32_t t = 0; t < n.apo.threads.size(); ++t)
        for (uint32_t i = 0; i < n.apo.threads[t].size(); ++i) {
            const SymEvent& e = n.apo.threads[t][i];
            if (auto ma = memAccs(e); !ma.empty() || isFree(e)) {
                accesses.push_back({t, i});
                maccs.push_back(std::move(ma));
            }
        }
    // The mutexes each access holds: two accesses under a common mutex cannot be adjacent (a cheap filter).
    std::vector<std::vector<std::vector<uint32_t>>> held(n.apo.threads.size());
    for (uint32_t t = 0; t < n.apo.threads.size(); ++t) {
        std::vector<uint32_t> locks;
        for (const SymEvent& e : n.apo.threads[t]) {
            bool mutex = (e.op == Op::Rmw || e.op == Op::Write) && keyKind_[e.key] == kMutex;
            if (mutex && e.op == Op::Rmw && e.wval == 1) locks.push_back(e.key);
            if (mutex && e.op == Op::Write) std::erase(locks, e.key);
            if (e.acc2 == Acc2::Write && keyKind_[e.key2] == kMutex) std::erase(locks, e.key2); // a cond wait
            held[t].push_back(locks);
        }
    }
    auto commonLock = [&](uint32_t t1, uint32_t i1, uint32_t t2, uint32_t i2) {
        for (uint32_t m : held[t1][i1])
            if (std::find(held[t2][i2].begin(), held[t2][i2].end(), m) != held[t2][i2].end()) return true;
        return false;
    };
    // Does event k of thread t acquire something in `released` (a lock of a mutex, an atomic read of a word)?
    auto acquiresFrom = [&](uint32_t t, uint32_t k, const std::vector<uint32_t>& released) {
        const SymEvent& e = n.apo.threads[t][k];
        const bool atomic = trace[traceIndex[t][k]].atomic;
        bool any = false;
        forEachAccess(e, [&](uint32_t key, bool write, uint64_t, uint64_t) {
            if (!write && (keyKind_[key] == kMutex || atomic) &&
                std::find(released.begin(), released.end(), key) != released.end())
                any = true;
        });
        return any;
    };
    // Does it write a word of `keys` again (a later write becomes the detector's last one)?
    auto touches = [&](uint32_t t, uint32_t k, const std::vector<std::pair<uint32_t, bool>>& keys) {
        bool any = false;
        forEachAccess(n.apo.threads[t][k], [&](uint32_t key, bool write, uint64_t, uint64_t) {
            any = any || (write && hasKey(keys, key));
        });
        return any;
    };
    // Program order with create and join: two accesses it orders cannot be adjacent in any linearisation.
    const Order base(n.apo);
    // Every linearisation that respects the node's values respects its closure (Closure adds only orderings that
    // hold in all of them): the searches below go through the closed order, which leaves far fewer states.
    const Order* q = &closed;

    // ---- Pairs no prefix makes adjacent: the detector's happens-before, tracked (DESIGN.md "Data races") ----
    // The detector's view of event k of thread t (RaceDetector::onEvent): the witness trace's event (any
    // linearisation has the same events per thread).
    const uint32_t nt = uint32_t(n.apo.threads.size());
    auto ev = [&](uint32_t t, uint32_t k) -> const Event& { return trace[traceIndex[t][k]]; };
    auto isAtomicWrite = [](const Event& e, uint64_t a) { return e.isMemory() && e.atomic && e.writes() && e.addr == a; };
    // Static: from which event on each thread is after `first` in the detector's happens-before in every
    // linearisation respecting Q (~0u: none). first's thread from first on; a thread from an acquire of an object
    // a tainted event released before it in Q (a mutex's lock after an unlock of it — each lock in between joins the
    // previous unlock, so the chain carries it —, an atomic read after an atomic write of the word — the detector
    // joins every write of an atomic word); from a join of a tainted thread; a whole thread a tainted event creates.
    // Only orderings every linearisation has, so a pair it orders is ordered in all of them.
    // The releases of each mutex and atomic word (built once per node, when a pair first needs them).
    std::map<std::pair<bool, uint64_t>, std::vector<Access>> releases;
    bool releasesBuilt = false;
    auto hbAfter = [&](Access first) {
        if (!releasesBuilt) {
            releasesBuilt = true;
            for (uint32_t w = 0; w < nt; ++w)
                for (uint32_t j = 0; j < n.apo.threads[w].size(); ++j) {
                    const Event& x = ev(w, j);
                    if (x.kind == EventKind::Unlock) releases[{true, x.addr}].push_back({w, j});
                    if (x.kind == EventKind::CondWait) releases[{true, x.addr2}].push_back({w, j});
                    if (isAtomicWrite(x, x.addr)) releases[{false, x.addr}].push_back({w, j});
                }
        }
        std::vector<uint32_t> from(nt, ~0u);
        from[first.t] = first.i;
        auto released = [&](uint32_t u, uint32_t k, bool mutex, uint64_t obj) {
            auto it = releases.find({mutex, obj});
            if (it == releases.end()) return false;
            for (const Access& x : it->second)
                if (from[x.t] != ~0u && x.i >= from[x.t] && q->before(q->id(x.t, x.i), q->id(u, k))) return true;
            return false;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (uint32_t u = 0; u < nt; ++u) {
                for (uint32_t w = 0; w < nt; ++w) // creates by tainted events
                    for (uint32_t j = from[w]; from[w] != ~0u && j < n.apo.threads[w].size(); ++j)
                        if (ev(w, j).kind == EventKind::ThreadCreate && ev(w, j).value == u && from[u] != 0) {
                            from[u] = 0;
                            changed = true;
                        }
                const uint32_t lim = std::min<uint32_t>(from[u], uint32_t(n.apo.threads[u].size()));
                for (uint32_t k = 0; k < lim; ++k) {
                    const Event& y = ev(u, k);
                    bool acq = false;
                    if (y.kind == EventKind::Lock || (y.kind == EventKind::TryLock && y.value)) acq = released(u, k, true, y.addr);
                    else if (y.kind == EventKind::ThreadJoin) acq = y.value < nt && from[y.value] != ~0u;
                    else if (y.isMemory() && y.atomic && y.reads()) acq = released(u, k, false, y.addr);
                    if (acq) {
                        from[u] = k;
                        changed = true;
                        break;
                    }
                }
            }
        }
        return from;
    };
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> hbAfterCache; // per first access, this node
    // A race found by either search: replays the prefix (first at `firstAt`, second last) for its counterexample.
    // False when the witness does not replay (an internal limit is set; findRaces must stop).
    auto reportRace = [&](const Linearisation& path, uint32_t firstAt, const ErrorKey& key) {
        if (!replay(toSchedule(n, path))) {
            setLimit("internal: a race witness did not replay in the executor");
            return false;
        }
        racesFound_.insert(key);
        const uint32_t last = uint32_t(ex_->trace().size());
        FoundError f = raceError(*ex_, firstAt, last - 1);
        if (errors_.add(f.key, std::move(f.report), *ex_, schedule_, f.cut)) stop_ = true;
        return true;
    };
    // Dynamic: a prefix of a linearisation respecting Q and the values that runs `first`, then anything, then
    // `second`, with the detector's happens-before tracked as a taint (the threads whose clock holds first, the
    // mutexes whose last unlock and the atomic words one of whose writes carried it): second's thread untainted
    // when it runs second (after its own acquire), and no write of first's words in between (the detector would
    // compare second with that one). Depth-first with a visited set and a budget; `firstAt` is first's position.
    auto taintSearch = [&](Access first, Access second, const std::vector<std::pair<uint32_t, bool>>& e1keys,
                           Linearisation& out, uint32_t& firstAt, uint64_t& states) {
        constexpr uint64_t kBudget = 20'000;
        std::vector<uint32_t> pos(nt, 0);
        std::vector<uint64_t> mem = n.apo.init;
        std::vector<char> thr(nt, 0);
        std::set<uint64_t> locksT, atomsT;
        Linearisation path;
        bool firstDone = false;
        std::unordered_set<uint64_t> seen;
        // The bytes of first's access still in the detector's shadow (a mask from `lo`; an access of over 64
        // bytes is tracked by word instead, conservatively: any write of one of its words ends the search).
        const Event& f = ev(first.t, first.i);
        const bool fWrites = f.writes() || f.kind == EventKind::Rmw;
        auto [lo, hi] = fWrites ? f.writeRange() : f.readRange(0);
        if (f.kind == EventKind::Rmw) lo = f.addr, hi = f.addr + f.size;
        const bool byBytes = hi > lo && hi - lo <= 64 && (fWrites || f.readRange(1).first >= f.readRange(1).second);
        const uint64_t full = !byBytes ? 0 : hi - lo == 64 ? ~0ull : (uint64_t(1) << (hi - lo)) - 1;
        uint64_t alive = full;
        auto maskOf = [&](std::pair<uint64_t, uint64_t> r) -> uint64_t {
            uint64_t m = 0;
            for (uint64_t a = std::max(r.first, lo); a < std::min(r.second, hi); ++a) m |= uint64_t(1) << (a - lo);
            return m;
        };
        std::function<bool()> dfs = [&]() -> bool {
            if (states >= kBudget) return false;
            uint64_t h = firstDone ? 7 + alive : 3;
            for (uint32_t p : pos) h = (h ^ p) * 1099511628211ull;
            for (uint64_t m : mem) h = (h ^ m) * 1099511628211ull;
            for (char c : thr) h = (h ^ uint64_t(c)) * 1099511628211ull;
            for (uint64_t l : locksT) h = (h ^ l) * 1099511628211ull;
            for (uint64_t a : atomsT) h = (h ^ (a + 1)) * 1099511628211ull;
            if (!seen.insert(h).second) return false;
            ++states;
            const uint32_t excl = exclusiveThread(n.apo, pos);
            for (uint32_t t = 0; t < nt; ++t) {
                if (pos[t] >= n.apo.threads[t].size()) continue;
                if (t == second.t && pos[t] == second.i && !firstDone) continue; // second only after first
                if (!canStep(n.apo, q, pos, mem, t, false, excl)) continue;
                const uint32_t k = pos[t];
                const Event& e = ev(t, k);
                const SymEvent& se = n.apo.threads[t][k];
                // The detector's step, on the taint.
                auto saveThr = thr;
                auto saveL = locksT, saveA = atomsT;
                const bool saveFirst = firstDone;
                if (e.kind == EventKind::Lock || (e.kind == EventKind::TryLock && e.value)) thr[t] |= char(locksT.count(e.addr));
                if (e.kind == EventKind::ThreadJoin && e.value < nt) thr[t] |= thr[e.value];
                if (e.isMemory() && e.atomic && e.reads()) thr[t] |= char(atomsT.count(e.addr));
                if (firstDone && t == second.t && k == second.i) {
                    bool meets = !byBytes;
                    if (byBytes) {
                        uint64_t m = maskOf(e.writeRange()) | maskOf(e.readRange(0)) | maskOf(e.readRange(1));
                        if (e.kind == EventKind::Rmw) m |= maskOf({e.addr, e.addr + e.size});
                        meets = (m & alive) != 0;
                    }
                    if (!thr[t] && meets) { // unordered: a race, as the detector reports it
                        path.push_back(t);
                        out = path;
                        return true;
                    }
                    thr = saveThr;
                    continue;
                }
                // first would no longer be the word's last access (a write by anyone), or its thread's last read of it
                // (the detector keeps one read per thread): conservative, at the granularity of words.
                const uint64_t aliveBefore = alive;
                if (firstDone && byBytes) {
                    // A write takes the bytes it covers; a read of first's thread replaces a read of first's.
                    uint64_t gone = maskOf(e.writeRange());
                    if (e.kind == EventKind::Rmw) gone |= maskOf({e.addr, e.addr + e.size});
                    if (!fWrites && t == first.t) gone |= maskOf(e.readRange(0)) | maskOf(e.readRange(1));
                    alive &= ~gone;
                    if (!alive) {
                        alive = aliveBefore;
                        thr = saveThr;
                        continue;
                    }
                } else if (firstDone) {
                    bool again = false;
                    if (t == first.t)
                        forEachAccess(se, [&](uint32_t key, bool, uint64_t, uint64_t) {
                            auto k1 = hasKey(e1keys, key); // a read of first's is replaced
                            again = again || (k1 && !k1->second);
                        });
                    if (again || touches(t, k, e1keys)) {
                        thr = saveThr;
                        continue;
                    }
                }
                if (t == first.t && k == first.i) {
                    firstDone = true;
                    firstAt = uint32_t(path.size());
                    thr[t] = 1;
                }
                if (e.kind == EventKind::Unlock) {
                    if (thr[t]) locksT.insert(e.addr);
                    else locksT.erase(e.addr);
                }
                if (e.kind == EventKind::CondWait) {
                    if (thr[t]) locksT.insert(e.addr2);
                    else locksT.erase(e.addr2);
                }
                if (e.kind == EventKind::ThreadCreate && e.value < nt) thr[e.value] |= thr[t];
                if (e.isMemory() && e.atomic && e.writes() && thr[t]) atomsT.insert(e.addr);
                if (!thr[second.t]) { // a tainted second thread stays tainted: no race on this branch
                    auto saveMem = mem;
                    pos[t]++;
                    se.applyTo(mem);
                    path.push_back(t);
                    if (dfs()) return true;
                    path.pop_back();
                    pos[t]--;
                    mem = std::move(saveMem);
                }
                thr = std::move(saveThr);
                locksT = std::move(saveL);
                atomsT = std::move(saveA);
                firstDone = saveFirst;
                alive = aliveBefore;
            }
            return false;
        };
        return dfs();
    };
    for (size_t bi = 0; bi < accesses.size(); ++bi) {
        const Access& b = accesses[bi];
        const SymEvent& eb = n.apo.threads[b.t][b.i];
        const Event& tb = trace[traceIndex[b.t][b.i]];
        for (size_t ai = 0; ai < accesses.size(); ++ai) {
            const Access& a = accesses[ai];
            // Each unordered pair once (b's thread after a's); pairs of events the parent had were tried there,
            // but with the parent's values: a node's values can make a pair adjacent that was not before.
            if (a.t >= b.t || commonLock(a.t, a.i, b.t, b.i)) continue;
            if (base.before(base.id(a.t, a.i), base.id(b.t, b.i)) || base.before(base.id(b.t, b.i), base.id(a.t, a.i)))
                continue;
            const SymEvent& ea = n.apo.threads[a.t][a.i];
            const Event& ta = trace[traceIndex[a.t][a.i]];
            if ((ta.atomic && tb.atomic) || !conflict(ea, eb, maccs[ai], maccs[bi])) continue;
            // Locations are words, but the race detector compares bytes: accesses of different bytes of one word
            // (a char and its neighbour) do not race.
            if (!isFree(ea) && !isFree(eb) && !bytesMeet(ta, tb)) continue;
            ErrorKey key = ErrorKey::race(ta.loc, tb.loc);
            if (racesFound_.count(key) || errors_.has(key)) continue;
            for (int order = 0; order < 2; ++order) {
                Access first = order ? b : a, second = order ? a : b;
                const SymEvent& e1 = n.apo.threads[first.t][first.i];
                const SymEvent& e2 = n.apo.threads[second.t][second.i];
                const auto& e1keys = maccs[order ? bi : ai];
                if (q->before(q->id(second.t, second.i), q->id(first.t, first.i))) continue; // never in this order
                // Between first and second the search below runs only first's atomic section and second's
                // thread: if Q puts first's thread's next event outside that section before second, no
                // linearisation makes the pair adjacent (ticket_lock N=5: the release store → the next
                // thread's spin read orders every critical section; the search found that over 11 M states).
                {
                    uint32_t k = first.i + 1;
                    const auto& evs = n.apo.threads[first.t];
                    while (k < evs.size() && e1.section && evs[k].section == e1.section) ++k;
                    if (k < evs.size() && q->before(q->id(first.t, k), q->id(second.t, second.i))) continue;
                }
                std::optional<Linearisation> found;
                uint32_t firstAt = 0;
                SearchLimits limits;
                limits.maxStates = 200'000;
                // Neither thread of the pair needs to go past its access before the check below.
                limits.cap.assign(n.apo.threads.size(), ~0u);
                limits.cap[first.t] = first.i;
                limits.cap[second.t] = second.i;
                search(
                    n.apo, q,
                    [&](const SearchState& s) {
                        // Between first and second: the rest of first's atomic section (it runs before anything
                        // else), then events of second's thread that acquire nothing first's thread released
                        // after first (RaceDetector: a lock from an unlock, an atomic read from an atomic write, a
                        // join) — then nothing orders first before second, as for the race detector. Neither
                        // side may write the location again (the detector compares with the last write).
                        if (s.pos[first.t] != first.i || s.pos[second.t] > second.i) return false;
                        if (!canStep(n.apo, q, s.pos, s.mem, first.t)) return false;
                        auto pos = s.pos;
                        auto mem = s.mem;
                        Linearisation path = s.path;
                        firstAt = uint32_t(path.size());
                        std::vector<uint32_t> released; // locations first's thread wrote from first on
                        auto step = [&](uint32_t t) {
                            const SymEvent& e = n.apo.threads[t][pos[t]++];
                            path.push_back(t);
                            e.applyTo(mem);
                            if (t == first.t)
                                forEachAccess(e, [&](uint32_t key, bool write, uint64_t, uint64_t) {
                                    if (write) released.push_back(key);
                                });
                        };
                        step(first.t);
                        while (exclusiveThread(n.apo, pos) == first.t) {
                            if (!canStep(n.apo, q, pos, mem, first.t) || touches(first.t, pos[first.t], e1keys))
                                return false;
                            step(first.t);
                        }
                        for (; pos[second.t] < second.i; step(second.t)) {
                            uint32_t k = pos[second.t];
                            const SymEvent& e = n.apo.threads[second.t][k];
                            if (!canStep(n.apo, q, pos, mem, second.t) || touches(second.t, k, e1keys)) return false;
                            if (e.op == Op::Join && e.other == first.t) return false;
                            if (acquiresFrom(second.t, k, released)) return false;
                        }
                        if (!canStep(n.apo, q, pos, mem, second.t)) return false;
                        step(second.t);
                        found = std::move(path);
                        return true;
                    },
                    &limits);
                (void)e2;
                if (kTrace)
                    std::fprintf(stderr, "  race? t%u:%u line %u, t%u:%u line %u: %s (%llu states)\n", first.t,
                                 first.i, (order ? tb : ta).loc, second.t, second.i, (order ? ta : tb).loc,
                                 found ? "yes" : "no", (unsigned long long)limits.states);
                raceStates_ += limits.states;
                if (!found) continue;
                if (!reportRace(*found, firstAt, key)) return;
                break;
            }
            if (stop_) return;
            if (racesFound_.count(key)) continue;
            // No prefix makes the pair adjacent: one may still leave it unordered with other events in between
            // (the first's thread running on, say). Unless Q orders it for the detector in every linearisation.
            for (int order = 0; order < 2 && !racesFound_.count(key); ++order) {
                Access first = order ? b : a, second = order ? a : b;
                if (q->before(q->id(second.t, second.i), q->id(first.t, first.i))) continue;
                auto it = hbAfterCache.find({first.t, first.i});
                if (it == hbAfterCache.end()) it = hbAfterCache.emplace(std::make_pair(first.t, first.i), hbAfter(first)).first;
                if (it->second[second.t] <= second.i) continue; // ordered in every linearisation
                Linearisation path;
                uint32_t firstAt = 0;
                uint64_t states = 0;
                const bool hit = taintSearch(first, second, maccs[order ? bi : ai], path, firstAt, states);
                raceStates_ += states;
                taintSearches_++;
                if (states >= 20'000 && !hit) {
                    // Undecided: a race may be missed, so the verdict must not be "safe" (as for the monitor).
                    taintSearchesGaveUp_++;
                    runs_.addBound("vhb: a race search with happens-before tracked gave up after 20,000 states");
                }
                if (!hit) continue;
                if (!reportRace(path, firstAt, key)) return;
            }
            if (stop_) return;
        }
    }
}

} // namespace skein::explore::vhb::detail
