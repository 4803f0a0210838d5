#include "core/explore/vhb/Apo.h"

#include <algorithm>
#include <unordered_set>

namespace skein::explore::vhb {

size_t Apo::size() const {
    size_t n = 0;
    for (const auto& t : threads) n += t.size();
    return n;
}

Order::Order(const Apo& a) : nthreads_(a.threads.size()) {
    for (const auto& t : a.threads) {
        offset_.push_back(uint32_t(n_));
        n_ += t.size();
    }
    words_ = (n_ + 63) / 64;
    // One block per matrix (an Order is built for every closure call: a vector per row was most of its cost).
    rows_.assign(n_ * words_, 0);
    cols_.assign(n_ * words_, 0);
    // Program order (the paper's thread order TO), set directly — it is transitive already — then create → the
    // child's first event and the child's last event → join (Sec. 6, "spawn/join orderings").
    // Bits [lo, hi) of a set, a word at a time (an Order is built per Closure call: this was a tenth of it).
    auto setRange = [](uint64_t* set, uint32_t lo, uint32_t hi) {
        while (lo < hi) {
            const uint32_t w = lo >> 6, b = lo & 63, n = std::min<uint32_t>(64 - b, hi - lo);
            set[w] |= (n == 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1)) << b;
            lo += n;
        }
    };
    for (uint32_t t = 0; t < a.threads.size(); ++t) {
        const uint32_t begin = offset_[t], end = begin + uint32_t(a.threads[t].size());
        for (uint32_t x = begin; x < end; ++x) {
            setRange(row(x), x + 1, end);
            setRange(col(x), begin, x);
        }
    }
    for (uint32_t t = 0; t < a.threads.size(); ++t)
        for (uint32_t i = 0; i < a.threads[t].size(); ++i) {
            const SymEvent& e = a.threads[t][i];
            if (e.other >= a.threads.size() || a.threads[e.other].empty()) continue;
            if (e.op == Op::Create) insert(id(t, i), id(e.other, 0));
            if (e.op == Op::Join) insert(id(e.other, uint32_t(a.threads[e.other].size() - 1)), id(t, i));
        }
    inserted = 0;
}

namespace {
// n ≤ 64 bits of a bit set from bit `from` / or-ed into one at bit `to`.
uint64_t getBits(const uint64_t* s, uint32_t from, uint32_t n) {
    const uint32_t w = from >> 6, b = from & 63;
    uint64_t x = s[w] >> b;
    if (b && b + n > 64) x |= s[w + 1] << (64 - b);
    return n == 64 ? x : x & ((uint64_t(1) << n) - 1);
}
void orBits(uint64_t* d, uint32_t to, uint64_t x, uint32_t n) {
    const uint32_t w = to >> 6, b = to & 63;
    d[w] |= x << b;
    if (b && b + n > 64) d[w + 1] |= x >> (64 - b);
}
} // namespace

Order Order::extend(const Order& p, const Apo& a, const std::vector<uint32_t>& len) {
    Order q;
    q.nthreads_ = a.threads.size();
    for (const auto& th : a.threads) {
        q.offset_.push_back(uint32_t(q.n_));
        q.n_ += th.size();
    }
    q.words_ = (q.n_ + 63) / 64;
    q.rows_.assign(q.n_ * q.words_, 0);
    q.cols_.assign(q.n_ * q.words_, 0);
    // Thread t's events keep their order: p's [p.offset_[t], + len[t]) are q's [q.offset_[t], + len[t]). Up to
    // the end of the first thread that grew, ids are unchanged: those bits are copied a word at a time.
    uint32_t g = 0;
    while (g < len.size() && len[g] == a.threads[g].size()) ++g;
    const uint32_t same = g < len.size() ? p.offset_[g] + len[g] : uint32_t(p.n_);
    const uint32_t sameWords = same >> 6;
    auto remap = [&](const uint64_t* src, uint64_t* dst) {
        std::copy(src, src + sameWords, dst);
        if (same & 63) dst[sameWords] |= getBits(src, sameWords * 64, same & 63);
        for (uint32_t t = g + 1; t < len.size(); ++t)
            for (uint32_t done = 0; done < len[t];) {
                const uint32_t n = std::min<uint32_t>(64, len[t] - done);
                if (uint64_t x = getBits(src, p.offset_[t] + done, n)) orBits(dst, q.offset_[t] + done, x, n);
                done += n;
            }
    };
    for (uint32_t t = 0; t < len.size(); ++t)
        for (uint32_t i = 0; i < len[t]; ++i) {
            const uint32_t from = p.offset_[t] + i, to = q.offset_[t] + i;
            remap(p.rows_.data() + size_t(from) * p.words_, q.row(to));
            remap(p.cols_.data() + size_t(from) * p.words_, q.col(to));
        }
    return q;
}

