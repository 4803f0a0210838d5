// Infeasibility and final memories from mutual exclusion derived from the values (PERFORMANCE.md "Cheaper nodes",
// ⊥ in a critical section; "Critical sections run alone", the order of the critical sections): a mutex whose
// writes alternate a lock and a release in every thread makes its critical sections mutually exclusive in every
// linearisation respecting the values, which decides what their reads can observe without building an order.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "core/explore/vhb/Apo.h"

namespace skein::explore::vhb {

namespace {
[[gnu::noinline]] bool accessesAny(const SymEvent& e, uint32_t key, bool writesOnly) {
    bool hit = false;
    forEachAccess(e, [&](uint32_t k, bool write, uint64_t, uint64_t) { hit |= k == key && (write || !writesOnly); });
    return hit;
}
} // namespace

namespace {
// One critical section's traffic on x: what its first access of x reads (when a read), what its last write leaves.
struct SectionUnit {
    std::optional<uint64_t> entry, exit;
};
} // namespace

// DESIGN.md "Critical sections run alone", the ⊥ by the order of the critical sections. When m's writes alternate,
// in every thread, a lock (a read-modify-write 0 → 1 of m alone) and a release (any other write of 0 to m: an
// unlock, a condition wait), from an initial 0, m is 1 exactly while one thread is between a lock and its
// release: the sections are mutually exclusive, hence totally ordered, in every linearisation respecting the
// values. When moreover every write of x is inside one (single-location accesses of x only), each section's first
// access of x, when a read, observes what the last section before it that wrote x left, or the initial value. So
// the sections' traffic on x is a merge of the threads' sequences of sections; a depth-first search over merges
// (positions per thread, value of x) gives every value x can hold after all of them — a superset of what the
// linearisations give, since only x is looked at. With `open` (a thread that ends inside the section it began at
// event `from`): its own events from there are not a section; nothing of another thread can follow its lock.
// Nothing when a condition does not hold or the search passes its budget.
std::optional<std::vector<uint64_t>> finalsBySections(const Apo& a, uint32_t m, uint32_t x, uint32_t open,
                                                       size_t from) {
    if (m == x || m >= a.init.size() || x >= a.init.size() || a.init[m] != 0) return std::nullopt;
    std::vector<std::vector<SectionUnit>> units(a.threads.size());
    bool impossible = false; // (only once every condition is known to hold)
    for (uint32_t u = 0; u < a.threads.size(); ++u) {
        const auto& evs = a.threads[u];
        const size_t end = u == open ? from : evs.size();
        bool inside = false, written = false, touched = false;
        SectionUnit cur;
        for (size_t i = 0; i < end; ++i) {
            const SymEvent& e = evs[i];
            bool writesM = false, readsM = false, onX = false;
            forEachAccess(e, [&](uint32_t k, bool write, uint64_t val, uint64_t) {
                if (k == m) (write ? writesM : readsM) = true;
                if (k == m && write && val != 0 && !(e.op == Op::Rmw && e.rval == 0 && val == 1)) writesM = readsM = true;
                onX |= k == x;
            });
            if (writesM || readsM) {
                const bool lock = e.op == Op::Rmw && e.key == m && e.rmwWrites && e.rval == 0 && e.wval == 1 && !e.accs &&
                                  e.acc2 == Acc2::None;
                const bool release = writesM && !readsM; // a write of 0 (the check above) that does not read m
                if (onX || (!lock && !release) || lock == inside) return std::nullopt; // not alternating
                if (lock) {
                    inside = true, written = false, touched = false, cur = {};
                } else {
                    if (touched) units[u].push_back(cur);
                    inside = false;
                }
                continue;
            }
            if (!onX) continue;
            if (e.accs || e.acc2 != Acc2::None || e.key != x) return std::nullopt; // multi-location accesses of x
            if (!inside) {
                if (e.writes()) return std::nullopt; // a write of x outside the sections
                continue; // a read outside observes anything: the relaxation ignores it
            }
            touched = true;
            if (e.reads() && !written) {
                if (cur.entry && *cur.entry != e.rval) impossible = true; // one entry value, two reads
                cur.entry = e.rval;
            }
            if (e.writes()) {
                written = true;
                cur.exit = e.wval;
            }
        }
        if (inside) return std::nullopt; // (the open thread's section begins at `from`, after its events here)
    }
    if (impossible) return std::vector<uint64_t>{};
    std::vector<uint32_t> pos(a.threads.size(), 0);
    std::unordered_set<uint64_t> seen;
    std::vector<uint64_t> finals;
    size_t budget = 50'000;
    bool gaveUp = false;
    std::function<void(uint64_t)> dfs = [&](uint64_t val) {
        if (gaveUp) return;
        uint64_t h = val * 0x9e3779b97f4a7c15ull;
        bool done = true;
        for (size_t u = 0; u < pos.size(); ++u) {
            h = (h ^ pos[u]) * 1099511628211ull;
            done &= pos[u] == units[u].size();
        }
        if (!seen.insert(h).second) return;
        if (done) {
            finals.push_back(val);
            return;
        }
        if (--budget == 0) {
            gaveUp = true;
            return;
        }
        for (size_t u = 0; u < pos.size() && !gaveUp; ++u) {
            if (pos[u] == units[u].size()) continue;
            const SectionUnit& s = units[u][pos[u]];
            if (s.entry && *s.entry != val) continue;
            ++pos[u];
            dfs(s.exit.value_or(val));
            --pos[u];
        }
    };
    dfs(a.init[x]);
    if (gaveUp) return std::nullopt;
    return finals;
}

bool finalMemoryFixed(const Apo& a) {
    std::vector<uint32_t> mutexes; // locations some event locks (a read-modify-write 0 → 1)
    for (const auto& th : a.threads)
        for (const SymEvent& e : th)
            if (e.op == Op::Rmw && e.rmwWrites && e.rval == 0 && e.wval == 1 && !e.accs && e.acc2 == Acc2::None &&
                std::find(mutexes.begin(), mutexes.end(), e.key) == mutexes.end())
                mutexes.push_back(e.key);
    // Per location, the value each thread's last write of it leaves: the final value is one of them.
    std::vector<std::vector<std::optional<uint64_t>>> last(a.init.size());
    for (uint32_t u = 0; u < a.threads.size(); ++u)
        for (const SymEvent& e : a.threads[u])
            forEachAccess(e, [&](uint32_t k, bool write, uint64_t val, uint64_t) {
                if (!write || k >= last.size()) return;
                if (last[k].size() < a.threads.size()) last[k].resize(a.threads.size());
                last[k][u] = val;
            });
    for (uint32_t x = 0; x < last.size(); ++x) {
        std::optional<uint64_t> one;
        bool same = true;
        for (const auto& v : last[x])
            if (v) {
                if (one && *one != *v) same = false;
                one = v;
            }
        if (same) continue; // written by one thread, or every thread's last write leaves the same value
        bool fixed = false;
        for (uint32_t m : mutexes)
            if (auto f = finalsBySections(a, m, x, ~0u, 0)) {
                fixed = f->size() == 1;
                break;
            }
        if (!fixed) return false;
    }
    return true;
}

bool bottomInSection(const Apo& a, uint32_t t) {
    if (t >= a.threads.size() || a.threads[t].empty()) return false;
    const auto& evs = a.threads[t];
    const size_t n = evs.size() - 1;
    const SymEvent& r = evs[n];
    if (r.op != Op::Read || r.accs || r.acc2 != Acc2::None || r.guardKey != kNoKey) return false;
    const uint32_t x = r.key;
    // Does e access key (write it, with writesOnly)? (Most events have one access: no forEachAccess.)
    auto accesses = [](const SymEvent& e, uint32_t key, bool writesOnly) __attribute__((always_inline)) {
        if (!e.accs && e.acc2 == Acc2::None) [[likely]]
            return e.key == key && (e.writes() || (!writesOnly && e.reads()));
        return accessesAny(e, key, writesOnly);
    };
    auto isLock = [](const SymEvent& e) {
        return e.op == Op::Rmw && e.rmwWrites && e.rval == 0 && e.wval == 1 && !e.accs && e.acc2 == Acc2::None;
    };
    // m: the location of t's latest lock that t does not write again up to r: t holds m from there (li) to r.
    uint32_t m = kNoKey;
    size_t li = 0;
    for (size_t i = n; i-- > 0 && m == kNoKey;) {
        const SymEvent& e = evs[i];
        if (!isLock(e)) continue;
        bool again = false;
        for (size_t j = i + 1; j < n && !again; ++j) again = accesses(evs[j], e.key, true);
        if (again) continue;
        m = e.key;
        li = i;
    }
    if (m == kNoKey) return false;
    // a: t's last access of x after li, and the value it leaves there (only single-location accesses of x);
    // none: ai == n.
    size_t ai = n;
    uint64_t va = 0;
    for (size_t i = n; i-- > li + 1;) {
        const SymEvent& e = evs[i];
        if (!accesses(e, x, false)) continue;
        if (e.accs || e.key != x || e.acc2 != Acc2::None) return false;
        if (e.op == Op::Read) va = e.rval;
        else if (e.op == Op::Write) va = e.wval;
        else if (e.op == Op::Rmw) va = e.rmwWrites ? e.wval : e.rval;
        else return false;
        ai = i;
        break;
    }
    if (ai != n && va == r.rval) return false;
    if (m == kNoKey || m == x || m >= a.init.size() || a.init[m] != 0) return false;
    // Mutual exclusion on m in every linearisation respecting the values: each thread's writes of m alternate a
    // lock and a release (a write of 0) from an initial 0, so m is 1 exactly while one thread is between a lock and
    // its release, and a lock (which reads 0) never starts while another thread is. Every write of x by another
    // thread happens there. t never releases m after its lock li (r is its last event): so every other thread's
    // critical section, and hence every write of x of another thread, comes before that lock, and none between
    // it and r. With a: r observes what a left. Without a: r observes the last write of x overall — t's own come
    // before the lock too — so one that is the last write of x of its thread (or the initial value when there is
    // no write of x).
    bool anyWrite = false, lastOk = false;
    for (uint32_t u = 0; u < a.threads.size(); ++u) {
        bool inside = false;
        const SymEvent* lastWrite = nullptr;
        for (size_t i = 0; i < a.threads[u].size(); ++i) {
            const SymEvent& e = a.threads[u][i];
            const bool wm = accesses(e, m, true), wx = accesses(e, x, true);
            if (wx) {
                if (wm || (u != t && !inside) || e.accs || e.key != x || e.acc2 != Acc2::None) return false;
                lastWrite = &e;
            }
            if (!wm) continue;
            if (isLock(e)) {
                if (inside) return false;
                inside = true;
                continue;
            }
            bool release = !e.reads() || e.key != m; // a write of 0 that does not read m
            forEachAccess(e, [&](uint32_t k, bool write, uint64_t v, uint64_t) {
                if (k == m && (!write || v != 0)) release = false;
            });
            if (!release || !inside) return false;
            inside = false;
        }
        if (u == t && !inside) return false; // (t holds m at r: its lock li is its last write of m)
        if (lastWrite) {
            anyWrite = true;
            lastOk |= lastWrite->wval == r.rval;
        }
    }
    if (ai != n) return true; // r's value is not what a left
    if (!anyWrite) return a.init[x] != r.rval;
    if (!lastOk) return true;
    // The order of the critical sections: r observes what x holds after all of them (t's own before li).
    auto finals = finalsBySections(a, m, x, t, li);
    return finals && std::find(finals->begin(), finals->end(), r.rval) == finals->end();
}

} // namespace skein::explore::vhb
