// The vhb explorer (VC-DPOR, Alg. 5–7) over the executor. A node of the exploration is an annotated partial
// order: the events each thread has executed and the value each of its reads observes. Its witness schedule
// (Realize, Lemma 4.1) is replayed in the executor, extended by every write-like event that is enabled
// (WExtend, Alg. 5 line 2), and each thread's next read-like event is tried with every value it may observe
// (ExtendRoot/ExtendLeaf, Alg. 6–7): each feasible extension (Closure, Alg. 1, then Realize) is a child.
#include "core/explore/vhb/Vhb.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/explore/RaceDetector.h"
#include "core/explore/vhb/Apo.h"
#include "core/explore/vhb/PaperVhb.h"

namespace skein::explore::vhb {

using exec::ExecStatus;
using model::Event;
using model::EventKind;
using model::ThreadId;

namespace {

// SKEIN_VHB_TRACE=1 prints the nodes and extensions (a debugging aid, not an interface).
const bool kTrace = std::getenv("SKEIN_VHB_TRACE") != nullptr;

uint64_t mask(uint64_t v, uint32_t size) { return size >= 8 ? v : v & ((uint64_t(1) << (8 * size)) - 1); }

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A node's events with the decisions that replay them (the choice of each event, per thread).
struct Node {
    Apo apo;
    std::vector<std::vector<uint32_t>> choices;
};

class VhbExplorer {
public:
    VhbExplorer(const program::Program& p, const ExploreOptions& o, Observer* obs)
        : opts_(o), obs_(obs), clock_(o), errors_(o, obs), ex_(p, o.exec), paper_(o.vhbRoot.value_or(1), paperCounters_) {}
    report::CheckResult run();

private:
    const ExploreOptions& opts_;
    Observer* obs_;
    report::CheckResult result_;
    RunClock clock_;
    ErrorCollector errors_;
    exec::Executor ex_;
    RaceDetector races_;
    // Locations: dense keys for memory words (by address, one access size each), mutexes, condition variables
    // (their waiters, as a bit set) and heap objects (alive or freed).
    enum KeyKind : uint8_t { kMemory, kMutex, kCond, kAlive };
    std::map<std::pair<uint8_t, uint64_t>, uint32_t> keys_;
    std::map<uint64_t, uint32_t> keyOfWord_; // aligned word → key: mixed-size accesses are detected here
    std::vector<uint32_t> keySize_;
    std::vector<uint8_t> keyKind_;
    std::vector<std::optional<uint64_t>> init_;
    std::set<uint32_t> writtenThisRun_;
    std::unordered_set<uint64_t> visited_, finals_;
    std::unordered_map<uint64_t, bool> attempted_; // extension → realisable (decided once)
    struct Work {
        std::vector<report::Decision> schedule;
        std::shared_ptr<const paper::Node> paper; // --vhb-equivalence=paper: the node's two-sided APO and CHB map
    };
    std::vector<Work> work_;
    std::set<ErrorKey> racesFound_;
    std::vector<report::Decision> schedule_;
    std::optional<std::string> limit_;
    RunLog runs_;
    bool stop_ = false;
    // Counters (Stats::extra).
    uint64_t extendResults_ = 0, siblingsSkipped_ = 0;
    uint64_t classes_ = 0, nonMaximal_ = 0, closureCalls_ = 0, realizeCalls_ = 0, infeasible_ = 0,
             searchStates_ = 0, revisits_ = 0, orderings_ = 0, monitorStates_ = 0;
    double closureMs_ = 0, realizeMs_ = 0, monitorMs_ = 0;

