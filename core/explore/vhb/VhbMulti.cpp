// The vhb explorer, part 3 of 4 (VhbExplorer.h): multi-word, sub-word and library accesses (DESIGN.md
// "Multi-location accesses") — the words an executor event reads and writes, its symbolic event from the shadow of
// the executor's memory, and its candidate extensions: every combination of its words' candidate values, asked of
// the executor on a copy.
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

bool VhbExplorer::realizable(const Apo& a) {
    // Closure knows little of atomic sections (a read of 0 then a read of 2 in one section, where only a write of
    // the first location separates the two writes): the search decides, within a budget (past it: kept).
    SearchLimits limits;
    limits.maxStates = 100'000;
    bool bottom = false;
    if (closeAndRealize(a, nullptr, 0, limits, bottom) || limits.exhausted) return true;
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

// The same from executor c (an atomic section's copy: sectionCandidates), where `more` are the section's events so
// far (their writes are candidate values too); each with the copy that ran it. `forceAlive`: its heap object is
// found alive (the section's outcome where no free of it came first).
std::vector<std::pair<SymEvent, std::unique_ptr<exec::Executor>>>
VhbExplorer::multiCandidatesOn(const exec::Executor& c0, const Node& n, ThreadId t, const SymEvent& base,
                               const std::vector<SymEvent>& more, bool forceAlive) {
    std::vector<std::pair<SymEvent, std::unique_ptr<exec::Executor>>> out;
    const Event p = c0.thread(t).pending;
    std::map<uint64_t, uint64_t> m;
    for (const WordUse& w : readWords(p)) m[w.word] |= w.mask;
    if (p.span) // a string function: it may read on to its object's end (model::Event::readFootprint)
        for (int k = 0; k < 2; ++k) {
            auto [lo, hi] = p.readRange(k);
            if (lo >= hi) continue;
            for (uint64_t b = hi; b < p.readFootprint(k).second && c0.peek(b, 1); ++b)
                m[wordOf(b)] |= bitsOf(wordOf(b), b, b + 1);
        }
    std::vector<WordUse> words;
    std::set<uint64_t> single; // words with one candidate value (left as the copy holds them)
    std::vector<uint32_t> keys;
    std::vector<std::vector<uint64_t>> vals;
    size_t combos = 1;
    for (auto [w, mask] : m) {
        uint32_t k = key(kMemory, w, 0);
        if (!init_[k] && !writtenThisRun_.count(k)) init_[k] = peekWord(*ex_, w);
        std::set<uint64_t> vs;
        for (uint64_t v : valuesOf(n, k, more)) vs.insert(v & mask);
        // One candidate value: every write of the word in the node (and the section) writes it, so the copy's
        // memory holds it already — nothing to force or enumerate (a string in a large buffer: most of its words).
        if (vs.size() <= 1) {
            single.insert(w);
            continue;
        }
        words.push_back({w, mask});
        keys.push_back(k);
        vals.emplace_back(vs.begin(), vs.end());
        combos = combos > kPlainCombinations ? combos : combos * vals.back().size();
    }
    // A string function's ranges depend on its bytes: with only the first `fixed` words given, it is known once
    // every word it then read is one of them (the rest of memory, the copy's own, did not matter).
    const bool stringFunction = p.span != 0;
    std::vector<uint64_t> chosen(words.size(), 0);
    std::set<uint64_t> seen;
    // The event run with the first `fixed` words holding `chosen`: added to `out` (once per distinct result) and
    // true when that fixes what it does, false when it read a word not given yet.
    auto run = [&](size_t fixed) {
        std::vector<std::pair<uint64_t, uint8_t>> bytes;
        std::map<uint64_t, uint64_t> value;
        for (size_t i = 0; i < fixed; ++i) {
            value[words[i].word] = chosen[i];
            for (uint64_t b = 0; b < kW; ++b)
                if ((words[i].mask >> (8 * b)) & 0xff) bytes.push_back({words[i].word + b, uint8_t(chosen[i] >> (8 * b))});
        }
        auto c = c0.forceStepBytes(t, bytes, forceAlive);
        if (!c || c->trace().size() <= c0.trace().size()) return fixed == words.size();
        const Event& e2 = c->trace().back();
        Shadow sh;
        sh.words = readWords(e2);
        if (fixed < words.size() && !std::all_of(sh.words.begin(), sh.words.end(), [&](const WordUse& w) {
                return value.count(w.word) != 0 || single.count(w.word) != 0;
            }))
            return false;
        auto s2 = symbolic(e2);
        if (!s2 || limit_) return true;
        for (const WordUse& w : sh.words) {
            auto it = value.find(w.word);
            sh.read.push_back(it != value.end() ? it->second : peekWord(c0, w.word));
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
        std::vector<size_t> idx(words.size(), 0);
        for (bool next = true; next && !limit_;) {
            for (size_t i = 0; i < words.size(); ++i) chosen[i] = vals[i][idx[i]];
            run(words.size());
            next = false;
            for (size_t i = 0; i < idx.size() && !next; ++i) {
                if (++idx[i] < vals[i].size()) next = true;
                else idx[i] = 0;
            }
        }
        return out;
    }
    // Many (DESIGN.md "Many combinations"): word by word, each prefix of values kept only while Closure and a
    // bounded Realize (realizable) find the node, the section's events so far and a read of those words with those
    // values feasible — a
    // relaxation of every extension the prefix can become (fewer reads, no write, no section around it), so a
    // prefix it refutes has no realisable combination. What remains are combinations some linearisation may give.
    Apo a = withEvents(n, t, more);
    a.threads[t].emplace_back();
    std::vector<WordAcc> reads;
    auto feasible = [&] {
        SymEvent& probe = a.threads[t].back();
        probe.op = Op::Multi;
        probe.accs = std::make_shared<const std::vector<WordAcc>>(reads);
        return realizable(a);
    };
    std::function<void(size_t)> extend = [&](size_t i) {
        if (limit_) return;
        if (i == words.size() || (stringFunction && i > 0 && run(i))) {
            if (i == words.size()) run(i);
            return;
        }
        for (uint64_t v : vals[i]) {
            chosen[i] = v;
            reads.push_back({keys[i], false, v, words[i].mask});
            if (feasible()) extend(i + 1);
            reads.pop_back();
        }
    };
    extend(0);
    return out;
}

} // namespace skein::explore::vhb::detail
