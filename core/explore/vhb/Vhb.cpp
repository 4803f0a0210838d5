// The vhb explorer (VC-DPOR, Alg. 5–7) over the executor. A node of the exploration is an annotated partial
// order: the events each thread has executed and the value each of its reads observes. Its witness schedule
// (Realize, Lemma 4.1) is replayed in the executor, extended by every write-like event that is enabled
// (WExtend, Alg. 5 line 2), and each thread's next read-like event is tried with every value it may observe
// (ExtendRoot/ExtendLeaf, Alg. 6–7): each feasible extension (Closure, Alg. 1, then Realize) is a child.
#include "core/explore/vhb/Vhb.h"

#include "core/explore/vhb/VhbExplorer.h"

namespace skein::explore::vhb {
namespace detail {

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

std::optional<Linearisation> VhbExplorer::closeAndRealize(const Apo& a, const Order* parent, ThreadId t,
                                                          SearchLimits& limits, bool& bottom) {
    auto t0 = Clock::now();
    ++closureCalls_;
    auto q = parent ? closureAfter(a, *parent, t) : closure(a);
    closureMs_ += msSince(t0);
    bottom = !q;
    if (!q) return std::nullopt;
    orderings_ += q->inserted;
    t0 = Clock::now();
    ++realizeCalls_;
    q->computeRequired();
    auto lin = realize(a, *q, &limits);
    searchStates_ += limits.states;
    realizeMs_ += msSince(t0);
    return lin;
}

std::optional<std::vector<report::Decision>> VhbExplorer::realizeChild(const Node& child, const Order* parent,
                                                                       ThreadId t) {
    SearchLimits limits;
    bool bottom = false;
    auto lin = closeAndRealize(child.apo, parent, t, limits, bottom);
    if (bottom) return std::nullopt;
    if (!lin) {
        ++realizeInfeasible_; // Closure did not see it: the search did, exhaustively
        if (kTrace) std::fprintf(stderr, "  realize: infeasible after %llu states\n", (unsigned long long)limits.states);
        return std::nullopt;
    }
    return toSchedule(child, *lin);
}

void VhbExplorer::visit(Work& w) {
    const std::vector<report::Decision>& schedule = w.schedule;
    report::Stats& st = result_.stats;
    if (w.paper && w.paper->maximalSibling && *w.paper->maximalSibling) { // App. D optimisation 2
        ++siblingsSkipped_;
        return;
    }
    if (!(w.from ? resume(w) : replay(schedule))) {
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
    for (ThreadId t = 0; t < ex_->numThreads(); ++t)
        if (ex_->thread(t).state == exec::ThreadState::Stopped) nodeHash = mix(nodeHash, 0x570990000ull + t);
    if (!opts_.vhbPaper && !visited_.insert(nodeHash)) {
        ++revisits_;
        return;
    }
    if (kTrace) {
        std::fprintf(stderr, "node:");
        for (const Event& e : ex_->trace())
            std::fprintf(stderr, " t%u:%s@%llx=%llu", e.tid, std::string(model::eventKindName(e.kind)).c_str(),
                         (unsigned long long)(e.addr & 0xffff), (unsigned long long)e.value);
        std::fprintf(stderr, "\n");
    }
    st.events += ex_->trace().size();
    runs_.noteRun(*ex_, result_);
    if (collect()) stop_ = true;
    const ExecStatus status = ex_->status();
    if (!opts_.vhbPaper && (status == ExecStatus::Running || status == ExecStatus::Cut)) {
        if (auto cut = cutThreads(node); !cut.empty()) {
            leaf(w, node, cut);
            return;
        }
    }
    const Extended x = opts_.vhbPaper ? extendPaper(w, node) : extendValues(w, node);
    // Out of time inside the extension (a multi-word event's candidates look at the clock): its children are cut
    // short, so it is not maximal; run() records the bound and stops.
    if (limit_ || outOfTime_) return;
    if (x.children) ++nonMaximal_;
    if (x.classes) maximal(node, status, x.classes);
}

namespace {
// A read-like event that changes nothing another thread can see: removing it from a linearisation keeps every
// other read's value (a read, of one word or several, a failed trylock or compare-exchange; not inside an atomic
// section). Not a thread-local event: a fence or a one-outcome nondet value is run by WExtend, so no node has its
// thread waiting before it (DESIGN.md "Cut threads end a node").
bool onlyObserves(const SymEvent& e) {
    if (e.section || e.role != Role::None || e.acc2 == Acc2::Write) return false;
    if (e.op == Op::Multi)
        return e.accs && std::none_of(e.accs->begin(), e.accs->end(), [](const WordAcc& a) { return a.write; });
    return e.op == Op::Read || (e.op == Op::Rmw && !e.rmwWrites);
}
} // namespace

// DESIGN.md "Cut threads end a node": a thread cut right after an event that only observed. Whatever the other
// threads do from such a node they also do with that thread paused before the event, in nodes the exploration
// reaches anyway.
std::vector<ThreadId> VhbExplorer::cutThreads(const Node& node) const {
    std::vector<ThreadId> out;
    for (ThreadId t = 0; t < ex_->numThreads() && t < node.apo.threads.size(); ++t)
        if (ex_->thread(t).state == exec::ThreadState::Stopped && ex_->wasCut(t) && !node.apo.threads[t].empty() &&
            onlyObserves(node.apo.threads[t].back()))
            out.push_back(t);
    return out;
}

bool VhbExplorer::racePartner(const Apo& a, ThreadId t, bool atomic) const {
    bool partner = false;
    forEachAccess(a.threads[t].back(), [&](uint32_t k, bool write, uint64_t, uint64_t) {
        if (write || partner || (atomic && (k >= plainKey_.size() || !plainKey_[k]))) return;
        for (ThreadId u = 0; u < a.threads.size() && !partner; ++u)
            if (u != t)
                for (const SymEvent& e : a.threads[u]) {
                    forEachAccess(e, [&](uint32_t k2, bool w2, uint64_t, uint64_t) { partner |= w2 && k2 == k; });
                    partner |= e.role == Role::Free && e.key == k;
                    if (partner) break;
                }
    });
    return partner;
}

// A node ended by a cut: one blocked run, and the race search over its events — as for a maximal node: a racing
// prefix whose extensions all cut a thread is a prefix of such a node's linearisations (DESIGN.md).
void VhbExplorer::leaf(const Work& w, const Node& node, const std::vector<ThreadId>& cut) {
    ++result_.stats.blocked;
    ++cutLeaves_;
    const ErrorCollector::CountSeenOnExit countErrors{errors_, 1}; // the witness's errors and the races found below
    for (ThreadId t : cut) *cutAfter_.tryEmplace(nodeThreadHash(node, t), 1).first = 1;
    // A bound another thread hit stays: the runs through this node are bounded (dfs would count them so).
    if (ex_->errors().empty() && !ex_->boundReason().empty()) runs_.addBound(ex_->boundReason());
    const bool spins = !stop_ && maySpinForever() && !finalMemoryFixed(node.apo);
    const bool races = opts_.detectRaces && !stop_ && mayRace(node);
    if (!spins && !races) return;
    auto t0 = Clock::now();
    ++closureCalls_;
    std::optional<Order> q;
    if (incremental_ && w.closed) q = closureExtending(node.apo, w.closed->q, w.closed->len, w.closed->init);
    if (!q) q = closure(node.apo);
    closureMs_ += msSince(t0);
    if (!q) return; // (cannot happen: the node has a witness)
    q->computeRequired();
    // Whether a thread cut at a spin loop would spin for good depends on which write to what it reads came last,
    // which the class does not fix (DESIGN.md "Cut threads end a node"): the deadlock check on each final memory.
    if (spins) spinDeadlocks(node, *q);
    if (races && !stop_) findRaces(node, *q);
}

// Could the run be a deadlock of spinning threads in some final memory of its class? A thread cut at a spin loop,
// and nothing that rules it out in every memory (Executor::onlyWaitersOrSpinners: the class fixes each thread's local
// state). The cheap filter before spinDeadlocks.
bool VhbExplorer::maySpinForever() const {
    uint32_t spinCuts = 0;
    return ex_->onlyWaitersOrSpinners(&spinCuts) && spinCuts > 0;
}

// collectErrors (Explorer.cpp) over the witness, carried on from the parent's state when the node resumed it:
// races_ and raceKeys_ then hold the detector after the parent's trace and the race keys it met there (each is
// counted again, as a full pass would: ErrorCollector::known). The same errors and counts as collectErrors.
bool VhbExplorer::collect() {
    errors_.newExecution();
    bool stop = false;
    const auto& trace = ex_->trace();
    if (opts_.detectRaces) {
        if (racesFrom_ == 0) {
            races_.reset();
            raceKeys_.clear();
        } else {
            for (const RaceMet& m : raceKeys_) errors_.known(m.key);
        }
        for (uint32_t i = uint32_t(racesFrom_); i < trace.size() && !stop; ++i)
            stop = feedRaces(races_, raceKeys_, i, errors_, *ex_, schedule_);
    }
    return stop || addTerminalErrors(errors_, *ex_, schedule_);
}

VhbExplorer::Extended VhbExplorer::extendValues(const Work& w, const Node& node) {
    size_t children = 0;
    // The node's witness, as replayed and write-extended: a child's witness is most often this one with the new
    // events inserted somewhere (insertInto), found without Closure and Realize.
    // It is replayed over the node once (replayBase), for all the candidates.
    std::optional<ReplayedBase> replayed;
    auto witness = [&]() -> const ReplayedBase& {
        if (!replayed) {
            Linearisation lin;
            lin.reserve(ex_->trace().size());
            for (const Event& e : ex_->trace()) lin.push_back(e.tid);
            replayed = replayBase(node.apo, std::move(lin));
        }
        return *replayed;
    };
    std::shared_ptr<Snapshot> snap; // made for the first child that appends to the witness
    // The candidates insertInto does not place go through Closure and Realize; when there are two or more, from
    // the node's closed order (closureAfter: one Closure of the node, then each candidate's new event only;
    // DESIGN.md "Closure from the parent's"), else from scratch (a Closure that ends in ⊥ stops early, one that
    // closes the node does not: one candidate does not pay for it).
    struct Pending {
        Node child;
        ThreadId t;
        size_t events;
        uint64_t hash, threadHash;
    };
    std::vector<Pending> pending;
    const size_t firstChild = work_.size();
    // A realisable child known to end in a cut (cutAfter_: its thread's events, values and choices were seen to
    // end in one) is a leaf without a visit, unless its event could race (the leaf's race search needs it). The
    // node then searches its own races: a racing prefix that every extension cuts is one of its linearisations'
    // (DESIGN.md "Cut threads end a node").
    bool searchOwnRaces = false;
    auto predictedCut = [&](const Node& c, ThreadId t, size_t events, uint64_t threadHash, uint64_t hash) {
        if (events != 1 || ex_->status() != ExecStatus::Running || !onlyObserves(c.apo.threads[t].back()) ||
            !cutAfter_.contains(threadHash) ||
            racePartner(c.apo, t, ex_->thread(t).pending.atomic))
            return false;
        *attempted_.tryEmplace(hash, 2).first = 2;
        ++children;
        ++cutPredicted_;
        ++cutLeaves_;
        ++result_.stats.blocked;
        searchOwnRaces = true;
        return true;
    };
    auto push = [&](std::vector<report::Decision>&& s, bool appends, uint64_t hash) {
        // The witness's decisions are the schedule's prefix when the child appends to it (toSchedule recomputes a
        // signal's choice along the linearisation, the same on the same prefix).
        auto same = [](const report::Decision& x, const report::Decision& y) {
            return x.thread == y.thread && x.choice == y.choice;
        };
        if (appends && (s.size() < schedule_.size() || !std::equal(schedule_.begin(), schedule_.end(), s.begin(), same)))
            appends = false;
        if (appends && !snap) snap = std::make_shared<Snapshot>(); // filled when the node is done (below)
        work_.push_back({std::move(s), nullptr, appends ? snap : nullptr, nullptr});
        *attempted_.tryEmplace(hash, 1).first = 1;
        ++children;
    };
    // Each candidate is the node with its events appended to its thread: one copy of the node (`child`), each
    // candidate appended and taken off again; its hash is the node's per-thread hashes with its thread's continued.
    Node child{node.apo, node.choices, {}, {}}; // (without the hashes: a candidate's are computed below)
    const size_t nt = node.apo.threads.size();
    std::vector<uint64_t> threadH(nt);
    for (ThreadId u = 0; u < nt; ++u) threadH[u] = nodeThreadHash(node, u);
    const ThreadId only = spanThread(); // the first pass: a span's undecided read goes first, alone
    for (ThreadId t = 0; t < ex_->numThreads() && !limit_ && !outOfTime(); ++t) {
        if (only != model::kNoThread && t != only) continue;
        for (const Ext& ext : candidates(node, t)) {
            // Keys (and initial values) the candidates met for the first time.
            child.apo.init.resize(node.apo.init.size());
            child.apo.init.resize(init_.size());
            for (size_t k = node.apo.init.size(); k < init_.size(); ++k) child.apo.init[k] = init_[k].value_or(0);
            const size_t len = node.apo.threads[t].size();
            child.apo.threads[t].resize(len);
            child.apo.threads[t].insert(child.apo.threads[t].end(), ext.evs.begin(), ext.evs.end());
            child.apo.finished[t] = false;
            child.apo.openSection[t] = ext.open;
            child.choices[t].resize(len);
            child.choices[t].insert(child.choices[t].end(), ext.choices.begin(), ext.choices.end());
            const uint64_t tHash = threadHash(child, t, threadH[t], len);
            uint64_t hash = 1469598103934665603ull;
            for (ThreadId u = 0; u < nt; ++u) hash = mix(hash, u == t ? tHash : threadH[u]);
            struct Restore { // the node's thread t again, however this candidate ends
                Node& child;
                const Node& node;
                ThreadId t;
                ~Restore() {
                    child.apo.threads[t].resize(node.apo.threads[t].size());
                    child.apo.finished[t] = node.apo.finished[t];
                    child.apo.openSection[t] = node.apo.openSection[t];
                    child.choices[t] = node.choices[t];
                }
            } restore{child, node, t};
            auto [decided, fresh] = attempted_.tryEmplace(hash, 0);
            if (!fresh) {
                children += *decided != 0; // decided before: explored from there when realisable
                searchOwnRaces |= *decided == 2; // (a cut leaf has one parent: its events but the last; defensive)
                continue;
            }
            if (kTrace)
                std::fprintf(stderr, "  extend t%u by %zu events, first op%d key%u rval%llu wval%llu\n", t,
                             ext.evs.size(), int(ext.evs[0].op), ext.evs[0].key, (unsigned long long)ext.evs[0].rval,
                             (unsigned long long)ext.evs[0].wval);
            if (auto lin = insertInto(child.apo, witness(), t, uint32_t(ext.evs.size()), kInsertTries)) {
                ++witnessInserted_;
                if (predictedCut(child, t, ext.evs.size(), tHash, hash)) continue;
                const Linearisation& base = witness().base;
                const bool appends = std::equal(base.begin(), base.end(), lin->begin());
                // Appended: the witness's decisions (schedule_, which replayed it), then the block's, which the
                // candidates took from the executor at the end of the witness — what toSchedule gives, but for a
                // condition signal, whose choice toSchedule recomputes along the linearisation.
                const bool plain = std::none_of(ext.evs.begin(), ext.evs.end(), [](const SymEvent& e) { return isCond(e.role); });
                if (appends && plain && schedule_.size() == base.size()) {
                    std::vector<report::Decision> s;
                    s.reserve(schedule_.size() + ext.choices.size());
                    s.assign(schedule_.begin(), schedule_.end());
                    for (size_t i = len; i < child.apo.threads[t].size(); ++i)
                        s.push_back({t, i < child.choices[t].size() ? child.choices[t][i] : 0u});
                    push(std::move(s), true, hash);
                } else {
                    push(toSchedule(child, *lin), appends, hash);
                }
            } else if (ext.evs.size() == 1 && (consumedTwice(child.apo, t) || bottomInSection(child.apo, t) ||
                                                bottomWithoutGoodWrite(child.apo, t))) {
                // ⊥ without a Closure
                ++quickBottoms_;
                ++infeasible_;
            } else {
                pending.push_back({child, t, ext.evs.size(), hash, tHash});
            }
        }
    }
    // The node's closed order: from its parent's when that extends to it (closureExtending: no new write has a
    // value an old read of another thread observes), else from scratch when two or more candidates need it.
    // Its children may extend it in turn.
    std::shared_ptr<Closed> closed;
    auto close = [&](bool fromParent) {
        auto t0 = Clock::now();
        ++closureCalls_;
        bool unsupported = false;
        auto q = fromParent ? closureExtending(node.apo, w.closed->q, w.closed->len, w.closed->init, &unsupported)
                            : closure(node.apo);
        closureMs_ += msSince(t0);
        if (!q) return; // unsupported (or ⊥, which cannot happen: the node is realisable)
        closed = std::make_shared<Closed>(Closed{std::move(*q), {}, node.apo.init});
        for (const auto& th : node.apo.threads) closed->len.push_back(uint32_t(th.size()));
    };
    // (A maximal node's order serves its final-state monitor and race search: maximal().)
    if (incremental_ && w.closed && (!pending.empty() || children == 0)) close(true);
    if (incremental_ && !closed && pending.size() >= 2) close(false);
    for (Pending& p : pending) {
        if (limit_ || outOfTime()) break;
        if (p.events == 1 && closed && bottomAfter(p.child.apo, closed->q, p.t)) { // Closure's first ⊥, cheaply
            ++quickBottoms_;
            ++infeasible_;
            continue;
        }
        if (auto s = realizeChild(p.child, p.events == 1 && closed ? &closed->q : nullptr, p.t)) {
            if (!predictedCut(p.child, p.t, p.events, p.threadHash, p.hash)) push(std::move(*s), false, p.hash);
        } else {
            ++infeasible_;
        }
    }
    if (searchOwnRaces) {
        // A bound another thread hit stays in the leaves (as leaf() records it).
        if (ex_->errors().empty() && !ex_->boundReason().empty()) runs_.addBound(ex_->boundReason());
        if (opts_.detectRaces && !stop_ && !limit_ && mayRace(node)) {
            auto t0 = Clock::now();
            std::optional<Order> q;
            if (closed) q = closed->q;
            else {
                ++closureCalls_;
                q = closure(node.apo);
            }
            closureMs_ += msSince(t0);
            if (q) {
                q->computeRequired();
                const size_t found = racesFound_.size();
                findRaces(node, *q);
                if (racesFound_.size() != found) { // its counterexample replayed: the executor is not the node's
                    for (size_t i = firstChild; i < work_.size(); ++i) work_[i].from = nullptr;
                    snap.reset();
                }
            }
        }
    }
    for (size_t i = firstChild; i < work_.size(); ++i) work_[i].closed = closed;
    nodeClosed_ = closed;
    if (snap) snapshot(*snap, node);
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
        // The paper's events access one location each (Sec. 2); PaperApo's Closure and Realize know no other.
        // symbolic() refuses them already; this keeps any that got through from being mis-handled.
        for (const SymEvent& e : node.apo.threads[t])
            if (e.op == Op::Multi || e.accs)
                setLimit("multi-word, sub-word or library (memcpy, strcmp, ...) accesses: the paper's events "
                         "access one location");
        if (ex_->inAtomicSection(t)) setLimit("SV-COMP atomic sections");
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
            if (ext.evs[0].op == Op::Multi || ext.evs[0].accs) {
                setLimit("multi-word, sub-word or library (memcpy, strcmp, ...) accesses: the paper's events "
                         "access one location");
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
        Node shown{c.node->apo.events, c.node->choices, {}, {}};
        work_.push_back({toSchedule(shown, c.witness), std::move(c.node), nullptr, nullptr});
    }
    return {x.children.size(), x.classes};
}

// A maximal node: one class, or (paper) as many as the node's extensions to E(t) that are maximal — they differ in
// the leaf threads' happens-before only, so they share the events, values, errors and final memories.
void VhbExplorer::maximal(const Node& node, ExecStatus status, uint64_t classes) {
    report::Stats& st = result_.stats;
    if (kTrace) std::fprintf(stderr, "  maximal, status %d\n", int(status));
    // A join is no event of a class: two joins of one thread are never ordered, yet the second fails when the first
    // already returned (Executor::twoJoiners; dfs explores both orders, check() falls back to it).
    if (ex_->twoJoiners()) setLimit("two threads that join the same thread");
    if (ex_->syncUse()) setLimit(kSyncObjectsLimit); // (a thread that only waited on one made no event)
    if (runs_.count(*ex_, st)) stop_ = true;
    // Classes: complete executions, errors and deadlocks (what dfs counts as Mazurkiewicz traces) — not a section
    // that blocks (the execution is infeasible, as a failed assume: the executor keeps the section's thread alone).
    // The errors the node's witness showed and those the race search below finds occur in each of its classes;
    // a blocked run counts once, as dfs counts its blocked executions.
    const bool isClass = status == ExecStatus::Finished || status == ExecStatus::Error ||
                         (status == ExecStatus::Running && ex_->exclusiveThread() == model::kNoThread);
    if (isClass) classes_ += classes;
    const ErrorCollector::CountSeenOnExit countErrors{errors_, isClass ? classes : 1};
    // The paper mode reaches one value class from several nodes (different side functions or causal orders):
    // the monitor and the race search, which look at all linearisations of the values, run once per value class.
    if (opts_.vhbPaper && !maximalSeen_.insert(hashOf(node)).second) return;
    // The node's closed order, once for the monitor and the race search (from extendValues when it has it), and
    // only when one of them needs it: a final memory every linearisation shares, and no pair of accesses that
    // could race, need no search.
    std::shared_ptr<const Closed> fromExtend = std::move(nodeClosed_);
    nodeClosed_.reset();
    std::optional<Order> q;
    auto closed = [&]() -> const Order* {
        if (!q) {
            if (fromExtend && !opts_.vhbPaper) q = fromExtend->q;
            else q = closure(node.apo);
            if (q) q->computeRequired(); // (nothing cannot happen: the node has a witness)
        }
        return q ? &*q : nullptr;
    };
    if (status == ExecStatus::Finished) {
        if (opts_.vhbFinalStates && !finalMemoryFixed(node.apo)) {
            if (const Order* o = closed()) monitorFinalStates(node, *o);
        } else {
            finals_.insert(ex_->finalStateHash());
        }
    } else if (status == ExecStatus::Cut && !stop_ && maySpinForever() && !finalMemoryFixed(node.apo)) {
        if (const Order* o = closed()) spinDeadlocks(node, *o); // as in leaf()
    }
    // Races are searched in maximal nodes only: a racing prefix of any execution τ is a prefix of a
    // linearisation of τ's class, whose maximal node has τ's events and values (DESIGN.md "Data races").
    // Last: it replays other linearisations in the executor.
    if (opts_.detectRaces && !stop_ && mayRace(node))
        if (const Order* o = closed()) findRaces(node, *o);
}

// findRaces' cheap filters alone, without its setup: is there a pair of accesses of one word by two threads, one
// a write, not both atomic, under no common mutex? (A free, or an event that acquires a mutex in any other way
// than a lock, makes it answer yes: findRaces decides.)
bool VhbExplorer::mayRace(const Node& n) const {
    struct Use {
        uint32_t t;
        bool write;
        uint64_t held;
    };
    std::vector<uint32_t> mutexBit; // mutex key → bit
    std::unordered_map<uint32_t, std::vector<Use>> uses;
    for (uint32_t t = 0; t < n.apo.threads.size(); ++t) {
        uint64_t held = 0;
        for (const SymEvent& e : n.apo.threads[t]) {
            if (e.role == Role::Free || e.role == Role::UseAfterFree) return true;
            bool lock = false, release = false;
            uint32_t mk = kNoKey;
            forEachAccess(e, [&](uint32_t k, bool write, uint64_t val, uint64_t) {
                if (k >= keyKind_.size() || keyKind_[k] != kMutex || !write) return;
                mk = k;
                (val ? lock : release) = true;
            });
            if (mk != kNoKey) {
                auto it = std::find(mutexBit.begin(), mutexBit.end(), mk);
                size_t b = size_t(it - mutexBit.begin());
                if (it == mutexBit.end()) mutexBit.push_back(mk);
                if (b >= 64) return true;
                if (lock) held |= uint64_t(1) << b;
                if (release) held &= ~(uint64_t(1) << b);
                continue;
            }
            forEachAccess(e, [&](uint32_t k, bool write, uint64_t, uint64_t) {
                if (k < keyKind_.size() && keyKind_[k] == kMemory && k < plainKey_.size() && plainKey_[k])
                    uses[k].push_back({t, write, held});
            });
        }
    }
    for (const auto& [k, us] : uses)
        for (size_t i = 0; i < us.size(); ++i)
            for (size_t j = i + 1; j < us.size(); ++j)
                if (us[i].t != us[j].t && (us[i].write || us[j].write) && !(us[i].held & us[j].held)) return true;
    return false;
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
    st.extra["realize_infeasible"] = double(realizeInfeasible_);
    st.extra["race_ms"] = raceMs_;
    st.extra["race_states"] = double(raceStates_);
    st.extra["race_taint_searches"] = double(taintSearches_);
    st.extra["race_taint_gave_up"] = double(taintSearchesGaveUp_);
    st.extra["witness_inserted"] = double(witnessInserted_);
    st.extra["resumed"] = double(resumed_);
    st.extra["quick_bottoms"] = double(quickBottoms_);
    st.extra["prefixes_refuted"] = double(prefixesRefuted_);
    st.extra["word_searches"] = double(wordSearches_);
    st.extra["cut_leaves"] = double(cutLeaves_);
    st.extra["cut_predicted"] = double(cutPredicted_);

    if (opts_.vhbPaper) { // the paper mode's Closure is PaperApo's (the values mode's counters stay 0 there)
        const paper::Counters& c = paperCounters_;
        st.extra["paper"] = 1;
        st.extra["closure_calls"] = double(c.closureCalls);
        st.extra["closure_ms"] = c.closureMs;
        st.extra["closure_orderings"] = double(c.closure.inserted);
        st.extra["realize_ms"] = c.realizeMs;
        st.extra["realize_searches"] = double(c.realize.searches); // App. D item 3: a loose write spoiled Lemma 4.1
        st.extra["realize_states"] = double(c.realize.searchStates);
        st.extra["infeasible_extensions"] = double(c.infeasible);
        st.extra["chb_pruned"] = double(c.chbPruned);
        st.extra["extend_results"] = double(extendResults_);
        st.extra["siblings_skipped"] = double(siblingsSkipped_);
    }
}

report::CheckResult VhbExplorer::run() {
    result_.algorithm = "vhb";
    if (opts_.vhbPaper) work_.push_back({{}, std::make_shared<paper::Node>(paper_.initial()), nullptr, nullptr});
    else work_.push_back({});
    while (!work_.empty() && !stop_) {
        Work w = std::move(work_.back());
        work_.pop_back();
        visit(w);
        if (limit_) break;
        if (obs_ && (++visits_ & 255) == 0) finishStats(); // for the progress reports (run() ends with it)
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

} // namespace detail

namespace {
// Streams both passes' errors to the caller's observer, each distinct error once (the second pass finds the first
// pass's errors again).
class OncePerError : public Observer {
public:
    explicit OncePerError(Observer* to) : to_(to) {}
    void onError(const report::ErrorReport& e) override {
        auto at = [](const report::SourceLocation& l) { return l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.column); };
        std::string id = std::string(report::errorKindName(e.kind)) + "@" + at(e.location) +
                         (e.otherLocation ? "/" + at(*e.otherLocation) : std::string());
        if (seen_.insert(std::move(id)).second && to_) to_->onError(e);
    }
    void onProgress(const report::Stats& s) override {
        if (to_) to_->onProgress(s);
    }

private:
    Observer* to_;
    std::set<std::string> seen_;
};

bool hasRace(const report::CheckResult& r) {
    return std::any_of(r.errors.begin(), r.errors.end(), [](const report::ErrorReport& e) { return e.kind == report::ErrorKind::DataRace; });
}
} // namespace

report::CheckResult exploreSpans(const program::Program& p, const ExploreOptions& opts, Observer* obs) {
    ExploreOptions o = opts;
    o.detectRaces = true; // the pass is sound only for programs without a data race: it must see any
    return detail::VhbExplorer(p, o, obs, true).run();
}

// DESIGN.md "Critical sections run alone": a first pass with critical sections run alone, which is sound when the
// program has no data race and finds one when it has; the full exploration when it found one.
report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs) {
    static const bool noSpans = std::getenv("SKEIN_VHB_SPANS") && std::string(std::getenv("SKEIN_VHB_SPANS")) == "0";
    if (opts.vhbPaper || noSpans) return detail::VhbExplorer(p, opts, obs).run();
    OncePerError once(obs);
    report::CheckResult first = exploreSpans(p, opts, &once);
    // Out of time or cancelled in the first pass: a second pass would stop at once and report none of the first's
    // errors (real ones: each has its witness execution), so the first's bounded result is the answer.
    const bool spent = (opts.timeLimitSeconds > 0 && first.stats.elapsedMs >= opts.timeLimitSeconds * 1000) ||
                       (opts.cancelled && opts.cancelled());
    if (!hasRace(first) || first.explorerLimit || (first.stoppedEarly && spent)) {
        first.stats.extra["span_pass"] = 1;
        return first;
    }
    ExploreOptions o = opts;
    if (o.timeLimitSeconds > 0) o.timeLimitSeconds = std::max(0.001, o.timeLimitSeconds - first.stats.elapsedMs / 1000);
    report::CheckResult second = detail::VhbExplorer(p, o, &once).run();
    second.stats.elapsedMs += first.stats.elapsedMs;
    second.stats.extra["span_pass"] = 2;
    second.stats.extra["span_pass_ms"] = first.stats.elapsedMs;
    return second;
}

} // namespace skein::explore::vhb