    void setLimit(std::string why) {
        if (!limit_) limit_ = std::move(why);
    }
    uint32_t key(uint8_t kind, uint64_t addr, uint32_t size);
    void learnInit(ThreadId t, bool stepping = true);
    bool replay(const std::vector<report::Decision>& schedule);
    void writeExtend();
    std::optional<SymEvent> symbolic(const Event& e);
    void condValues(SymEvent& s, ThreadId t, uint64_t waiters, ThreadId woken) const;
    static SymEvent useAfterFree(const SymEvent& access); // DESIGN.md "free()"
    void addGuard(SymEvent& s, const std::vector<SymEvent>& before, ThreadId t) const;
    Node build();
    static uint64_t hashOf(const Node& n);
    // One extension of a node by thread t: its next event, or a whole atomic section (DESIGN.md).
    struct Ext {
        std::vector<SymEvent> evs;
        std::vector<uint32_t> choices;
        bool open = false; // ends inside its atomic section (it blocked there)
    };
    std::vector<Ext> candidates(const Node& n, ThreadId t);
    std::vector<Ext> sectionCandidates(const Node& n, ThreadId t);
    std::set<uint64_t> valuesOf(const Node& n, uint32_t key, const std::vector<SymEvent>& more) const;
    void stepExec(ThreadId t, uint32_t choice);
    std::vector<std::vector<uint32_t>> sectionOf_; // per thread, per event of the executor's trace: its section
    void visit(const Work& w);
    // The two modes' extensions of a visited node (the witness replayed and write-extended, `node` built): the
    // values mode's (below) and the paper's (PaperVhb). Each pushes its children onto work_ and returns how many
    // children and how many classes (maximal traces) the node stands for.
    struct Extended {
        size_t children = 0;
        uint64_t classes = 0;
    };
    Extended extendValues(const Node& node);
    Extended extendPaper(const Work& w, const Node& node);
    void maximal(const Node& node, ExecStatus status, uint64_t classes);
    paper::Counters paperCounters_;
    paper::Explorer paper_;
    std::unordered_set<uint64_t> maximalSeen_; // paper: value classes whose monitor and races already ran
    void findRaces(const Node& n);
    std::optional<std::vector<report::Decision>> realizeChild(const Node& child);
    std::vector<report::Decision> toSchedule(const Node& n, const Linearisation& lin) const;
    void monitorFinalStates(const Node& n);
    void finishStats();
};

uint32_t VhbExplorer::key(uint8_t kind, uint64_t addr, uint32_t size) {
    auto [it, fresh] = keys_.try_emplace({kind, addr}, uint32_t(keySize_.size()));
    if (fresh) {
        keySize_.push_back(size);
        keyKind_.push_back(kind);
        // A mutex starts unlocked, a condition variable without waiters, a heap object alive.
        init_.push_back(kind != kMemory ? std::optional<uint64_t>(0) : std::nullopt);
    }
    uint32_t k = it->second;
    if (kind == 0) {
        if (keySize_[k] != size) setLimit("mixed-size accesses to one location");
        for (uint64_t w = addr & ~uint64_t(model::kWordSize - 1); w < addr + size; w += model::kWordSize) {
            auto [wit, wfresh] = keyOfWord_.try_emplace(w, k);
            if (!wfresh && wit->second != k) setLimit("overlapping accesses of different sizes or addresses");
        }
    }
    return k;
}

// The initial value of a location is what it holds before its first write of an execution (the paper's
// initial event, Sec. 2): learnt from the executor on the way.
void VhbExplorer::learnInit(ThreadId t, bool stepping) {
    const Event& p = ex_.thread(t).pending;
    if (!p.isMemory() || p.kind == EventKind::Copy || p.kind == EventKind::Free || p.size2) return;
    if (p.size == 0 || p.size > 8) return;
    uint32_t k = key(kMemory, p.addr, p.size);
    if (!init_[k] && !writtenThisRun_.count(k))
        if (auto v = ex_.peek(p.addr, p.size)) init_[k] = mask(*v, p.size);
    if (stepping && p.writes()) writtenThisRun_.insert(k);
}

void VhbExplorer::stepExec(ThreadId t, uint32_t choice) {
    learnInit(t);
    if (sectionOf_.size() <= t) sectionOf_.resize(t + 1);
    sectionOf_[t].push_back(ex_.atomicSectionId(t));
    ex_.step(t, choice);
}

bool VhbExplorer::replay(const std::vector<report::Decision>& schedule) {
    ex_.reset();
    writtenThisRun_.clear();
    sectionOf_.clear();
    for (const report::Decision& d : schedule) {
        if (d.thread >= ex_.numThreads() || !ex_.enabled(d.thread)) return false;
        stepExec(d.thread, d.choice);
    }
    schedule_ = schedule;
    return true;
}

// WExtend (Alg. 5 line 2): run every thread through its write-like events (writes, unlocks, creates, ...) up to
// its next read-like one. They observe nothing, so appending them keeps the node realisable.
void VhbExplorer::writeExtend() {
    for (bool progress = true; progress && ex_.status() == ExecStatus::Running && !limit_;) {
        progress = false;
        for (ThreadId t = 0; t < ex_.numThreads(); ++t) {
            // An atomic section is one extension (sectionCandidates), never written out piecemeal.
            if (!ex_.enabled(t) || ex_.inAtomicSection(t)) continue;
            const exec::ThreadView& v = ex_.thread(t);
            switch (v.pending.kind) {
            case EventKind::Write:
                // An access of a heap object observes that it is alive (DESIGN.md "free"): read-like.
                if (!opts_.vhbPaper && ex_.isHeapAddress(v.pending.addr)) continue;
                break;
            case EventKind::Unlock:
            case EventKind::ThreadCreate:
            case EventKind::Fence:
            case EventKind::ProgramExit: break;
            case EventKind::Nondet:
                if (v.choices == 1) break;
                continue;
            default: continue;
            }
            stepExec(t, 0);
            schedule_.push_back({t, 0});
            progress = true;
        }
    }
}

std::optional<SymEvent> VhbExplorer::symbolic(const Event& e) {
    SymEvent s;
    auto memory = [&]() -> bool {
        if (e.size == 0 || e.size > 8) {
            setLimit("accesses wider than 8 bytes");
            return false;
        }
        s.key = key(kMemory, e.addr, e.size);
        // It also observes that its object is alive (DESIGN.md "free"); the paper mode refuses free() instead.
        if (!opts_.vhbPaper && ex_.isHeapAddress(e.addr)) {
            s.acc2 = Acc2::Read;
            s.key2 = key(kAlive, program::pointerObject(e.addr), 0);
            s.val2 = 0;
        }
        return true;
    };
    auto cond = [&](Role role) {
        if (e.tid >= 64) {
            setLimit("condition variables with threads numbered 64 or more");
            return std::optional<SymEvent>();
        }
        if (opts_.vhbPaper) {
            setLimit("condition variables (the paper's model has none; the values mode handles them)");
            return std::optional<SymEvent>();
        }
        s.key = key(kCond, e.addr, 0);
        s.role = role;
        s.op = Op::Rmw;
        if (role == Role::CondWait) { // it releases the mutex too
            s.acc2 = Acc2::Write;
            s.key2 = key(kMutex, e.addr2, 0);
            s.val2 = 0;
        }
        return std::optional<SymEvent>(s); // values: condValues
    };
    switch (e.kind) {
    case EventKind::Read:
        if (e.size2) {
            setLimit("string comparisons (two-range reads)");
            return std::nullopt;
        }
        if (!memory()) return std::nullopt;
        s.op = Op::Read;
        s.rval = mask(e.value, e.size);
        return s;
    case EventKind::Write:
        if (!memory()) return std::nullopt;
        s.op = Op::Write;
        s.wval = mask(e.value, e.size);
        return s;
    case EventKind::Rmw:
        if (!memory()) return std::nullopt;
        s.op = Op::Rmw;
        s.rval = mask(e.value, e.size);
        s.wval = mask(e.value2, e.size);
        s.rmwWrites = e.rmwWrote;
        return s;
    // A mutex is a location: lock = read 0 and write 1 with nothing in between, unlock = write 0 (DESIGN.md).
    case EventKind::Lock:
        s = {Op::Rmw, key(kMutex, e.addr, 0), 0, 1};
        return s;
    case EventKind::TryLock:
        if (e.value == 1) s = {Op::Rmw, key(kMutex, e.addr, 0), 0, 1};
        else s = {Op::Read, key(kMutex, e.addr, 0), 1, 0};
        return s;
    case EventKind::Unlock:
        s = {Op::Write, key(kMutex, e.addr, 0), 0, 0};
        return s;
    case EventKind::ThreadCreate:
        s.op = Op::Create;
        s.other = uint32_t(e.value);
        return s;
    case EventKind::ThreadJoin:
        s.op = Op::Join;
        s.other = uint32_t(e.value);
        return s;
    case EventKind::Nondet:
    case EventKind::Fence:
    case EventKind::ProgramExit: return s;
    case EventKind::CondWait: return cond(Role::CondWait);
    case EventKind::CondSignal: return cond(Role::CondSignal);
    case EventKind::CondBroadcast: return cond(Role::CondBroadcast);
    case EventKind::Free:
        if (e.value2) {
            setLimit("realloc()");
            return std::nullopt;
        }
        if (opts_.vhbPaper) {
            setLimit("free() (the paper's model has none; the values mode handles it)");
            return std::nullopt;
        }
        // It observes that the object is alive (a double free when it is not) and ends it.
        s = {Op::Rmw, key(kAlive, program::pointerObject(e.addr), 0), 0, 1};
        s.role = Role::Free;
        return s;
    case EventKind::Copy: setLimit("memcpy-like copies"); return std::nullopt;
    }
    return std::nullopt;
}

// A condition variable is a location holding the set of its waiters, one bit per thread (DESIGN.md
// "Condition variables"): a wait adds its thread (and releases the mutex), a signal takes the woken one off, a
// broadcast empties it. All three read the set: what they do depends on it.
SymEvent VhbExplorer::useAfterFree(const SymEvent& access) {
    SymEvent s{Op::Read, access.key2, 1, 0};
    s.role = Role::UseAfterFree;
    s.key2 = access.key;
    s.val2 = access.writes();
    return s;
}

void VhbExplorer::condValues(SymEvent& s, ThreadId t, uint64_t waiters, ThreadId woken) const {
    s.rval = waiters;
    s.other = 0;
    switch (s.role) {
    case Role::CondWait: s.wval = waiters | (uint64_t(1) << t); break;
    case Role::CondSignal:
        s.wval = woken == model::kNoThread ? waiters : waiters & ~(uint64_t(1) << woken);
        s.other = woken == model::kNoThread ? 0 : woken + 1;
        break;
    case Role::CondBroadcast: s.wval = 0; break;
    case Role::None: break;
    }
    if (s.wval == waiters) s.op = Op::Read; // nobody to wake: it only observes that
}

// The mutex re-acquire after a pthread_cond_wait may run only once a signal or broadcast took its thread off the
// waiters: a guard on the condition variable's waiter set.
void VhbExplorer::addGuard(SymEvent& s, const std::vector<SymEvent>& before, ThreadId t) const {
    if (before.empty() || before.back().role != Role::CondWait) return;
    s.guardKey = before.back().key;
    s.guardBit = uint8_t(t);
}

Node VhbExplorer::build() {
    Node n;
    size_t nt = ex_.numThreads();
    n.apo.threads.resize(nt);
    n.choices.resize(nt);
    for (const report::Decision& d : schedule_) n.choices[d.thread].push_back(d.choice);
    std::map<uint32_t, uint64_t> waiters; // per condition variable, along the execution
    std::set<uint32_t> freed;             // heap objects (kAlive keys) freed so far: an access after it observes it
    for (const Event& e : ex_.trace()) {
        auto s = symbolic(e);
        auto& th = n.apo.threads[e.tid];
        SymEvent sym = s.value_or(SymEvent{});
        if (isCond(sym.role)) {
            uint64_t& w = waiters[sym.key];
            ThreadId woken = e.kind == EventKind::CondSignal && e.value ? ThreadId(e.value - 1) : model::kNoThread;
            condValues(sym, e.tid, w, woken);
            w = sym.wval;
        }
        if (e.kind == EventKind::Lock) addGuard(sym, th, e.tid);
        // An access after the free observes only that (the executor stops the thread on it): the candidates'
        // use-after-free extension.
        if (sym.acc2 == Acc2::Read && keyKind_[sym.key2] == kAlive && freed.count(sym.key2)) sym = useAfterFree(sym);
        if (sym.role == Role::Free && !freed.insert(sym.key).second) sym = {Op::Read, sym.key, 1, 0}; // double free
        if (sym.role == Role::None && e.kind == EventKind::Free) sym.role = Role::Free;
        sym.section = e.tid < sectionOf_.size() && th.size() < sectionOf_[e.tid].size() ? sectionOf_[e.tid][th.size()] : 0;
        th.push_back(sym);
    }
    n.apo.finished.resize(nt);
    n.apo.openSection.assign(nt, false);
    for (ThreadId t = 0; t < nt; ++t) {
        const auto& th = n.apo.threads[t];
        n.apo.finished[t] = ex_.thread(t).state == exec::ThreadState::Finished;
        n.apo.openSection[t] = !th.empty() && th.back().section && ex_.atomicSectionId(t) == th.back().section;
    }
    n.apo.init.resize(init_.size());
    for (size_t k = 0; k < init_.size(); ++k) n.apo.init[k] = init_[k].value_or(0);
    return n;
}

uint64_t VhbExplorer::hashOf(const Node& n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t t = 0; t < n.apo.threads.size(); ++t) {
        h = mix(h, 0xfeed0000 + t);
        for (size_t i = 0; i < n.apo.threads[t].size(); ++i) {
            const SymEvent& e = n.apo.threads[t][i];
            h = mix(mix(mix(mix(mix(h, uint64_t(e.op)), e.key), e.rval), e.wval), e.other);
            if (e.acc2 != Acc2::None) h = mix(mix(mix(h, uint64_t(e.acc2)), e.key2), e.val2);
            if (e.role != Role::None) h = mix(h, 0x401e0000ull + uint64_t(e.role));
            h = mix(h, i < n.choices[t].size() ? n.choices[t][i] : 0);
        }
    }
    return h;
}

// ExtendRoot/ExtendLeaf (Alg. 6–7) for thread t: its next event with each value it may observe — the values
// of the writes to its location in the node, and the initial value (the candidate writes M_t(r), grouped by
// value: the paper's good-writes of the extension).
std::set<uint64_t> VhbExplorer::valuesOf(const Node& n, uint32_t key, const std::vector<SymEvent>& more) const {
    std::set<uint64_t> values;
    if (init_[key]) values.insert(*init_[key]);
    auto add = [&](const SymEvent& e) {
        if (e.writes() && e.key == key) values.insert(e.wval);
        if (e.acc2 == Acc2::Write && e.key2 == key) values.insert(e.val2);
    };
    for (const auto& th : n.apo.threads)
        for (const SymEvent& e : th) add(e);
    for (const SymEvent& e : more) add(e);
    return values;
}

std::vector<VhbExplorer::Ext> VhbExplorer::candidates(const Node& n, ThreadId t) {
    std::vector<Ext> out;
    const exec::ThreadView& v = ex_.thread(t);
    if (v.state == exec::ThreadState::Finished || v.state == exec::ThreadState::Stopped) return out;
    const Event& p = v.pending;
    if (kTrace)
        std::fprintf(stderr, "  thread %u state %d pending %s\n", t, int(v.state),
                     std::string(model::eventKindName(p.kind)).c_str());
    if (ex_.inAtomicSection(t)) return sectionCandidates(n, t);
    auto single = [&](SymEvent e, uint32_t choice) { out.push_back({{e}, {choice}, false}); };
    if (p.kind == EventKind::Nondet) {
        for (uint32_t c = 0; c < v.choices; ++c) single(SymEvent{}, c);
        return out;
    }
    learnInit(t, /*stepping=*/false);
    auto base = symbolic(p);
    if (!base || limit_) return out;
    if (isCond(base->role)) {
        for (uint64_t waiters : valuesOf(n, base->key, {})) {
            if (base->role == Role::CondWait && ((waiters >> t) & 1)) continue;
            std::vector<ThreadId> woken{model::kNoThread};
            if (base->role == Role::CondSignal && waiters) {
                woken.clear();
                for (ThreadId w = 0; w < 64; ++w)
                    if ((waiters >> w) & 1) woken.push_back(w);
            }
            for (ThreadId w : woken) {
                SymEvent s = *base;
                condValues(s, t, waiters, w);
                single(s, 0); // a signal's choice (which waiter) is the linearisation's: toSchedule
            }
        }
        return out;
    }
    if (p.kind == EventKind::Lock) addGuard(*base, n.apo.threads[t], t);
    if (base->role == Role::Free) { // on a live object; a double free when a free of it is in the node
        single(*base, 0);
        if (valuesOf(n, base->key, {}).count(1)) {
            SymEvent twice{Op::Read, base->key, 1, 0};
            twice.role = Role::Free;
            single(twice, 0);
        }
        return out;
    }
    // An access of a freed heap object: the extension where it observes the free (the executor reports a use
    // after free) — only when a free of it is in the node.
    if (base->acc2 == Acc2::Read && valuesOf(n, base->key2, {}).count(1)) single(useAfterFree(*base), 0);
    if (p.kind == EventKind::TryLock) {
        single({Op::Rmw, base->key, 0, 1}, 0);
        single({Op::Read, base->key, 1, 0}, 0);
        return out;
    }
    if (p.kind != EventKind::Read && p.kind != EventKind::Rmw) {
        single(*base, 0);
        return out;
    }
    for (uint64_t val : valuesOf(n, base->key, {})) {
        SymEvent s = *base;
        s.rval = val;
        if (p.kind == EventKind::Rmw) {
            // What it writes depends on what it reads: ask the executor (on a copy).
            auto e = ex_.probe(t, val);
            if (!e) continue;
            s.wval = mask(e->value2, p.size);
            s.rmwWrites = e->rmwWrote;
        }
        single(s, 0);
    }
    return out;
}

// An SV-COMP atomic section runs alone: it is added to a node as one extension, all its events at once (a
// linearisation keeps them contiguous: Apo's sections). Each way through it — every value each of its reads may
// observe, every outcome of a nondet value or a trylock — is one extension; the executor runs the section on
// copies, with each read forced to the value tried (Executor::forceStep), as if the section ran alone.
std::vector<VhbExplorer::Ext> VhbExplorer::sectionCandidates(const Node& n, ThreadId t) {
    std::vector<Ext> out;
    Ext cur;
    size_t budget = 100'000; // section paths
    std::function<void(const exec::Executor&)> expand = [&](const exec::Executor& c) {
        const exec::ThreadView& v = c.thread(t);
        bool alive = v.state != exec::ThreadState::Finished && v.state != exec::ThreadState::Stopped;
        if (!alive || !c.inAtomicSection(t) || (!cur.evs.empty() && c.atomicSectionId(t) != cur.evs.back().section)) {
            if (!cur.evs.empty()) out.push_back(cur);
            return;
        }
        if (budget-- == 0) {
            setLimit("an atomic section with over 100000 ways through it");
            return;
        }
        const Event p = v.pending;
        const uint32_t section = c.atomicSectionId(t);
        struct Outcome {
            uint32_t choice = 0;
            std::optional<uint64_t> value;
            std::optional<bool> free;
        };
        std::vector<Outcome> outcomes;
        if (p.kind == EventKind::Nondet) {
            for (uint32_t k = 0; k < v.choices; ++k) outcomes.push_back({k, {}, {}});
        } else if (p.kind == EventKind::Lock) {
            outcomes.push_back({0, {}, true});
        } else if (p.kind == EventKind::TryLock) {
            outcomes.push_back({0, {}, true});
            outcomes.push_back({0, {}, false});
        } else if (p.kind == EventKind::Read || p.kind == EventKind::Rmw) {
            auto base = symbolic(p);
            if (!base) return;
            uint32_t k = base->key;
            if (!init_[k] && !writtenThisRun_.count(k) &&
                std::none_of(cur.evs.begin(), cur.evs.end(), [&](const SymEvent& e) { return e.writes() && e.key == k; }))
                if (auto val = c.peek(p.addr, p.size)) init_[k] = mask(*val, p.size);
            for (uint64_t val : valuesOf(n, k, cur.evs)) outcomes.push_back({0, val, {}});
        } else {
            outcomes.push_back({});
        }
        bool any = false;
        for (const Outcome& o : outcomes) {
            auto next = c.forceStep(t, o.choice, o.value, o.free);
            if (!next) continue;
            any = true;
            auto s = symbolic(next->trace().back());
            if (!s || limit_) return;
            // Not modelled inside a section: a condition variable's waiter set (forceStep runs the section alone),
            // and an access of a heap object some thread of the node frees (the section would also have to be
            // tried after the free).
            if (isCond(s->role)) setLimit("condition variables inside an atomic section");
            if (s->role == Role::Free) setLimit("free() inside an atomic section");
            if (s->acc2 == Acc2::Read && valuesOf(n, s->key2, cur.evs).count(1))
                setLimit("an atomic section accessing a heap object that another thread frees");
            if (limit_) return;
            s->section = section;
            cur.evs.push_back(*s);
            cur.choices.push_back(o.choice);
            expand(*next);
            cur.evs.pop_back();
            cur.choices.pop_back();
            if (limit_) return;
        }
        if (!any && !cur.evs.empty()) { // it blocks inside the section: nothing else runs after it
            Ext e = cur;
            e.open = true;
            out.push_back(e);
        }
    };
    expand(ex_);
    return out;
}

std::vector<report::Decision> VhbExplorer::toSchedule(const Node& n, const Linearisation& lin) const {
    std::vector<report::Decision> out;
    std::vector<size_t> next(n.apo.threads.size(), 0);
    // The executor's waiters of each condition variable, in the order they began waiting: a signal's choice is
    // the woken thread's place among them, which depends on the linearisation.
    std::map<uint32_t, std::vector<uint32_t>> waiters;
    for (uint32_t t : lin) {
        size_t i = next[t]++;
        uint32_t choice = i < n.choices[t].size() ? n.choices[t][i] : 0;
        const SymEvent& e = n.apo.threads[t][i];
        if (e.role == Role::CondWait) waiters[e.key].push_back(t);
        if (e.role == Role::CondBroadcast) waiters[e.key].clear();
        if (e.role == Role::CondSignal && e.other) {
            auto& ws = waiters[e.key];
            auto it = std::find(ws.begin(), ws.end(), e.other - 1);
            choice = uint32_t(it - ws.begin());
            if (it != ws.end()) ws.erase(it);
        }
        out.push_back({t, choice});
    }
    return out;
}

std::optional<std::vector<report::Decision>> VhbExplorer::realizeChild(const Node& child) {
    auto t0 = Clock::now();
    ++closureCalls_;
    auto q = closure(child.apo);
    closureMs_ += msSince(t0);
    if (!q) return std::nullopt;
    orderings_ += q->inserted;
    t0 = Clock::now();
    ++realizeCalls_;
    q->computeRequired();
    SearchLimits limits;
    auto lin = realize(child.apo, *q, &limits);
    searchStates_ += limits.states;
    realizeMs_ += msSince(t0);
    if (!lin) return std::nullopt;
    return toSchedule(child, *lin);
}

// The final-state monitor: the node fixes what every thread observes, not the order of the last writes to each
// location; the distinct final memories are the complete linearisations' (DESIGN.md "Final states").
void VhbExplorer::monitorFinalStates(const Node& n) {
    auto t0 = Clock::now();
    auto q = closure(n.apo);
    if (!q) return;
    q->computeRequired();
    std::map<uint64_t, Linearisation> memories;
    SearchLimits limits;
    limits.maxStates = 2'000'000;
    search(
        n.apo, &*q,
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
    if (memories.size() <= 1) {
        finals_.insert(ex_.finalStateHash());
    } else {
        for (auto& [_, lin] : memories)
            if (replay(toSchedule(n, lin))) finals_.insert(ex_.finalStateHash());
    }
    monitorMs_ += msSince(t0);
}

void VhbExplorer::visit(const Work& w) {
    const std::vector<report::Decision>& schedule = w.schedule;
    report::Stats& st = result_.stats;
    if (w.paper && w.paper->maximalSibling && *w.paper->maximalSibling) { // App. D optimisation 2
        ++siblingsSkipped_;
        return;
    }
    if (!replay(schedule)) {
        setLimit("internal: a realisation did not replay in the executor");
        return;
    }
    writeExtend();
    if (limit_) return;
    Node node = build();
    if (limit_) return;
    // Which threads have stopped on an error is part of the node: an extension whose event fails in the executor
    // (a use after free) adds no event, only that. The values mode merges nodes of equal events and values; the
    // paper mode's CHB maps make its nodes pairwise inequivalent (Lemma C.3), so it keeps none.
    uint64_t nodeHash = hashOf(node);
    for (ThreadId t = 0; t < ex_.numThreads(); ++t)
        if (ex_.thread(t).state == exec::ThreadState::Stopped) nodeHash = mix(nodeHash, 0x570990000ull + t);
    if (!opts_.vhbPaper && !visited_.insert(nodeHash).second) {
        ++revisits_;
        return;
    }
    if (kTrace) {
        std::fprintf(stderr, "node:");
        for (const Event& e : ex_.trace())
            std::fprintf(stderr, " t%u:%s@%llx=%llu", e.tid, std::string(model::eventKindName(e.kind)).c_str(),
                         (unsigned long long)(e.addr & 0xffff), (unsigned long long)e.value);
        std::fprintf(stderr, "\n");
    }
    st.events += ex_.trace().size();
    runs_.noteRun(ex_, result_);
    if (collectErrors(errors_, opts_.detectRaces ? &races_ : nullptr, ex_, schedule_)) stop_ = true;
    const ExecStatus status = ex_.status();
    const Extended x = opts_.vhbPaper ? extendPaper(w, node) : extendValues(node);
    if (limit_) return;
    if (x.children) ++nonMaximal_;
    if (x.classes) maximal(node, status, x.classes);
}

VhbExplorer::Extended VhbExplorer::extendValues(const Node& node) {
    size_t children = 0;
    for (ThreadId t = 0; t < ex_.numThreads() && !limit_; ++t)
        for (const Ext& ext : candidates(node, t)) {
            Node child = node;
            // Keys (and initial values) the candidates met for the first time.
            child.apo.init.resize(init_.size());
            for (size_t k = node.apo.init.size(); k < init_.size(); ++k) child.apo.init[k] = init_[k].value_or(0);
            child.apo.threads[t].insert(child.apo.threads[t].end(), ext.evs.begin(), ext.evs.end());
            child.apo.finished[t] = false;
            child.apo.openSection[t] = ext.open;
            child.choices[t].resize(node.apo.threads[t].size());
            child.choices[t].insert(child.choices[t].end(), ext.choices.begin(), ext.choices.end());
            auto [it, fresh] = attempted_.try_emplace(hashOf(child), false);
            if (!fresh) {
                children += it->second; // decided before: explored from there when realisable
                continue;
            }
            if (kTrace)
                std::fprintf(stderr, "  extend t%u by %zu events, first op%d key%u rval%llu wval%llu\n", t,
                             ext.evs.size(), int(ext.evs[0].op), ext.evs[0].key, (unsigned long long)ext.evs[0].rval,
                             (unsigned long long)ext.evs[0].wval);
            if (auto s = realizeChild(child)) {
                work_.push_back({std::move(*s), nullptr});
                it->second = true;
                ++children;
            } else {
                ++infeasible_;
            }
        }
    // A node without a realisable extension is maximal: no thread can take another event in any realisation.
    return {children, children ? 0u : 1u};
}

// --vhb-equivalence=paper: one VC-DPOR call (Alg. 5) on w.paper. The executor gives what the algorithm cannot
// know by itself: the write extension's events (WExtend, line 2) and each thread's possible next events.
VhbExplorer::Extended VhbExplorer::extendPaper(const Work& w, const Node& node) {
    const paper::Node& parent = *w.paper;
    for (ThreadId t = 0; t < node.apo.threads.size(); ++t) {
        for (const SymEvent& e : node.apo.threads[t])
            if (e.section) setLimit("SV-COMP atomic sections (a section is several events no other thread may "
                                    "separate: Lemma 4.1's witness does not keep them together)");
        if (ex_.inAtomicSection(t)) setLimit("SV-COMP atomic sections");
        const auto& mine = t < parent.apo.events.threads.size() ? parent.apo.events.threads[t] : std::vector<SymEvent>{};
        if (node.apo.threads[t].size() < mine.size()) setLimit("internal: a paper witness lost events in replay");
    }
    if (limit_) return {};
    std::vector<std::vector<paper::Candidate>> next(node.apo.threads.size());
    for (ThreadId t = 0; t < node.apo.threads.size() && !limit_; ++t)
        for (const Ext& ext : candidates(node, t)) {
            if (ext.evs.size() != 1) {
                setLimit("SV-COMP atomic sections");
                break;
            }
            next[t].push_back({ext.evs[0], ext.choices[0]});
        }
    if (limit_) return {};
    Apo t = node.apo;
    t.init.resize(init_.size());
    for (size_t k = 0; k < init_.size(); ++k) t.init[k] = init_[k].value_or(0);
    std::vector<uint32_t> wextend;
    for (size_t i = w.schedule.size(); i < schedule_.size(); ++i) wextend.push_back(schedule_[i].thread);
    paper::Expansion x = paper_.expand(parent, t, node.choices, wextend, next);
    // Optimisation 2 (App. D): a maximal trace (every thread done) — the siblings that read the same value have
    // the same events and values, hence the same local states, errors and final memories.
    if (parent.maximalSibling && std::all_of(next.begin(), next.end(), [](const auto& n) { return n.empty(); }))
        *parent.maximalSibling = true;
    if (paperCounters_.anomalies) setLimit("internal: an APO not of the paper's shape (paper closure anomaly)");
    extendResults_ += x.extended;
    for (paper::Child& c : x.children) {
        Node shown{c.node->apo.events, c.node->choices};
        work_.push_back({toSchedule(shown, c.witness), std::move(c.node)});
    }
    return {x.children.size(), x.classes};
}

// A maximal node: one class, or (paper) as many as the node's extensions to E(t) that are maximal — they differ in
// the leaf threads' happens-before only, so they share the events, values, errors and final memories.
void VhbExplorer::maximal(const Node& node, ExecStatus status, uint64_t classes) {
    report::Stats& st = result_.stats;
    if (kTrace) std::fprintf(stderr, "  maximal, status %d\n", int(status));
    if (runs_.count(ex_, st)) stop_ = true;
    // Classes: complete executions, errors and deadlocks (what dfs counts as Mazurkiewicz traces).
    if (status == ExecStatus::Finished || status == ExecStatus::Error || status == ExecStatus::Running)
        classes_ += classes;
    // The paper mode reaches one value class from several nodes (different side functions or causal orders):
    // the monitor and the race search, which look at all linearisations of the values, run once per value class.
    if (opts_.vhbPaper && !maximalSeen_.insert(hashOf(node)).second) return;
    if (status == ExecStatus::Finished) {
        if (opts_.vhbFinalStates) monitorFinalStates(node);
        else finals_.insert(ex_.finalStateHash());
    }
    // Races are searched in maximal nodes only: a racing prefix of any execution τ is a prefix of a
    // linearisation of τ's class, whose maximal node has τ's events and values (DESIGN.md "Data races").
    // Last: it replays other linearisations in the executor.
    if (opts_.detectRaces && !stop_) findRaces(node);
}

// Data races: two conflicting accesses of different threads (one a write, not both atomic) that some execution
// of the node runs back to back — then nothing orders them (DESIGN.md "Data races"). The witness execution only
// shows the races of one linearisation, so each new event is paired with the node's earlier conflicting ones and
// a prefix ending with the pair adjacent is searched for.
void VhbExplorer::findRaces(const Node& n) {
    // A copy: the replays below change the executor's trace. (Any linearisation of the node has the same events
    // per thread.)
    const std::vector<Event> trace = ex_.trace();
    std::vector<std::vector<uint32_t>> traceIndex(n.apo.threads.size());
    for (uint32_t i = 0; i < trace.size(); ++i) traceIndex[trace[i].tid].push_back(i);
    struct Access {
        uint32_t t, i;
    };
    std::vector<Access> accesses;
    auto isFree = [&](const SymEvent& e) { return e.role == Role::Free; };
    // The memory location an event accesses (a use after free keeps it in key2), whether it writes it, and the
    // heap object whose liveness it observes.
    auto memKey = [&](const SymEvent& e) {
        if (e.role == Role::UseAfterFree) return e.key2;
        return (e.reads() || e.writes()) && keyKind_[e.key] == kMemory ? e.key : kNoKey;
    };
    auto memWrites = [&](const SymEvent& e) { return e.role == Role::UseAfterFree ? e.val2 != 0 : e.writes(); };
    auto objectOf = [&](const SymEvent& e) {
        if (e.role == Role::UseAfterFree) return e.key;
        return e.acc2 == Acc2::Read && keyKind_[e.key2] == kAlive ? e.key2 : kNoKey;
    };
    // Conflicting accesses: of one memory location with a write among them, a free and an access of its object,
    // or two frees of one object (as for the race detector, where a free writes its whole object).
    auto conflict = [&](const SymEvent& a, const SymEvent& b) {
        if (memKey(a) != kNoKey && memKey(b) != kNoKey) return memKey(a) == memKey(b) && (memWrites(a) || memWrites(b));
        if (isFree(a) && isFree(b)) return a.key == b.key;
        return (isFree(a) && objectOf(b) == a.key) || (isFree(b) && objectOf(a) == b.key);
    };
    for (uint32_t t = 0; t < n.apo.threads.size(); ++t)
        for (uint32_t i = 0; i < n.apo.threads[t].size(); ++i) {
            const SymEvent& e = n.apo.threads[t][i];
            if (memKey(e) != kNoKey || isFree(e)) accesses.push_back({t, i});
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
    auto acquires = [&](uint32_t t, uint32_t k) {
        const SymEvent& e = n.apo.threads[t][k];
        if (e.reads() && keyKind_[e.key] == kMutex) return true; // a lock
        return e.reads() && trace[traceIndex[t][k]].atomic;
    };
    auto touches = [&](uint32_t t, uint32_t k, uint32_t key) {
        const SymEvent& e = n.apo.threads[t][k];
        return e.writes() && e.key == key; // a later write of the location becomes the detector's last one
    };
    // Program order with create and join: two accesses it orders cannot be adjacent in any linearisation.
    const Order base(n.apo);
    for (const Access& b : accesses) {
        const SymEvent& eb = n.apo.threads[b.t][b.i];
        const Event& tb = trace[traceIndex[b.t][b.i]];
        for (const Access& a : accesses) {
            // Each unordered pair once (b's thread after a's); pairs of events the parent had were tried there,
            // but with the parent's values: a node's values can make a pair adjacent that was not before.
            if (a.t >= b.t || commonLock(a.t, a.i, b.t, b.i)) continue;
            if (base.before(base.id(a.t, a.i), base.id(b.t, b.i)) || base.before(base.id(b.t, b.i), base.id(a.t, a.i)))
                continue;
            const SymEvent& ea = n.apo.threads[a.t][a.i];
            const Event& ta = trace[traceIndex[a.t][a.i]];
            if (!conflict(ea, eb) || (ta.atomic && tb.atomic)) continue;
            ErrorKey key = ErrorKey::race(ta.loc, tb.loc);
            if (racesFound_.count(key) || errors_.has(key)) continue;
            for (int order = 0; order < 2; ++order) {
                Access first = order ? b : a, second = order ? a : b;
                const SymEvent& e1 = n.apo.threads[first.t][first.i];
                const SymEvent& e2 = n.apo.threads[second.t][second.i];
                std::optional<Linearisation> found;
                uint32_t firstAt = 0;
                SearchLimits limits;
                limits.maxStates = 200'000;
                search(
                    n.apo, nullptr,
                    [&](const SearchState& s) {
                        // Between first and second: the rest of first's atomic section (it runs before anything
                        // else), then events of second's thread that acquire nothing first's thread released
                        // after first (RaceDetector: a lock from an unlock, an atomic read from an atomic write, a
                        // join) — then nothing orders first before second, as for the race detector. Neither
                        // side may write the location again (the detector compares with the last write).
                        if (s.pos[first.t] != first.i || s.pos[second.t] > second.i) return false;
                        if (!canStep(n.apo, nullptr, s.pos, s.mem, first.t)) return false;
                        auto pos = s.pos;
                        auto mem = s.mem;
                        Linearisation path = s.path;
                        firstAt = uint32_t(path.size());
                        std::vector<uint32_t> released; // locations first's thread wrote from first on
                        auto step = [&](uint32_t t) {
                            const SymEvent& e = n.apo.threads[t][pos[t]++];
                            path.push_back(t);
                            e.applyTo(mem);
                            if (t == first.t && e.writes()) released.push_back(e.key);
                            if (t == first.t && e.acc2 == Acc2::Write) released.push_back(e.key2);
                        };
                        step(first.t);
                        while (exclusiveThread(n.apo, pos) == first.t) {
                            if (!canStep(n.apo, nullptr, pos, mem, first.t) || touches(first.t, pos[first.t], e1.key))
                                return false;
                            step(first.t);
                        }
                        for (; pos[second.t] < second.i; step(second.t)) {
                            uint32_t k = pos[second.t];
                            const SymEvent& e = n.apo.threads[second.t][k];
                            if (!canStep(n.apo, nullptr, pos, mem, second.t) || touches(second.t, k, e1.key)) return false;
                            if (e.op == Op::Join && e.other == first.t) return false;
                            if (acquires(second.t, k) &&
                                std::find(released.begin(), released.end(), e.key) != released.end())
                                return false;
                        }
                        if (!canStep(n.apo, nullptr, pos, mem, second.t)) return false;
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
                searchStates_ += limits.states;
                if (!found) continue;
                if (!replay(toSchedule(n, *found))) {
                    setLimit("internal: a race witness did not replay in the executor");
                    return;
                }
                racesFound_.insert(key);
                const uint32_t last = uint32_t(ex_.trace().size());
                FoundError f = raceError(ex_, firstAt, last - 1);
                if (errors_.add(f.key, std::move(f.report), ex_, schedule_, f.cut)) stop_ = true;
                break;
            }
            if (stop_) return;
        }
    }
}

void VhbExplorer::finishStats() {
    report::Stats& st = result_.stats;
    st.finalStates = finals_.size();
    st.extra["classes"] = double(classes_);
    st.extra["non_maximal"] = double(nonMaximal_);
    st.extra["closure_calls"] = double(closureCalls_);
    st.extra["closure_ms"] = closureMs_;
    st.extra["closure_orderings"] = double(orderings_);
    st.extra["realize_ms"] = realizeMs_;
    st.extra["realize_states"] = double(searchStates_);
    st.extra["infeasible_extensions"] = double(infeasible_);
    st.extra["revisits"] = double(revisits_);
    st.extra["monitor_ms"] = monitorMs_;
    st.extra["monitor_states"] = double(monitorStates_);
    if (opts_.vhbPaper) { // the paper mode's Closure is PaperApo's (the values mode's counters stay 0 there)
        const paper::Counters& c = paperCounters_;
        st.extra["paper"] = 1;
        st.extra["closure_calls"] = double(c.closureCalls);
        st.extra["closure_ms"] = c.closureMs;
        st.extra["closure_orderings"] = double(c.closure.inserted);
        st.extra["realize_ms"] = c.realizeMs;
        st.extra["infeasible_extensions"] = double(c.infeasible);
        st.extra["chb_pruned"] = double(c.chbPruned);
        st.extra["extend_results"] = double(extendResults_);
        st.extra["siblings_skipped"] = double(siblingsSkipped_);
    }
}

report::CheckResult VhbExplorer::run() {
    result_.algorithm = "vhb";
    if (opts_.vhbPaper) work_.push_back({{}, std::make_shared<paper::Node>(paper_.initial())});
    else work_.push_back({});
    while (!work_.empty() && !stop_) {
        Work w = std::move(work_.back());
        work_.pop_back();
        visit(w);
        if (limit_) break;
        finishStats();
        if (clock_.afterExecution(result_, obs_)) stop_ = true;
    }
    if (stop_ && (errors_.limitReached() || opts_.stopOnFirstError)) result_.stoppedEarly = true;
    report::Stats& st = result_.stats;
    if (limit_) {
        result_.explorerLimit =
            std::string(opts_.vhbPaper ? "vhb --vhb-equivalence=paper" : "vhb") + " does not handle " + *limit_;
        result_.bounds.push_back({*result_.explorerLimit});
    }
    runs_.addBoundsTo(result_);
    finishStats();
    st.elapsedMs = clock_.elapsedMs();
    st.peakRssKb = currentPeakRssKb();
    result_.errors = errors_.take();
    result_.verdict = report::computeVerdict(result_);
    return std::move(result_);
}

} // namespace

report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs) {
    return VhbExplorer(p, opts, obs).run();
}

} // namespace skein::explore::vhb