uint32_t Order::threadOf(uint32_t e) const {
    auto it = std::upper_bound(offset_.begin(), offset_.end(), e);
    uint32_t t = uint32_t(it - offset_.begin()) - 1;
    // Empty threads share an offset with the next one: take the last thread starting at or before e.
    while (t + 1 < offset_.size() && offset_[t + 1] <= e) ++t;
    return t;
}

bool Order::insert(uint32_t a, uint32_t b) {
    if (a == b || before(b, a)) return false;
    if (before(a, b)) return true;
    // Everything up to a (xs) now precedes everything from b on (ys).
    xs_.assign(col(a), col(a) + words_);
    ys_.assign(row(b), row(b) + words_);
    xs_[a >> 6] |= uint64_t(1) << (a & 63);
    ys_[b >> 6] |= uint64_t(1) << (b & 63);
    for (size_t w = 0; w < words_; ++w)
        for (uint64_t bits = xs_[w]; bits; bits &= bits - 1) {
            uint64_t* r = row(uint32_t(w * 64 + size_t(__builtin_ctzll(bits))));
            for (size_t k = 0; k < words_; ++k) r[k] |= ys_[k];
        }
    for (size_t w = 0; w < words_; ++w)
        for (uint64_t bits = ys_[w]; bits; bits &= bits - 1) {
            uint64_t* c = col(uint32_t(w * 64 + size_t(__builtin_ctzll(bits))));
            for (size_t k = 0; k < words_; ++k) c[k] |= xs_[k];
        }
    ++inserted;
    return true;
}

void Order::computeRequired() {
    req_.assign(n_ * nthreads_, 0);
    for (uint32_t e = 0; e < n_; ++e)
        for (uint32_t u = 0; u < nthreads_; ++u) {
            uint32_t begin = offset_[u], end = u + 1 < nthreads_ ? offset_[u + 1] : uint32_t(n_);
            for (uint32_t x = end; x > begin; --x)
                if (before(x - 1, e)) {
                    req_[size_t(e) * nthreads_ + u] = x - begin;
                    break;
                }
        }
}

