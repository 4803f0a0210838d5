// The vhb explorer, part 3 of 4 (VhbExplorer.h): multi-word, sub-word and library accesses (DESIGN.md
// "Multi-location accesses") — the words an executor event reads and writes, its symbolic event from the shadow of
// the executor's memory, and its candidate extensions: every combination of its words' candidate values, asked of
// the executor on a copy.
#include <numeric>
#include <span>

#include "core/explore/vhb/VhbExplorer.h"

namespace skein::explore::vhb::detail {

// An access that is not one aligned word, or whose event does not carry the bytes (a library function's):
// modelled by its word accesses, with values from the shadow (DESIGN.md "Multi-location accesses").
bool VhbExplorer::isMulti(const Event& e) {
    if (e.kind == EventKind::Free) return e.value2 != 0; // realloc reads the object to copy it
    if (!e.isMemory()) return false;
    return e.builtin || e.kind == EventKind::Copy || e.size2 || e.size != model::kWordSize ||
           (e.addr & (model::kWordSize - 1));
}

namespace {
constexpr uint64_t kW = model::kWordSize;
uint64_t wordOf(uint64_t a) { return a & ~(kW - 1); }
// The bits of word w that the byte range [lo, hi) covers.
uint64_t bitsOf(uint64_t w, uint64_t lo, uint64_t hi) {
    uint64_t m = 0;
    for (uint64_t b = std::max(lo, w); b < std::min(hi, w + kW); ++b) m |= uint64_t(0xff) << (8 * (b - w));
    return m;
}
constexpr uint64_t kFull = (uint64_t(1) << (8 * kW)) - 1;
} // namespace

// Words by address, each once with the union of its masks (a sorted vector, not a std::map: an event of a
// 1 MB buffer has 262,144 words, and this runs for every multi-word event stepped, built and tried).
void VhbExplorer::mergeWords(std::vector<WordUse>& ws) {
    sortRuns(ws, [](const WordUse& x, const WordUse& y) { return x.word < y.word; });
    size_t n = 0;
    for (size_t i = 0; i < ws.size(); ++i) {
        if (n && ws[n - 1].word == ws[i].word) ws[n - 1].mask |= ws[i].mask;
        else ws[n++] = ws[i];
    }
    ws.resize(n);
}

std::vector<VhbExplorer::WordUse> VhbExplorer::readWords(const Event& e) const {
    std::vector<WordUse> out;
    auto range = [&](uint64_t lo, uint64_t hi) {
        for (uint64_t w = wordOf(lo); w < hi; w += kW)
            out.push_back({w, w >= lo && w + kW <= hi ? kFull : bitsOf(w, lo, hi)});
    };
    if (e.kind == EventKind::Free) range(e.addr, e.addr + e.size); // realloc copies the whole object
    else
        for (int k = 0; k < 2; ++k) {
            auto [lo, hi] = e.readRange(k);
            if (lo < hi) range(lo, hi);
        }
    // A partially written word is a read of its other bytes (then a write of the whole word): no byte is lost.
    if (e.kind != EventKind::Free && e.writes())
        for (uint64_t w = wordOf(e.addr); w < e.addr + e.size; w += kW)
            if (w < e.addr || w + kW > e.addr + e.size) { // (the others are written whole)
                const uint64_t own = bitsOf(w, e.addr, e.addr + e.size);
                // Only the bytes that exist: a word past its object's end (a 1-byte flag) has bytes nobody can
                // write, and reading them would make a plain write read-like for nothing.
                uint64_t other = 0;
                for (uint64_t b = 0; b < kW; ++b)
                    if (!((own >> (8 * b)) & 0xff) && ex_->peek(w + b, 1)) other |= uint64_t(0xff) << (8 * b);
                if (other) out.push_back({w, other});
            }
    mergeWords(out);
    return out;
}

std::vector<uint64_t> VhbExplorer::writtenWords(const Event& e) {
    std::vector<uint64_t> out;
    if (e.kind == EventKind::Free || !e.writes()) return out;
    for (uint64_t w = wordOf(e.addr); w < e.addr + e.size; w += kW) out.push_back(w);
    return out;
}

uint64_t VhbExplorer::peekWord(const exec::Executor& ex, uint64_t word) const {
    if (auto v = ex.peek(word, uint32_t(kW))) return *v;
    uint64_t v = 0; // a word that ends past its object: the bytes that exist
    for (uint64_t b = 0; b < kW; ++b)
        if (auto x = ex.peek(word + b, 1)) v |= *x << (8 * b);
    return v;
}

// The word accesses of a multi-word event, with the values it read (before) and wrote (after).
SymEvent VhbExplorer::multiEvent(const Event& e, const SymEvent& base, const Shadow& vals) {
    SymEvent s = base;
    auto accs = std::make_shared<std::vector<WordAcc>>();
    const std::vector<WordUse> fresh = vals.words.empty() && vals.read.empty() ? readWords(e) : std::vector<WordUse>();
    const std::vector<WordUse>& rw = vals.words.empty() && vals.read.empty() ? fresh : vals.words; // as when it ran
    for (size_t i = 0; i < rw.size(); ++i)
        accs->push_back({key(kMemory, rw[i].word, 0), false, i < vals.read.size() ? vals.read[i] & rw[i].mask : 0,
                         rw[i].mask});
    auto ww = writtenWords(e);
    for (size_t i = 0; i < ww.size(); ++i)
        accs->push_back({key(kMemory, ww[i], 0), true, i < vals.written.size() ? vals.written[i] : 0, kFull});
    // A copy also observes that its source object is alive (DESIGN.md "free()"; acc2 is its destination's).
    if (auto src = sourceAliveKey(e)) accs->push_back({*src, false, 0, kFull});
    s.accs = std::move(accs);
    return s;
}

Apo VhbExplorer::withEvents(const Node& n, ThreadId t, const std::vector<SymEvent>& evs) const {
    Apo a = n.apo;
    a.init.resize(init_.size());
    for (size_t k = n.apo.init.size(); k < init_.size(); ++k) a.init[k] = init_[k].value_or(0);
    a.threads[t].insert(a.threads[t].end(), evs.begin(), evs.end());
    a.finished[t] = false;
    a.openSection[t] = false;
    return a;
}

bool VhbExplorer::realizable(const Apo& a, Linearisation* witness) {
    // Closure knows little of atomic sections (a read of 0 then a read of 2 in one section, where only a write of
    // the first location separates the two writes): the search decides, within a budget (past it: kept).
    SearchLimits limits;
    limits.maxStates = 100'000;
    bool bottom = false;
    if (auto lin = closeAndRealize(a, nullptr, 0, limits, bottom)) {
        if (witness) *witness = std::move(*lin);
        return true;
    }
    if (limits.exhausted) return true;
    ++prefixesRefuted_;
    return false;
}

// ExtendRoot/ExtendLeaf for a multi-word event: every combination of the values its words may hold (each word's
// candidate values, on the bytes it reads), and what the event then does, asked of the executor on a copy —
// its ranges may depend on the bytes (strlen, strcpy), so the words tried are those of its ranges extended to
// the end of their objects (all the bytes it could read), and the event is rebuilt from what it did.
std::vector<SymEvent> VhbExplorer::multiCandidates(const Node& n, ThreadId t, const SymEvent& base, bool forceAlive) {
    std::vector<SymEvent> out;
    for (auto& [s, next] : multiCandidatesOn(*ex_, n, t, base, {}, forceAlive)) out.push_back(std::move(s));
    return out;
}

// The words a multi-word event may read and what each may observe (PERFORMANCE.md "Large objects"): one pass over the
// node's events and the section's so far for all the words at once — a call of valuesOf per word scanned every
// event's word accesses once per word, quadratic in the size of a memcpy of a buffer another event wrote whole.
// The candidate values of a word are valuesOf's (its initial value and the values of its writes: the candidate
// writes M(r) grouped by value, Alg. 6 lines 6-9 / Alg. 7 lines 2-5), on its mask.
VhbExplorer::WordChoices VhbExplorer::wordChoices(const Node& n, ThreadId t, const std::vector<SymEvent>& more,
                                                  const std::vector<WordUse>& m) {
    WordChoices wc;
    std::vector<uint64_t> addrs, masks;
    std::vector<uint32_t> keys;
    addrs.reserve(m.size());
    masks.reserve(m.size());
    keys.reserve(m.size());
    for (auto [w, mask] : m) {
        const uint32_t k = key(kMemory, w, 0);
        if (!init_[k] && !writtenThisRun_.count(k)) init_[k] = peekWord(*ex_, w);
        addrs.push_back(w);
        masks.push_back(mask);
        keys.push_back(k);
    }
    std::vector<int32_t> slot(keySize_.size(), -1); // per key: its word's index in m, or -1
    for (size_t j = 0; j < keys.size(); ++j) slot[keys[j]] = int32_t(j);
    // Every write of those words, in event order (nodes' threads, then `more`), as (word, event number, value);
    // written in the order applyTo applies them, so an event's last write of a word is the value it leaves.
    struct Write {
        uint32_t word, event;
        uint64_t val;
    };
    std::vector<Write> writes;
    uint32_t events = 0;
    auto scan = [&](const SymEvent& e, uint32_t thread, uint32_t index) {
        const size_t before = writes.size();
        auto add = [&](uint32_t k, uint64_t v) {
            if (k < slot.size() && slot[k] >= 0) writes.push_back({uint32_t(slot[k]), events, v});
        };
        if (e.writes()) add(e.key, e.wval);
        if (e.acc2 == Acc2::Write) add(e.key2, e.val2);
        if (e.accs)
            for (const WordAcc& a : *e.accs)
                if (a.write) add(a.key, a.val);
        if (writes.size() != before) {
            wc.writer.push_back({thread, index});
            ++events;
        }
    };
    for (uint32_t u = 0; u < n.apo.threads.size(); ++u)
        for (uint32_t i = 0; i < n.apo.threads[u].size(); ++i) scan(n.apo.threads[u][i], u, i);
    for (uint32_t i = 0; i < more.size(); ++i) scan(more[i], t, uint32_t(n.apo.threads[t].size()) + i);
    // By word (a counting sort keeps the event order within a word).
    std::vector<uint32_t> at(keys.size() + 1, 0);
    for (const Write& w : writes) ++at[w.word + 1];
    for (size_t j = 0; j < keys.size(); ++j) at[j + 1] += at[j];
    std::vector<Write> byWord(writes.size());
    {
        std::vector<uint32_t> fill(at.begin(), at.end() - 1);
        for (const Write& w : writes) byWord[fill[w.word]++] = w;
    }
    std::unordered_map<uint64_t, std::vector<uint32_t>> groupsByHash; // hash of the writing events → groups
    std::vector<uint32_t> groupRep;                                    // per group: its first word (index in wc)
    std::vector<uint64_t> vs;
    wc.valAt.push_back(0);
    wc.wAt.push_back(0);
    for (size_t j = 0; j < keys.size(); ++j) {
        const uint64_t mask = masks[j];
        vs.clear();
        if (init_[keys[j]]) vs.push_back(*init_[keys[j]] & mask);
        for (uint32_t x = at[j]; x < at[j + 1]; ++x) vs.push_back(byWord[x].val & mask);
        std::sort(vs.begin(), vs.end());
        vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
        // One candidate value: every write of the word in the node (and the section) writes it, so the copy's
        // memory holds it already — nothing to force or enumerate (a string in a large buffer: most of its words).
        if (vs.size() <= 1) {
            wc.single.push_back(addrs[j]);
            continue;
        }
        const uint32_t i = uint32_t(wc.words.size());
        wc.words.push_back({addrs[j], mask});
        wc.keys.push_back(keys[j]);
        wc.vals.insert(wc.vals.end(), vs.begin(), vs.end());
        wc.valAt.push_back(uint32_t(wc.vals.size()));
        uint64_t h = 1469598103934665603ull;
        for (uint32_t x = at[j]; x < at[j + 1]; ++x) {
            if (x + 1 < at[j + 1] && byWord[x + 1].event == byWord[x].event) continue; // (its last write counts)
            wc.src.push_back(byWord[x].event);
            wc.wval.push_back(byWord[x].val & mask);
            h = mix(h, byWord[x].event);
        }
        wc.wAt.push_back(uint32_t(wc.src.size()));
        // The initial value Closure and Realize give the word (the node's; withEvents' for a key met since).
        const uint32_t k = keys[j];
        const std::optional<uint64_t> init = k < n.apo.init.size() ? std::optional<uint64_t>(n.apo.init[k]) : init_[k];
        wc.init.push_back(init.value_or(0) & mask);
        wc.initKnown.push_back(init.has_value());
        // Its group: the words whose writes are by the same events.
        auto sameWriters = [&](uint32_t r) {
            return std::equal(wc.src.begin() + wc.wAt[r], wc.src.begin() + wc.wAt[r + 1], wc.src.begin() + wc.wAt[i],
                              wc.src.begin() + wc.wAt[i + 1]);
        };
        std::vector<uint32_t>& same = groupsByHash[h];
        auto g = std::find_if(same.begin(), same.end(), [&](uint32_t grp) { return sameWriters(groupRep[grp]); });
        if (g != same.end()) {
            wc.group.push_back(*g);
        } else {
            wc.group.push_back(uint32_t(groupRep.size()));
            same.push_back(uint32_t(groupRep.size()));
            groupRep.push_back(i);
        }
    }
    wc.groups = groupRep.size();
    return wc;
}

// The same from executor c (an atomic section's copy: sectionCandidates), where `more` are the section's events so
// far (their writes are candidate values too); each with the copy that ran it. `forceAlive`: its heap object is
// found alive (the section's outcome where no free of it came first).
std::vector<std::pair<SymEvent, std::unique_ptr<exec::Executor>>>
VhbExplorer::multiCandidatesOn(const exec::Executor& c0, const Node& n, ThreadId t, const SymEvent& base,
                               const std::vector<SymEvent>& more, bool forceAlive) {
    std::vector<std::pair<SymEvent, std::unique_ptr<exec::Executor>>> out;
    const Event p = c0.thread(t).pending;
    std::vector<WordUse> m = readWords(p);
    if (p.span) { // a string function: it may read on to its object's end (model::Event::readFootprint)
        for (int k = 0; k < 2; ++k) {
            auto [lo, hi] = p.readRange(k);
            if (lo >= hi) continue;
            for (uint64_t b = hi; b < p.readFootprint(k).second && c0.peek(b, 1); ++b)
                m.push_back({wordOf(b), bitsOf(wordOf(b), b, b + 1)});
        }
        mergeWords(m);
    }
    const WordChoices wc = wordChoices(n, t, more, m);
    const std::vector<WordUse>& words = wc.words; // the words with two or more candidate values, by address
    const size_t nw = words.size();
    auto vals = [&](size_t i) {
        return std::span<const uint64_t>(wc.vals.data() + wc.valAt[i], wc.valAt[i + 1] - wc.valAt[i]);
    };
    size_t combos = 1;
    for (size_t i = 0; i < nw; ++i) combos = combos > kPlainCombinations ? combos : combos * vals(i).size();
    // A string function's ranges depend on its bytes: with only the first `fixed` words given, it is known once
    // every word it then read is one of them (the rest of memory, the copy's own, did not matter).
    const bool stringFunction = p.span != 0;
    std::vector<uint64_t> chosen(nw, 0);
    std::set<uint64_t> seen;
    auto given = [&](uint64_t w, size_t fixed) -> const uint64_t* { // word w's value among the first `fixed`
        auto it = std::lower_bound(words.begin(), words.begin() + ptrdiff_t(fixed), w,
                                   [](const WordUse& u, uint64_t a) { return u.word < a; });
        return it != words.begin() + ptrdiff_t(fixed) && it->word == w ? &chosen[size_t(it - words.begin())] : nullptr;
    };
    auto single = [&](uint64_t w) { return std::binary_search(wc.single.begin(), wc.single.end(), w); };
    // The event run with the first `fixed` words holding `chosen`: added to `out` (once per distinct result) and
    // true when that fixes what it does, false when it read a word not given yet.
    auto run = [&](size_t fixed) {
        std::vector<std::pair<uint64_t, uint8_t>> bytes;
        bytes.reserve(fixed * kW);
        for (size_t i = 0; i < fixed; ++i)
            for (uint64_t b = 0; b < kW; ++b)
                if ((words[i].mask >> (8 * b)) & 0xff) bytes.push_back({words[i].word + b, uint8_t(chosen[i] >> (8 * b))});
        auto c = c0.forceStepBytes(t, bytes, forceAlive);
        if (!c || c->trace().size() <= c0.trace().size()) return fixed == nw;
        const Event& e2 = c->trace().back();
        Shadow sh;
        sh.words = readWords(e2);
        if (fixed < nw && !std::all_of(sh.words.begin(), sh.words.end(), [&](const WordUse& w) {
                return given(w.word, fixed) != nullptr || single(w.word);
            }))
            return false;
        auto s2 = symbolic(e2);
        if (!s2 || limit_) return true;
        for (const WordUse& w : sh.words) {
            const uint64_t* v = given(w.word, fixed);
            sh.read.push_back(v ? *v : peekWord(c0, w.word));
        }
        for (uint64_t w : writtenWords(e2)) sh.written.push_back(peekWord(*c, w));
        SymEvent s = multiEvent(e2, *s2, sh);
        s.guardKey = base.guardKey;
        s.guardThread = base.guardThread;
        uint64_t h = 0;
        forEachAccess(s, [&](uint32_t k, bool wr, uint64_t v, uint64_t mk) { h = mix(mix(mix(mix(h, k), wr), v), mk); });
        if (seen.insert(h).second) out.emplace_back(std::move(s), std::move(c));
        return true;
    };
    if (combos <= kPlainCombinations) { // few: every combination (Closure and Realize refute the infeasible)
        std::vector<size_t> idx(nw, 0);
        for (bool next = true; next && !limit_;) {
            for (size_t i = 0; i < nw; ++i) chosen[i] = vals(i)[idx[i]];
            run(nw);
            next = false;
            for (size_t i = 0; i < idx.size() && !next; ++i) {
                if (++idx[i] < vals(i).size()) next = true;
                else idx[i] = 0;
            }
        }
        return out;
    }
    // Many (DESIGN.md "Many combinations"): word by word, each prefix of values kept only while Closure (Alg. 1)
    // and a bounded Realize (Lemma 4.1; realizable) find the node, the section's events so far and a read of those
    // words with those values feasible — a relaxation of every extension the prefix can become (fewer reads, no
    // write, no section around it), so a prefix it refutes has no realisable combination. What remains are
    // combinations some linearisation may give. The prefixes kept, the runs and their order are those of that
    // word-by-word search; what follows (PERFORMANCE.md "Large objects") only answers most of its questions without a
    // Closure, the same way (past Realize's budget aside, where it kept a prefix it could not decide):
    // - words written by the same events (a group: the words of one memset, one calloc) hold, at any point of a
    //   linearisation, what the same one of those events left there, or all their initial values: a group keeps
    //   the events (sources) still possible given its words' values so far, a value none of them leaves is not
    //   tried, and a word they all leave one value in takes it with no choice (most of a buffer once its first
    //   word is chosen) — every linearisation where the words so far observe their values has it observe that
    //   one, so it refutes nothing and the relaxation's read leaves it out;
    // - a linearisation Realize found for a prefix has the probe read some value of every later word: taking that
    //   value keeps it a witness;
    // - a value whose last writer before the read must follow an event that must follow the read (below) is
    //   refuted without a Closure: a buffer written word by word, then by a memset.
    // Iterative: one frame per word with a choice (a 1 MB buffer is 262,144 words).
    ++wordSearches_;
    Apo a = withEvents(n, t, more);
    a.threads[t].emplace_back();
    const uint32_t probeAt = uint32_t(a.threads[t].size() - 1);
    std::vector<WordAcc> reads;
    using Witness = std::shared_ptr<const std::vector<uint64_t>>; // per word, its value where the probe reads
    // Feasible (Closure, Realize): nothing. With a witness, what it gives every word; past the budget, null.
    auto feasible = [&]() -> std::optional<Witness> {
        SymEvent& probe = a.threads[t].back();
        probe.op = Op::Multi;
        probe.accs = std::make_shared<const std::vector<WordAcc>>(reads);
        Linearisation lin;
        if (!realizable(a, &lin)) return std::nullopt;
        if (lin.empty()) return Witness();
        std::vector<uint32_t> pos(a.threads.size(), 0);
        std::vector<uint64_t> mem = a.init;
        for (uint32_t u : lin) {
            if (u == t && pos[u] == probeAt) break;
            a.threads[u][pos[u]++].applyTo(mem);
        }
        auto w = std::make_shared<std::vector<uint64_t>>(nw);
        for (size_t i = 0; i < nw; ++i) (*w)[i] = mem[wc.keys[i]] & words[i].mask;
        return Witness(std::move(w));
    };
    // Events before / after the probe in every linearisation where the words so far observe their values, closed
    // under program order, create and join (Order: the orderings every linearisation has, Sec. 6 "spawn/join
    // orderings"): a choice that needs an event on both sides is refuted. The probe's predecessors are before it;
    // the bits set later are logged and undone per frame.
    const Order po(a);
    const uint32_t probeId = po.id(t, probeAt);
    const size_t nb = po.words();
    std::vector<uint64_t> before(po.beforeOf(probeId), po.beforeOf(probeId) + nb), after(nb, 0);
    std::vector<std::pair<bool, uint32_t>> setLog; // (after?, event)
    auto place = [&](bool toAfter, uint32_t e) { // e and its successors after (predecessors before); false: both
        std::vector<uint64_t>& mine = toAfter ? after : before;
        const std::vector<uint64_t>& other = toAfter ? before : after;
        const uint64_t* closed = toAfter ? po.after(e) : po.beforeOf(e);
        auto with = [&](size_t k) { return closed[k] | (k == (e >> 6) ? uint64_t(1) << (e & 63) : 0); };
        for (size_t k = 0; k < nb; ++k)
            if (with(k) & other[k]) return false; // (checked first: a refuted choice logs nothing)
        for (size_t k = 0; k < nb; ++k) {
            uint64_t fresh = with(k) & ~mine[k];
            mine[k] |= fresh;
            for (; fresh; fresh &= fresh - 1)
                setLog.push_back({toAfter, uint32_t(k * 64 + size_t(__builtin_ctzll(fresh)))});
        }
        return true;
    };
    auto writerId = [&](size_t x) { return po.id(wc.writer[wc.src[x]].first, wc.writer[wc.src[x]].second); };
    // Word i observing v: a writer of another value after every writer of v (after all of them in every
    // linearisation) cannot precede the read — it would be the last; the only writer of v, when the initial value
    // is not v, precedes it.
    auto constrain = [&](size_t i, uint64_t v) {
        if (!wc.initKnown[i]) return true; // (any initial value: nothing to infer)
        const bool initial = wc.init[i] == v;
        size_t leaving = 0, only = 0;
        for (size_t x = wc.wAt[i]; x < wc.wAt[i + 1]; ++x)
            if (wc.wval[x] == v) ++leaving, only = x;
        if (!leaving && !initial) return false;
        for (size_t x = wc.wAt[i]; x < wc.wAt[i + 1]; ++x) {
            if (wc.wval[x] == v) continue;
            bool last = true;
            for (size_t y = wc.wAt[i]; y < wc.wAt[i + 1] && last; ++y)
                last = wc.wval[y] != v || po.before(writerId(y), writerId(x));
            if (last && !place(true, writerId(x))) return false;
        }
        return initial || leaving != 1 || place(false, writerId(only));
    };
    // Per group, the sources still possible: 0 the initial value, s ≥ 1 the group's s-th writing event.
    std::vector<std::vector<uint32_t>> alive(wc.groups);
    for (size_t i = 0; i < nw; ++i)
        if (auto& al = alive[wc.group[i]]; al.empty()) {
            al.resize(wc.wAt[i + 1] - wc.wAt[i] + 1);
            std::iota(al.begin(), al.end(), 0u);
        }
    auto valueAt = [&](size_t i, uint32_t s, uint64_t& v) { // false: any value (an initial value not known yet)
        if (s == 0) {
            v = wc.init[i];
            return wc.initKnown[i] != 0;
        }
        v = wc.wval[wc.wAt[i] + s - 1];
        return true;
    };
    // The values word i may take given its group's words so far: its candidate values that a possible source
    // leaves there, ascending. True when it has no choice: every possible source leaves one value, a candidate.
    auto options = [&](size_t i, std::vector<uint64_t>& opts) {
        opts.clear();
        bool unknown = false;
        for (uint32_t s : alive[wc.group[i]]) {
            uint64_t v = 0;
            if (valueAt(i, s, v)) opts.push_back(v);
            else unknown = true;
        }
        const auto cand = vals(i);
        if (unknown) {
            opts.assign(cand.begin(), cand.end());
            return false;
        }
        std::sort(opts.begin(), opts.end());
        opts.erase(std::unique(opts.begin(), opts.end()), opts.end());
        const bool forced = opts.size() == 1 && std::binary_search(cand.begin(), cand.end(), opts[0]);
        std::vector<uint64_t> both;
        std::set_intersection(cand.begin(), cand.end(), opts.begin(), opts.end(), std::back_inserter(both));
        opts = std::move(both);
        return forced;
    };
    struct Undo {
        uint32_t group;
        std::vector<uint32_t> alive;
    };
    std::vector<Undo> undo;
    auto narrow = [&](size_t i, uint64_t v) { // the group's sources that leave v at word i (or may)
        std::vector<uint32_t>& al = alive[wc.group[i]];
        std::vector<uint32_t> kept;
        for (uint32_t s : al) {
            uint64_t x = 0;
            if (!valueAt(i, s, x) || x == v) kept.push_back(s);
        }
        if (kept.size() == al.size()) return;
        undo.push_back({wc.group[i], std::move(al)});
        al = std::move(kept);
    };
    struct Frame {
        size_t i;                    // the word with a choice
        std::vector<uint64_t> opts;  // its values, tried in order
        Witness witness;             // a linearisation where the words before i observe their values, if known
        size_t next = 0;
        size_t undo = 0, reads = 0, placed = 0; // the state to go back to before each value
    };
    std::vector<Frame> stack;
    std::vector<uint64_t> opts;
    // From word i on: each word without a choice takes its value, up to the next word with one (a frame) or the
    // end (the event runs). A string function may be fixed before (run(i): the old search's check at every word;
    // at a word without a choice it answers as at the next word with one, the event having read none between).
    auto descend = [&](size_t i, Witness witness) {
        for (; i < nw; ++i) {
            const bool forced = options(i, opts);
            if (opts.empty()) return; // no candidate value is possible there: no combination with this prefix
            if (!forced) break;
            chosen[i] = opts[0];
        }
        if (i == nw) {
            run(nw);
            return;
        }
        if (stringFunction && i > 0 && run(i)) return;
        stack.push_back({i, opts, std::move(witness), 0, undo.size(), reads.size(), setLog.size()});
    };
    descend(0, nullptr);
    for (uint64_t steps = 0; !stack.empty() && !limit_;) {
        if ((++steps & 255) == 0 && outOfTime()) break;
        Frame& f = stack.back();
        for (; undo.size() > f.undo; undo.pop_back()) alive[undo.back().group] = std::move(undo.back().alive);
        for (; setLog.size() > f.placed; setLog.pop_back()) {
            auto [toAfter, e] = setLog.back();
            (toAfter ? after : before)[e >> 6] &= ~(uint64_t(1) << (e & 63));
        }
        reads.resize(f.reads);
        if (f.next == f.opts.size()) {
            stack.pop_back();
            continue;
        }
        const size_t i = f.i;
        const uint64_t v = f.opts[f.next++];
        Witness witness = f.witness; // (f is not used after: descend may push)
        chosen[i] = v;
        narrow(i, v);
        reads.push_back({wc.keys[i], false, v, words[i].mask});
        if (!constrain(i, v)) {
            ++prefixesRefuted_;
            continue;
        }
        if (witness && (*witness)[i] == v) descend(i + 1, std::move(witness));
        else if (auto w = feasible()) descend(i + 1, std::move(*w));
    }
    return out;
}

} // namespace skein::explore::vhb::detail