namespace {

// Alg. 1 from q (whose orderings hold in every linearisation of a respecting the values). The passes check only
// the reads `first` accepts while every ordering added goes into event `local` (which nothing follows); after
// any other ordering, every read, to the fixpoint.
//
// Every set a rule looks at is a bit set over event ids, computed with Q's rows and columns a word at a time
// (PERFORMANCE.md "Cheaper nodes": the per-write scans were most of a from-scratch Closure):
//   W           the writes of r's location;                G  r's good writes (of W, not r itself)
//   B = W ∩ col(r)   the writes Q puts before r;           O  the writes w overwritten before r: row(w) ∩ B ≠ ∅
//   visible good = G \ row(r) \ O;                        last before r = B \ O.
// closeFrom's accesses by location.
struct Access {
    uint32_t id;
    uint64_t val;  // the value read or written
    uint64_t mask; // a read: the bits it observes (a write writes the whole word)
    bool settled = false; // a read no rule can apply to any more (below)
    uint32_t good = 0;    // a read: 1 + where its good writes' bit set starts in goodBits (0: not made yet)
};
// closeFrom's buffers, kept across calls (it runs for most nodes: allocating them was a tenth of its cost).
// closeFrom does not call itself; thread_local for the language server's workers.
struct CloseScratch {
    std::vector<std::vector<Access>> writes, reads;
    std::vector<uint64_t> wmask, goodBits, B, visible, maxB, tmp;
};
thread_local CloseScratch closeScratch;

template <class First>
std::optional<Order> closeFrom(const Apo& a, Order q, First&& first, uint32_t local) {
    CloseScratch& sc = closeScratch;
    auto& writes = sc.writes;
    auto& reads = sc.reads;
    for (size_t k = 0; k < writes.size() && k < a.init.size(); ++k) {
        writes[k].clear();
        reads[k].clear();
    }
    writes.resize(a.init.size());
    reads.resize(a.init.size());
    // Every access of every event (DESIGN.md "Multi-location accesses"): a multi-word event is a read of each
    // word it reads and a write of each word it writes; a read's good writes are those whose value agrees with
    // it on the bytes it observes.
    for (uint32_t t = 0; t < a.threads.size(); ++t)
        for (uint32_t i = 0; i < a.threads[t].size(); ++i) {
            const uint32_t id = q.id(t, i);
            forEachAccess(a.threads[t][i], [&](uint32_t key, bool write, uint64_t val, uint64_t mask) {
                (write ? writes : reads)[key].push_back({id, val, mask, false, 0});
            });
        }
    const size_t words = q.words();
    std::vector<uint64_t>& wmask = sc.wmask;
    wmask.assign(writes.size() * words, 0);
    for (size_t key = 0; key < writes.size(); ++key)
        for (const Access& w : writes[key]) wmask[key * words + (w.id >> 6)] |= uint64_t(1) << (w.id & 63);
    size_t nreads = 0;
    for (auto& rs : reads) nreads += rs.size();
    // Each read's good writes, made when the read is first looked at (a Closure that ends in ⊥ early does not pay
    // for the others).
    std::vector<uint64_t>& goodBits = sc.goodBits;
    goodBits.assign(nreads * words, 0);
    uint32_t goodAt = 0;
    auto goodOf = [&](size_t key, Access& r) -> const uint64_t* {
        if (r.good == 0) {
            r.good = goodAt + 1;
            for (const Access& w : writes[key])
                if (w.id != r.id && (w.val & r.mask) == r.val) goodBits[goodAt + (w.id >> 6)] |= uint64_t(1) << (w.id & 63);
            goodAt += uint32_t(words);
        }
        return &goodBits[r.good - 1];
    };
    std::vector<uint64_t>&B = sc.B, &visible = sc.visible, &maxB = sc.maxB, &tmp = sc.tmp;
    B.assign(words, 0);
    visible.assign(words, 0);
    maxB.assign(words, 0);
    tmp.assign(words, 0);
    auto bit = [](const uint64_t* set, uint32_t i) { return (set[i >> 6] >> (i & 63)) & 1; };
    auto empty = [&](const std::vector<uint64_t>& x) {
        for (size_t k = 0; k < words; ++k)
            if (x[k]) return false;
        return true;
    };
    auto single = [&](const std::vector<uint64_t>& x) { // exactly one bit set
        size_t c = 0;
        for (size_t k = 0; k < words && c < 2; ++k)
            if (x[k]) c += (x[k] & (x[k] - 1)) ? 2 : 1;
        return c == 1;
    };
    auto firstBit = [&](const std::vector<uint64_t>& x) {
        for (size_t k = 0; k < words; ++k)
            if (x[k]) return uint32_t(k * 64 + size_t(__builtin_ctzll(x[k])));
        return ~0u;
    };
    // The Q-least element of ys (every other one follows it), when there is one (it is unique).
    auto minimum = [&](const std::vector<uint64_t>& ys) -> std::optional<uint32_t> {
        for (size_t w = 0; w < words; ++w)
            for (uint64_t bits = ys[w]; bits; bits &= bits - 1) {
                const uint32_t m = uint32_t(w * 64 + size_t(__builtin_ctzll(bits)));
                const uint64_t* row = q.after(m);
                bool least = true;
                for (size_t k = 0; k < words && least; ++k) {
                    uint64_t others = ys[k];
                    if (k == (m >> 6)) others &= ~(uint64_t(1) << (m & 63));
                    least = (others & ~row[k]) == 0;
                }
                if (least) return m;
            }
        return std::nullopt;
    };
    // Alg. 1: repeat until no read violates a closure rule.
    bool escalate = local == ~0u;
    for (bool changed = true; changed;) {
        changed = false;
        const bool all = escalate;
        for (size_t key = 0; key < reads.size(); ++key)
            for (Access& r : reads[key]) {
                if (r.settled || (!all && !first(uint32_t(key), r.id))) continue;
                const uint64_t* W = &wmask[key * words];
                const uint64_t* G = goodOf(key, r);
                // Some write of the location is Q-between w and r (in B, after w): w cannot be the one r observes.
                auto overwritten = [&](uint32_t w) {
                    const uint64_t* row = q.after(w);
                    for (size_t k = 0; k < words; ++k)
                        if (row[k] & B[k]) return true;
                    return false;
                };
                // B and B \ O for the current Q.
                auto writesBefore = [&] {
                    const uint64_t* col = q.beforeOf(r.id);
                    bool any = false;
                    for (size_t k = 0; k < words; ++k) {
                        B[k] = col[k] & W[k];
                        any |= B[k] != 0;
                    }
                    for (size_t w = 0; w < words; ++w) {
                        maxB[w] = B[w];
                        for (uint64_t bits = B[w]; bits; bits &= bits - 1) {
                            const uint32_t x = uint32_t(w * 64 + size_t(__builtin_ctzll(bits)));
                            if (overwritten(x)) maxB[w] &= ~(uint64_t(1) << (x & 63));
                        }
                    }
                    return any;
                };
                const bool someWriteBefore = writesBefore();
                const uint64_t* afterR = q.after(r.id);
                bool anyVisible = false, visibleBefore = false; // VisibleW_Q(r) ∩ GoodW(r), and one of it before r
                const uint64_t* colR = q.beforeOf(r.id);
                for (size_t w = 0; w < words; ++w) {
                    visible[w] = G[w] & ~afterR[w];
                    for (uint64_t bits = visible[w]; bits; bits &= bits - 1) {
                        const uint32_t x = uint32_t(w * 64 + size_t(__builtin_ctzll(bits)));
                        if (overwritten(x)) visible[w] &= ~(uint64_t(1) << (x & 63));
                    }
                    anyVisible |= visible[w] != 0;
                    visibleBefore |= (visible[w] & colR[w]) != 0;
                }
                // The initial value is observable while no write is ordered before r.
                const bool initOk = (a.init[key] & r.mask) == r.val && !someWriteBefore;
                if (!anyVisible && !initOk) return std::nullopt; // Alg. 2 line 2
                auto order = [&](uint32_t x, uint32_t y) {
                    if (q.before(x, y)) return true;
                    changed = true;
                    // An ordering into `local` while nothing follows it adds orderings into it only: the reads
                    // outside the first pass's set see no change (DESIGN.md "Closure from the parent's").
                    if (y != local || !q.last(local)) escalate = true;
                    return q.insert(x, y);
                };
                // Rule 1 (Alg. 2): the initial value is ruled out and no good write precedes r yet: every
                // realisation puts one before r, so the Q-least of them (when there is one) precedes r.
                bool inserted = false;
                if (!initOk && !visibleBefore)
                    if (auto m = minimum(visible)) {
                        if (!order(*m, r.id)) return std::nullopt;
                        inserted = true;
                    }
                // Rule 3 (Alg. 4): the last write known to precede r is bad: a good write must come between it
                // and r; the Q-least candidate (when there is one) follows it.
                if (inserted) writesBefore(); // (Rule 1 put writes before r)
                if (single(maxB)) {
                    const uint32_t b = firstBit(maxB);
                    if (!bit(G, b)) {
                        const uint64_t* colB = q.beforeOf(b);
                        for (size_t k = 0; k < words; ++k) tmp[k] = visible[k] & ~colB[k]; // good writes not before b
                        if (empty(tmp)) return std::nullopt;
                        if (auto m = minimum(tmp); m && !order(b, *m)) return std::nullopt;
                    }
                }
                // Rule 2 (Alg. 3): a bad write unordered with r that every good write precedes cannot precede r
                // (the last write before r would be bad): r precedes it.
                for (size_t w = 0; w < words; ++w) {
                    uint64_t bad = W[w] & ~G[w];
                    if (w == (r.id >> 6)) bad &= ~(uint64_t(1) << (r.id & 63));
                    for (; bad; bad &= bad - 1) {
                        const uint32_t x = uint32_t(w * 64 + size_t(__builtin_ctzll(bad)));
                        if (q.before(x, r.id) || q.before(r.id, x)) continue;
                        const uint64_t* colX = q.beforeOf(x);
                        bool allBefore = true;
                        for (size_t k = 0; k < words && allBefore; ++k) allBefore = (visible[k] & ~colX[k]) == 0;
                        if (allBefore && !order(r.id, x)) return std::nullopt;
                    }
                }
                // Settled: every write of the location is ordered with r and a single good one is last before
                // it. Then every linearisation has r observe that write and no rule applies to r (Rule 1: a good
                // write precedes r; Rule 3: the last one before r is good; Rule 2: no write is unordered with r),
                // and orderings are only ever added, so later passes skip r.
                const uint64_t* col2 = q.beforeOf(r.id);
                const uint64_t* after2 = q.after(r.id);
                bool ordered = true;
                for (size_t k = 0; k < words && ordered; ++k) {
                    uint64_t others = W[k];
                    if (k == (r.id >> 6)) others &= ~(uint64_t(1) << (r.id & 63));
                    ordered = (others & ~(col2[k] | after2[k])) == 0;
                }
                if (ordered) {
                    writesBefore();
                    if (single(maxB)) {
                        const uint32_t last = firstBit(maxB);
                        r.settled = std::any_of(writes[key].begin(), writes[key].end(), [&](const Access& w) {
                            return w.id == last && (w.val & r.mask) == r.val;
                        });
                    }
                }
            }
    }
    return q;
}

} // namespace

std::optional<Order> closure(const Apo& a) {
    return closeFrom(a, Order(a), [](uint32_t, uint32_t) { return true; }, ~0u);
}

// Why starting from the parent's closed order is sound, and why the first pass may look at the new events' reads
// and at the reads of the locations they write only: DESIGN.md "Closure from the parent's".
std::optional<Order> closureExtending(const Apo& a, const Order& parent, const std::vector<uint32_t>& len,
                                      const std::vector<uint64_t>& init, bool* unsupported) {
    auto fallback = [&]() -> std::optional<Order> {
        if (unsupported) {
            *unsupported = true;
            return std::nullopt;
        }
        return closure(a);
    };
    const uint32_t nt = uint32_t(a.threads.size());
    if (len.size() > nt || len.size() != parent.threads()) return fallback();
    size_t total = 0;
    for (uint32_t t = 0; t < len.size(); ++t) {
        if (len[t] > a.threads[t].size()) return fallback();
        total += len[t];
    }
    if (total != parent.size() || init.size() > a.init.size()) return fallback();
    for (size_t k = 0; k < init.size(); ++k)
        if (a.init[k] != init[k]) return fallback(); // an initial value learnt since: the parent's rules used 0
    auto plen = [&](uint32_t t) { return t < len.size() ? len[t] : 0u; };
    // The new events' written locations; creates (a new spawn ordering into old events' threads), joins in the
    // parent of a thread that has new events, and guards on a written location are left to the full closure.
    // (By key — a flag per key, the writes sorted by key — not by scans: a new memset of 4,096 words made each
    // test a scan of 4,096; PERFORMANCE.md "Large objects".)
    struct NewWrite {
        uint32_t key;
        uint64_t val;
        uint32_t writer;
        bool operator<(const NewWrite& o) const { return key < o.key; }
    };
    std::vector<NewWrite> newWrites;
    std::vector<uint8_t> written; // per key: some new event writes it
    auto isWritten = [&](uint32_t key) { return key < written.size() && written[key]; };
    for (uint32_t t = 0; t < nt; ++t)
        for (uint32_t i = plen(t); i < a.threads[t].size(); ++i) {
            const SymEvent& e = a.threads[t][i];
            if (e.op == Op::Create) return fallback();
            forEachAccess(e, [&](uint32_t key, bool write, uint64_t val, uint64_t) {
                if (!write) return;
                newWrites.push_back({key, val, t});
                if (written.size() <= key) written.resize(std::max<size_t>(key + 1, a.init.size()), 0);
                written[key] = 1;
            });
        }
    std::stable_sort(newWrites.begin(), newWrites.end());
    for (uint32_t t = 0; t < nt; ++t)
        for (uint32_t i = 0; i < a.threads[t].size(); ++i) {
            const SymEvent& e = a.threads[t][i];
            if (i < plen(t) && e.op == Op::Join && e.other < nt && a.threads[e.other].size() > plen(e.other))
                return fallback();
            if (e.guardKey != kNoKey && isWritten(e.guardKey)) return fallback();
        }
    // No new write may have a value an old read of another thread observes (an old read of its own thread is
    // before it in every linearisation). Then in a linearisation of a respecting the values every old read
    // observes an old write, and removing the new events leaves a linearisation of the parent respecting its
    // values: the parent's orderings hold in all of a's. (Asking the parent's order whether such a read comes
    // first would be circular: its orderings are only known to hold in linearisations of the parent.)
    for (uint32_t u = 0; u < len.size(); ++u)
        for (uint32_t i = 0; i < len[u]; ++i)
            forEachAccess(a.threads[u][i], [&](uint32_t key, bool write, uint64_t rv, uint64_t m) {
                if (write || !isWritten(key)) return;
                auto [lo, hi] = std::equal_range(newWrites.begin(), newWrites.end(), NewWrite{key, 0, 0});
                for (auto j = lo; j != hi; ++j)
                    if ((j->val & m) == rv && j->writer != u) total = ~size_t(0);
            });
    if (total == ~size_t(0)) return fallback();
    Order q = Order::extend(parent, a, len);
    // The orderings Order(a) has for the new events: program order, create → a thread's first event, the joined
    // thread's last event → join. Each goes into a new event, so nothing between old events changes.
    bool ok = true;
    std::vector<uint8_t> fresh(q.size(), 0);
    uint32_t single = ~1u, count = 0;
    for (uint32_t t = 0; t < nt; ++t)
        for (uint32_t i = plen(t); i < a.threads[t].size(); ++i) {
            const uint32_t id = q.id(t, i);
            fresh[id] = 1;
            single = id;
            ++count;
            const SymEvent& e = a.threads[t][i];
            if (i > 0) ok &= q.insert(q.id(t, i - 1), id);
            else
                for (uint32_t u = 0; u < nt; ++u)
                    for (uint32_t j = 0; j < a.threads[u].size(); ++j)
                        if (a.threads[u][j].op == Op::Create && a.threads[u][j].other == t) ok &= q.insert(q.id(u, j), id);
            if (e.op == Op::Join && e.other < nt && !a.threads[e.other].empty())
                ok &= q.insert(q.id(e.other, uint32_t(a.threads[e.other].size() - 1)), id);
        }
    if (!ok) return std::nullopt; // a cycle: no linearisation at all
    q.inserted = 0;
    return closeFrom(
        a, std::move(q),
        [&](uint32_t key, uint32_t r) { return fresh[r] || isWritten(key); },
        count == 1 ? single : ~1u);
}

bool consumedTwice(const Apo& a, uint32_t t) {
    if (t >= a.threads.size() || a.threads[t].empty()) return false;
    const SymEvent& e = a.threads[t].back();
    if (e.op != Op::Rmw || !e.rmwWrites || e.wval == e.rval || e.accs) return false;
    const uint32_t key = e.key;
    const uint64_t v = e.rval;
    // Each read-modify-write of key that reads v and writes another value observes its own write of v (or the
    // initial value): two observing one w would have the first's write between w and the second.
    size_t consumers = 0, sources = key < a.init.size() && a.init[key] == v;
    for (const auto& th : a.threads)
        for (const SymEvent& x : th) {
            if (x.op == Op::Rmw && x.rmwWrites && x.key == key && x.rval == v && x.wval != v && !x.accs) ++consumers;
            forEachAccess(x, [&](uint32_t k2, bool w2, uint64_t v2, uint64_t) { sources += w2 && k2 == key && v2 == v; });
        }
    return consumers > sources;
}

bool bottomAfter(const Apo& a, const Order& parent, uint32_t t) {
    const uint32_t nt = uint32_t(a.threads.size());
    if (t >= nt || a.threads[t].empty() || parent.size() + 1 != a.size() || parent.threads() != nt) return false;
    const uint32_t len = uint32_t(a.threads[t].size()) - 1;
    const SymEvent& e = a.threads[t][len];
    if (e.op == Op::Create || e.op == Op::Join) return false;
    // The parent's orderings hold in the child's linearisations only when e's writes are fresh (closureExtending).
    bool fresh = true;
    forEachAccess(e, [&](uint32_t key, bool write, uint64_t val, uint64_t) {
        if (!write) return;
        for (uint32_t u = 0; u < nt && fresh; ++u) {
            if (u == t) continue;
            for (const SymEvent& x : a.threads[u])
                forEachAccess(x, [&](uint32_t k2, bool w2, uint64_t v2, uint64_t m2) {
                    if (!w2 && k2 == key && (val & m2) == v2) fresh = false;
                });
        }
    });
    if (!fresh) return false;
    // e's predecessors in the child's order: t's events and what precedes them, or its creator's create and what
    // precedes that (parent ids: t's earlier events keep theirs).
    const size_t words = parent.words();
    std::vector<uint64_t> pred(words, 0);
    auto addUpTo = [&](uint32_t x) {
        const uint64_t* c = parent.beforeOf(x);
        for (size_t k = 0; k < words; ++k) pred[k] |= c[k];
        pred[x >> 6] |= uint64_t(1) << (x & 63);
    };
    if (len > 0) addUpTo(parent.id(t, len - 1));
    else
        for (uint32_t u = 0; u < nt; ++u)
            for (uint32_t i = 0; i < a.threads[u].size(); ++i)
                if (a.threads[u][i].op == Op::Create && a.threads[u][i].other == t && !(u == t && i == len))
                    addUpTo(parent.id(u, i));
    auto bit = [](const uint64_t* set, uint32_t i) { return (set[i >> 6] >> (i & 63)) & 1; };
    bool bottom = false;
    forEachAccess(e, [&](uint32_t key, bool write, uint64_t rv, uint64_t mask) {
        if (write || bottom || key >= a.init.size()) return;
        // The parent's writes of key: those before e, and the good ones not overwritten before e.
        std::vector<uint32_t> ws;
        for (uint32_t u = 0; u < nt; ++u)
            for (uint32_t i = 0; i < a.threads[u].size(); ++i) {
                if (u == t && i == len) continue;
                forEachAccess(a.threads[u][i], [&](uint32_t k2, bool w2, uint64_t, uint64_t) {
                    if (w2 && k2 == key && (ws.empty() || ws.back() != parent.id(u, i))) ws.push_back(parent.id(u, i));
                });
            }
        bool anyBefore = false;
        for (uint32_t w : ws) anyBefore |= bit(pred.data(), w);
        if (((a.init[key] & mask) == rv) && !anyBefore) return; // the initial value may be observed
        for (uint32_t w : ws) {
            uint64_t val = 0;
            bool good = false;
            // (w's value: its write access of key)
            const uint32_t u = parent.threadOf(w), i = w - parent.id(u, 0);
            forEachAccess(a.threads[u][i], [&](uint32_t k2, bool w2, uint64_t v2, uint64_t) {
                if (w2 && k2 == key) val = v2, good = true;
            });
            if (!good || (val & mask) != rv) continue;
            bool overwritten = false; // a write of key after w and before e
            const uint64_t* after = parent.after(w);
            for (uint32_t w2 : ws) overwritten |= bit(after, w2) && bit(pred.data(), w2);
            if (!overwritten) return; // a visible good write
        }
        bottom = true; // Alg. 2 line 2 on the parent's order plus e's program-order predecessors
    });
    return bottom;
}

bool bottomWithoutGoodWrite(const Apo& a, uint32_t t) {
    const uint32_t nt = uint32_t(a.threads.size());
    if (t >= nt || a.threads[t].empty()) return false;
    const uint32_t len = uint32_t(a.threads[t].size()) - 1;
    const SymEvent& e = a.threads[t][len];
    if (e.accs && e.accs->size() > 8) return false; // (a few words: each event's accesses are tested against all)
    // e's read accesses that no other event's write can satisfy (closeFrom: per word, on the bytes it observes).
    struct Need {
        uint32_t key;
        uint64_t val, mask;
        bool anyGood = false;
    };
    std::vector<Need> needs;
    forEachAccess(e, [&](uint32_t key, bool write, uint64_t val, uint64_t mask) {
        if (!write && key < a.init.size()) needs.push_back({key, val, mask});
    });
    if (needs.empty()) return false;
    for (uint32_t u = 0; u < nt; ++u)
        for (uint32_t i = 0; i < a.threads[u].size(); ++i) {
            if (u == t && i == len) continue; // (closeFrom: a read's own write is not one of its good writes)
            forEachAccess(a.threads[u][i], [&](uint32_t key, bool write, uint64_t val, uint64_t) {
                if (write)
                    for (Need& n : needs) n.anyGood |= n.key == key && (val & n.mask) == n.val;
            });
        }
    std::erase_if(needs, [](const Need& n) { return n.anyGood; });
    if (needs.empty()) return false;
    for (const Need& n : needs)
        if ((a.init[n.key] & n.mask) != n.val) return true; // no good write, and the initial value is another
    // Order(a)'s predecessors of e: per thread, how many of its first events precede it (program order, create →
    // the child's first event, the joined thread's last event → join), to a fixpoint; each event is looked at once.
    std::vector<uint32_t> creator(nt, ~0u), createAt(nt, 0);
    for (uint32_t u = 0; u < nt; ++u)
        for (uint32_t i = 0; i < a.threads[u].size(); ++i) {
            const SymEvent& x = a.threads[u][i];
            if (x.op == Op::Create && x.other < nt && creator[x.other] == ~0u) creator[x.other] = u, createAt[x.other] = i;
        }
    std::vector<uint32_t> upTo(nt, 0), scanned(nt, 0);
    std::vector<uint32_t> work;
    auto reach = [&](uint32_t u, uint32_t n) {
        if (n > upTo[u]) upTo[u] = n, work.push_back(u);
    };
    upTo[t] = len;
    work.push_back(t);
    if (creator[t] != ~0u) reach(creator[t], createAt[t] + 1); // e is in t, after t's first event or it
    bool writeBefore = false;
    while (!work.empty() && !writeBefore) {
        const uint32_t u = work.back();
        work.pop_back();
        if (upTo[u] > 0 && creator[u] != ~0u) reach(creator[u], createAt[u] + 1);
        for (; scanned[u] < upTo[u]; ++scanned[u]) {
            const SymEvent& x = a.threads[u][scanned[u]];
            if (x.op == Op::Join && x.other < nt && !a.threads[x.other].empty())
                reach(x.other, uint32_t(a.threads[x.other].size()));
            forEachAccess(x, [&](uint32_t key, bool write, uint64_t, uint64_t) {
                if (write)
                    for (const Need& n : needs) writeBefore |= n.key == key;
            });
        }
    }
    return writeBefore; // no good write, and a write of the location comes first: the initial value is ruled out
}

std::optional<Order> closureAfter(const Apo& a, const Order& parent, uint32_t t) {
    std::vector<uint32_t> len(parent.threads(), 0);
    for (uint32_t u = 0; u < len.size() && u < a.threads.size(); ++u) len[u] = uint32_t(a.threads[u].size());
    if (t >= len.size() || len[t] == 0) return closure(a);
    --len[t];
    return closureExtending(a, parent, len, a.init);
}

} // namespace skein::explore::vhb
