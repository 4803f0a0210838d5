// The vhb explorer, part 2 of 4 (VhbExplorer.h): from the executor's events to the symbolic events of
// annotated partial orders (locations, values, condition variables, heap liveness), replay and WExtend
// (Alg. 5 lines 1-2), a node's events, and each thread's candidate extensions (ExtendRoot/ExtendLeaf's events
// with every value they may observe, Alg. 6-7; atomic sections as one extension).
#include "core/explore/vhb/VhbExplorer.h"


namespace skein::explore::vhb::detail {

uint32_t VhbExplorer::key(uint8_t kind, uint64_t addr, uint32_t size) {
    // Memory locations are aligned words (model::kWordSize, as for the dependence of dfs and qpor): an access of
    // another size or alignment is an access of each word it touches (DESIGN.md "Multi-location accesses").
    if (kind == kMemory) addr &= ~uint64_t(model::kWordSize - 1);
    auto [it, fresh] = keys_.try_emplace({kind, addr}, uint32_t(keySize_.size()));
    if (fresh) {
        keySize_.push_back(kind == kMemory ? uint32_t(model::kWordSize) : size);
        keyKind_.push_back(kind);
        // A mutex starts unlocked, a condition variable without waiters, a heap object alive.
        init_.push_back(kind != kMemory ? std::optional<uint64_t>(0) : std::nullopt);
    }
    return it->second;
}

// The initial value of a location is what it holds before its first write of an execution (the paper's
// initial event, Sec. 2): learnt from the executor on the way.
void VhbExplorer::learnInit(ThreadId t, bool stepping) {
    const Event& p = ex_->thread(t).pending;
    if (isMulti(p)) { // every word it touches
        for (const WordUse& w : readWords(p))
            if (uint32_t k = key(kMemory, w.word, 0); !init_[k] && !writtenThisRun_.count(k)) init_[k] = peekWord(*ex_, w.word);
        for (uint64_t w : writtenWords(p)) {
            uint32_t k = key(kMemory, w, 0);
            if (!init_[k] && !writtenThisRun_.count(k)) init_[k] = peekWord(*ex_, w);
            if (stepping && !init_[k]) writtenThisRun_.insert(k); // (it only matters while init_[k] is unknown)
        }
        return;
    }
    if (!p.isMemory() || p.kind == EventKind::Free) return;
    uint32_t k = key(kMemory, p.addr, p.size);
    if (!init_[k] && !writtenThisRun_.count(k))
        if (auto v = ex_->peek(p.addr, p.size)) init_[k] = mask(*v, p.size);
    if (stepping && p.writes() && !init_[k]) writtenThisRun_.insert(k);
}

void VhbExplorer::stepExec(ThreadId t, uint32_t choice) {
    learnInit(t);
    if (sectionOf_.size() <= t) sectionOf_.resize(t + 1);
    sectionOf_[t].push_back(ex_->atomicSectionId(t));
    // The shadow of a multi-word event: the words it reads before it runs, those it writes after.
    const Event p = ex_->thread(t).pending;
    const size_t before = ex_->trace().size();
    Shadow sh;
    const bool multi = isMulti(p);
    if (multi) {
        sh.words = readWords(p);
        for (const WordUse& w : sh.words) sh.read.push_back(peekWord(*ex_, w.word));
    }
    ex_->step(t, choice);
    shadow_.resize(ex_->trace().size());
    if (multi && ex_->trace().size() == before + 1) {
        for (uint64_t w : writtenWords(ex_->trace().back())) sh.written.push_back(peekWord(*ex_, w));
        shadow_[before] = std::move(sh);
    }
}

bool VhbExplorer::replay(const std::vector<report::Decision>& schedule) {
    ex_->reset();
    racesFrom_ = 0;
    buildBase_.reset();
    writtenThisRun_.clear();
    sectionOf_.clear();
    shadow_.clear();
    for (const report::Decision& d : schedule) {
        if (d.thread >= ex_->numThreads() || !ex_->enabled(d.thread)) return false;
        stepExec(d.thread, d.choice);
    }
    schedule_ = schedule;
    return true;
}

// The executor is deterministic (ARCHITECTURE.md): stepping a copy of the parent's state through the child's
// last decisions gives the state a replay of the whole schedule would.
bool VhbExplorer::resume(Work& w) {
    Snapshot& s = *w.from;
    // The executor ex_ held (whose thread ids are current) becomes the spare: the next snapshot() keeps its
    // node's executor and carries on with the spare.
    if (w.from.use_count() == 1) { // the last child to resume it: take it over
        auto ex = std::move(s.ex);
        ex->adoptThreadIds(*ex_); // ids learnt since the copy was made (Executor::adoptThreadIds)
        spare_ = std::move(ex_);
        ex_ = std::move(ex);
        writtenThisRun_ = std::move(s.writtenThisRun);
        sectionOf_ = std::move(s.sectionOf);
        shadow_ = std::move(s.shadow);
        races_ = std::move(s.races);
        raceKeys_ = std::move(s.raceKeys);
        buildBase_ = std::move(s.built);
    } else {
        auto ex = s.ex->clone();
        ex->adoptThreadIds(*ex_);
        spare_ = std::move(ex_);
        ex_ = std::move(ex);
        writtenThisRun_ = s.writtenThisRun;
        sectionOf_ = s.sectionOf;
        shadow_ = s.shadow;
        races_ = s.races;
        raceKeys_ = s.raceKeys;
        buildBase_ = s.built;
    }
    const size_t from = s.steps;
    racesFrom_ = s.traceLength;
    w.from.reset();
    for (size_t i = from; i < w.schedule.size(); ++i) {
        const report::Decision& d = w.schedule[i];
        if (d.thread >= ex_->numThreads() || !ex_->enabled(d.thread)) return false;
        stepExec(d.thread, d.choice);
    }
    schedule_ = w.schedule;
    ++resumed_;
    return true;
}

// The current node's state goes into its snapshot (moved, not copied: after extendValues a non-maximal node has
// no use for it; the next visit resumes a snapshot or replays from the initial state). The executor carries on
// as the spare when there is one (given the current thread ids), else as a copy.
void VhbExplorer::snapshot(Snapshot& s, const Node& node) {
    s.steps = schedule_.size();
    s.traceLength = ex_->trace().size();
    if (spare_) {
        spare_->adoptThreadIds(*ex_);
        s.ex = std::move(ex_);
        ex_ = std::move(spare_);
    } else {
        s.ex = ex_->clone();
    }
    s.writtenThisRun = std::move(writtenThisRun_);
    s.sectionOf = std::move(sectionOf_);
    s.shadow = std::move(shadow_);
    s.races = std::move(races_);
    s.raceKeys = std::move(raceKeys_);
    s.built = std::move(built_);
    s.built.node = node;
}

// WExtend (Alg. 5 line 2): run every thread through its write-like events (writes, unlocks, creates, ...) up to
// its next read-like one. They observe nothing, so appending them keeps the node realisable.
void VhbExplorer::writeExtend() {
    for (bool progress = true; progress && ex_->status() == ExecStatus::Running && !limit_;) {
        progress = false;
        for (ThreadId t = 0; t < ex_->numThreads(); ++t) {
            // An atomic section is one extension (sectionCandidates), never written out piecemeal.
            if (!ex_->enabled(t) || ex_->inAtomicSection(t)) continue;
            const exec::ThreadView& v = ex_->thread(t);
            switch (v.pending.kind) {
            case EventKind::Read:
                if (decidedRead(t)) break; // the first pass: a read inside a span whose value is decided
                continue;
            case EventKind::Write:
                // An access of a heap object observes that it is alive (DESIGN.md "free"): read-like.
                if (!opts_.vhbPaper && ex_->isHeapAddress(v.pending.addr)) continue;
                // A sub-word write reads the other bytes of its words: read-like.
                if (isMulti(v.pending) && !readWords(v.pending).empty()) continue;
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
        s.key = key(kMemory, e.addr, e.size);
        // It also observes that its object is alive (DESIGN.md "free"); the paper mode refuses free() instead.
        if (!opts_.vhbPaper && ex_->isHeapAddress(e.addr)) {
            s.acc2 = Acc2::Read;
            s.key2 = key(kAlive, program::pointerObject(e.addr), 0);
            s.val2 = 0;
        }
        return true;
    };
    auto cond = [&](Role role) {
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
    if (isMulti(e) && e.kind != EventKind::Free) { // its word accesses: multiEvent, from the shadow
        if (opts_.vhbPaper) {
            setLimit("multi-word, sub-word or library (memcpy, strcmp, ...) accesses: the paper's events access "
                     "one location (the values mode handles them)");
            return std::nullopt;
        }
        memory();
        s.op = Op::Multi;
        return s;
    }
    switch (e.kind) {
    case EventKind::Read:
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
        // pthread_once's lock: what follows it depends on the once flag, bytes no event of a class holds.
        if (ex_->syncUse() & exec::Executor::kUsesOnce) {
            setLimit(kSyncObjectsLimit);
            return std::nullopt;
        }
        s = {Op::Rmw, key(kMutex, e.addr, 0), 0, 1};
        return s;
    case EventKind::TryLock:
        if (e.value == 1) s = {Op::Rmw, key(kMutex, e.addr, 0), 0, 1};
        else s = {Op::Read, key(kMutex, e.addr, 0), 1, 0};
        return s;
    case EventKind::Unlock:
        s = {Op::Write, key(kMutex, e.addr, 0), 0, 0};
        return s;
    case EventKind::SyncInit:
        // A mutex's (once other threads exist) is not an unlock's write: where the mutex is held it is a misuse
        // that stops its thread, which a class's values do not tell (its realisation would not replay).
        setLimit(e.isMutexInit()  ? "a mutex initialised once other threads exist"
                 : e.isCondLifecycle() ? "a condition variable initialised once other threads exist"
                                       : kSyncObjectsLimit);
        return std::nullopt;
    case EventKind::SyncDestroy: // as a late init: a misuse where the mutex is held, and every use after it
        setLimit(e.isCondDestroy()    ? "a condition variable destroyed once other threads exist"
                 : e.isMutexDestroy() ? "a mutex destroyed once other threads exist"
                                      : kSyncObjectsLimit);
        return std::nullopt;
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
        if (opts_.vhbPaper) {
            setLimit("free() (the paper's model has none; the values mode handles it)");
            return std::nullopt;
        }
        // It observes that the object is alive (a double free when it is not) and ends it.
        s = {Op::Rmw, key(kAlive, program::pointerObject(e.addr), 0), 0, 1};
        s.role = Role::Free; // realloc: also reads every word of the object (multiEvent)
        return s;
    case EventKind::Copy: return std::nullopt; // (isMulti)
    case EventKind::SemWait:
    case EventKind::SemTryWait:
    case EventKind::SemPost:
    case EventKind::SemGetValue:
    case EventKind::BarrierArrive:
    case EventKind::BarrierLeave:
    case EventKind::RwLock:
    case EventKind::RwTryLock:
    case EventKind::RwUnlock: setLimit(kSyncObjectsLimit); return std::nullopt;
    }
    return std::nullopt;
}

// The access observing that its object (alive key `alive`, or its acc2's) was freed: the executor stops its
// thread there with a use-after-free error (DESIGN.md "free()").
SymEvent VhbExplorer::useAfterFree(const SymEvent& access, uint32_t alive) {
    SymEvent s{Op::Read, alive == kNoKey ? access.key2 : alive, 1, 0};
    s.role = Role::UseAfterFree;
    s.key2 = access.key;
    bool writes = access.writes();
    if (access.accs)
        for (const WordAcc& w : *access.accs) writes |= w.write;
    s.val2 = writes;
    return s;
}

SymEvent VhbExplorer::doubleFree(uint32_t alive) {
    SymEvent s{Op::Read, alive, 1, 0}; // it observes the object freed; the executor reports the double free
    s.role = Role::Free;
    return s;
}

std::optional<uint32_t> VhbExplorer::sourceAliveKey(const Event& e) {
    if (e.kind != EventKind::Copy || opts_.vhbPaper || !ex_->isHeapAddress(e.addr2)) return std::nullopt;
    if (program::pointerObject(e.addr2) == program::pointerObject(e.addr)) return std::nullopt; // acc2 has it
    return key(kAlive, program::pointerObject(e.addr2), 0);
}

// A condition variable is a location holding the set of its waiters (WaiterSets.h; DESIGN.md
// "Condition variables"): a wait adds its thread (and releases the mutex), a signal takes the woken one off, a
// broadcast empties it. All three read the set: what they do depends on it.
void VhbExplorer::condValues(SymEvent& s, ThreadId t, uint64_t waiters, ThreadId woken) const {
    s.rval = waiters;
    s.other = 0;
    switch (s.role) {
    case Role::CondWait: s.wval = withWaiter(waiters, t); break;
    case Role::CondSignal:
        s.wval = woken == model::kNoThread ? waiters : withoutWaiter(waiters, woken);
        s.other = woken == model::kNoThread ? 0 : woken + 1;
        break;
    case Role::CondBroadcast: s.wval = 0; break;
    default: break; // called for the three roles above only (the others are not on a condition variable)
    }
    if (s.wval == waiters) s.op = Op::Read; // nobody to wake: it only observes that
}

// The mutex re-acquire after a pthread_cond_wait may run only once a signal or broadcast took its thread off the
// waiters: a guard on the condition variable's waiter set.
void VhbExplorer::addGuard(SymEvent& s, const std::vector<SymEvent>& before, ThreadId t) const {
    if (before.empty() || before.back().role != Role::CondWait) return;
    s.guardKey = before.back().key;
    s.guardThread = t;
}

Node VhbExplorer::build() {
    // A resumed node carries on from its parent's events (the same trace prefix gives the same symbolic events:
    // keys, shadows and sections are per trace event, the waiters and freed objects are carried along).
    BuildBase b = buildBase_ ? std::move(*buildBase_) : BuildBase{};
    buildBase_.reset();
    Node& n = b.node;
    std::map<uint32_t, uint64_t>& waiters = b.waiters; // per condition variable, along the execution
    std::set<uint32_t>& freed = b.freed; // heap objects (kAlive keys) freed so far: an access after it observes it
    size_t nt = ex_->numThreads();
    n.apo.threads.resize(nt);
    n.choices.assign(nt, {});
    for (const report::Decision& d : schedule_) n.choices[d.thread].push_back(d.choice);
    for (size_t ti = b.traceLength; ti < ex_->trace().size(); ++ti) {
        const Event& e = ex_->trace()[ti];
        auto s = symbolic(e);
        auto& th = n.apo.threads[e.tid];
        SymEvent sym = s.value_or(SymEvent{});
        if (s && isMulti(e)) sym = multiEvent(e, sym, ti < shadow_.size() ? shadow_[ti] : Shadow{});
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
        else if (auto src = sourceAliveKey(e); src && freed.count(*src)) sym = useAfterFree(sym, *src);
        if (sym.role == Role::Free && !freed.insert(sym.key).second) sym = doubleFree(sym.key);
        if (sym.role == Role::None && e.kind == EventKind::Free) sym.role = Role::Free;
        sym.section = e.tid < sectionOf_.size() && th.size() < sectionOf_[e.tid].size() ? sectionOf_[e.tid][th.size()] : 0;
        if (!e.atomic)
            forEachAccess(sym, [&](uint32_t k, bool, uint64_t, uint64_t) {
                if (plainKey_.size() <= k) plainKey_.resize(k + 1, 0);
                plainKey_[k] = 1;
            });
        th.push_back(sym);
    }
    n.apo.finished.resize(nt);
    n.apo.openSection.assign(nt, false);
    for (ThreadId t = 0; t < nt; ++t) {
        const auto& th = n.apo.threads[t];
        n.apo.finished[t] = ex_->joinable(t); // a thread that called exit() has finished, but no join passes it
        n.apo.openSection[t] = !th.empty() && th.back().section && ex_->atomicSectionId(t) == th.back().section;
    }
    n.apo.init.resize(init_.size());
    for (size_t k = 0; k < init_.size(); ++k) n.apo.init[k] = init_[k].value_or(0);
    rehash(n);
    built_ = BuildBase{{}, std::move(waiters), std::move(freed), ex_->trace().size()}; // snapshot() adds the node
    return std::move(n);
}

// DESIGN.md "Critical sections run alone": an event a critical section may hold and still run alone — a
// non-atomic read or write of one aligned word outside the heap, or a nondet value. Anything else ends the span.
bool VhbExplorer::isPlain(const Event& e) const {
    if (e.kind == EventKind::Nondet) return true;
    return (e.kind == EventKind::Read || e.kind == EventKind::Write) && !e.atomic && !isMulti(e) &&
           !ex_->isHeapAddress(e.addr);
}

std::optional<bool> VhbExplorer::spanRead(ThreadId t) const {
    const Event& p = ex_->thread(t).pending;
    if (!spans_ || p.kind != EventKind::Read || !isPlain(p)) return std::nullopt;
    bool accessed = false;
    const auto& trace = ex_->trace();
    for (size_t i = trace.size(); i-- > 0;) {
        const Event& e = trace[i];
        if (e.tid != t) continue;
        if (e.kind == EventKind::Lock || (e.kind == EventKind::TryLock && e.value)) return accessed;
        if (!isPlain(e)) return std::nullopt;
        accessed |= e.kind != EventKind::Nondet && e.addr == p.addr && e.size == p.size;
    }
    return std::nullopt;
}

// Thread t's pending read, in the first pass, when t is inside a span that already accessed its word: t locked a
// mutex, every event of t since is plain, and one of them accessed the word. In a program without a data race no
// other thread writes the word in between, so the read observes t's own last access of it wherever the node is
// linearised: it is decided, and WExtend runs it (a racy witness is reported by the detector: then the second
// pass runs).
bool VhbExplorer::decidedRead(ThreadId t) const { return spanRead(t).value_or(false); }

// The first pass, in a program where no thread can be cut: a thread inside a span whose pending event is a plain
// read of a word the span has not accessed yet (not decided) is the only thread its node extends — a persistent
// set of one thread, beyond the paper's Alg. 5 lines 5–8, which extend every thread (DESIGN.md "Critical sections
// run alone", "Span reads first"). Its read is enabled wherever the node is linearised (no atomic section is
// open: it is taken in the executor), so the node always has a child.
ThreadId VhbExplorer::spanThread() const {
    if (!spans_ || !spanFirst_ || mayCut_ || ex_->status() != ExecStatus::Running || ex_->exclusiveThread() != model::kNoThread)
        return model::kNoThread;
    for (ThreadId t = 0; t < ex_->numThreads(); ++t)
        if (ex_->enabled(t) && !ex_->inAtomicSection(t) && spanRead(t) == false) return t;
    return model::kNoThread;
}

bool VhbExplorer::mayCut(const program::Program& p) {
    for (const program::Function& f : p.functions)
        for (const program::Instr& in : f.code) {
            if (in.op == program::Op::LoopBack && in.imm) return true; // a spin loop (spin-assume)
            if (in.op == program::Op::CallBuiltin &&
                (program::Builtin(in.aux) == program::Builtin::Assume || program::Builtin(in.aux) == program::Builtin::Abort))
                return true;
        }
    return false;
}

// A fold of per-thread hashes, so that a candidate's hash is its thread's continued over the new events and the
// others' as they were (extendValues).
uint64_t VhbExplorer::hashOf(const Node& n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t t = 0; t < n.apo.threads.size(); ++t) h = mix(h, nodeThreadHash(n, ThreadId(t)));
    return h;
}

uint64_t VhbExplorer::nodeThreadHash(const Node& n, ThreadId t) {
    if (t < n.hashes.size()) return threadHash(n, t, n.hashes[t], n.hashed[t]);
    return threadHash(n, t, threadSeed(t));
}

// The hash of an event mixes its choice (0 when it has none yet): only events with their choice are cached, so
// that a cached prefix is what a pass from the start computes.
void VhbExplorer::rehash(Node& n) {
    const size_t nt = n.apo.threads.size();
    if (n.hashes.size() > nt) { // (cannot happen: threads are never removed) start again
        n.hashes.clear();
        n.hashed.clear();
    }
    for (ThreadId t = 0; t < nt; ++t) {
        if (t == n.hashes.size()) {
            n.hashes.push_back(threadSeed(t));
            n.hashed.push_back(0);
        }
        const size_t upTo = std::min(n.apo.threads[t].size(), t < n.choices.size() ? n.choices[t].size() : size_t(0));
        if (n.hashed[t] > upTo) { // fewer events or choices than hashed: not a continuation, start again
            n.hashes[t] = threadSeed(t);
            n.hashed[t] = 0;
        }
        if (n.hashed[t] == upTo) continue;
        uint64_t h = n.hashes[t];
        for (size_t i = n.hashed[t]; i < upTo; ++i) h = eventHash(h, n.apo.threads[t][i], n.choices[t][i]);
        n.hashes[t] = h;
        n.hashed[t] = uint32_t(upTo);
    }
}

uint64_t VhbExplorer::eventHash(uint64_t h, const SymEvent& e, uint32_t choice) {
    h = mix(mix(mix(mix(mix(h, uint64_t(e.op)), e.key), e.rval), e.wval), e.other);
    if (e.acc2 != Acc2::None) h = mix(mix(mix(h, uint64_t(e.acc2)), e.key2), e.val2);
    if (e.accs)
        for (const WordAcc& w : *e.accs) h = mix(mix(mix(mix(h, w.key), w.write), w.val), w.mask);
    if (e.role != Role::None) h = mix(h, 0x401e0000ull + uint64_t(e.role));
    return mix(h, choice);
}

uint64_t VhbExplorer::threadHash(const Node& n, ThreadId t, uint64_t h, size_t from) {
    for (size_t i = from; i < n.apo.threads[t].size(); ++i)
        h = eventHash(h, n.apo.threads[t][i], i < n.choices[t].size() ? n.choices[t][i] : 0);
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
        if (e.accs)
            for (const WordAcc& w : *e.accs)
                if (w.write && w.key == key) values.insert(w.val);
    };
    for (const auto& th : n.apo.threads)
        for (const SymEvent& e : th) add(e);
    for (const SymEvent& e : more) add(e);
    return values;
}

std::vector<VhbExplorer::Ext> VhbExplorer::candidates(const Node& n, ThreadId t) {
    std::vector<Ext> out;
    const exec::ThreadView& v = ex_->thread(t);
    if (v.state == exec::ThreadState::Finished || v.state == exec::ThreadState::Stopped) return out;
    const Event& p = v.pending;
    if (kTrace)
        std::fprintf(stderr, "  thread %u state %d pending %s\n", t, int(v.state),
                     std::string(model::eventKindName(p.kind)).c_str());
    if (ex_->inAtomicSection(t)) return sectionCandidates(n, t);
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
            if (base->role == Role::CondWait && hasWaiter(waiters, t)) continue;
            std::vector<ThreadId> woken{model::kNoThread};
            if (base->role == Role::CondSignal && waiters) woken = decodeWaiters(waiters);
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
        if (p.value2) // realloc: with every value of the object's words
            for (const SymEvent& s : multiCandidates(n, t, *base, valuesOf(n, base->key, {}).count(1))) single(s, 0);
        else single(*base, 0);
        if (valuesOf(n, base->key, {}).count(1)) single(doubleFree(base->key), 0);
        return out;
    }
    // An access of a freed heap object: the extension where it observes the free (the executor reports a use
    // after free) — only when a free of it is in the node.
    bool mayBeFreed = base->acc2 == Acc2::Read && valuesOf(n, base->key2, {}).count(1);
    if (mayBeFreed) single(useAfterFree(*base), 0);
    if (auto src = sourceAliveKey(p); src && valuesOf(n, *src, {}).count(1)) { // a copy from a freed object
        single(useAfterFree(*base, *src), 0);
        mayBeFreed = true;
    }
    if (base->op == Op::Multi) {
        // Found alive: forced so (the executor's own interleaving may have freed it).
        for (const SymEvent& s : multiCandidates(n, t, *base, mayBeFreed)) single(s, 0);
        return out;
    }
    if (p.kind == EventKind::TryLock) {
        single({Op::Rmw, base->key, 0, 1}, 0);
        single({Op::Read, base->key, 1, 0}, 0);
        return out;
    }
    // A join of a thread that has not finished after its events in the node: no linearisation of the child has
    // it (canStep needs the joined thread finished), so no Closure and no exhaustive Realize is spent on it —
    // these were most of the infeasible extensions on programs whose main joins its threads.
    if (base->op == Op::Join && (base->other >= n.apo.finished.size() || !n.apo.finished[base->other])) return out;
    if (p.kind != EventKind::Read && p.kind != EventKind::Rmw) {
        single(*base, 0);
        return out;
    }
    for (uint64_t val : valuesOf(n, base->key, {})) {
        SymEvent s = *base;
        s.rval = val;
        if (p.kind == EventKind::Rmw) {
            // What it writes depends on what it reads: ask the executor (on a copy), once per thread state and
            // value — the thread's events and their values fix its local state (Remark 1), hence the answer.
            const uint64_t h = mix(mix(mix(nodeThreadHash(n, t), val), p.addr), 0x9e0be0000ull + t);
            auto [it, fresh] = probes_.try_emplace(h, Probe{});
            if (fresh) {
                if (auto e = ex_->probe(t, val)) it->second = {mask(e->value2, p.size), e->rmwWrote, true};
            }
            if (!it->second.valid) continue;
            s.wval = it->second.wval;
            s.rmwWrites = it->second.wrote;
        }
        single(s, 0);
    }
    return out;
}

// An SV-COMP atomic section runs alone: it is added to a node as one extension, all its events at once (a
// linearisation keeps them contiguous: Apo's sections). Each way through it — every value each of its reads may
// observe, every outcome of a nondet value or a trylock, every waiter set a condition operation may find (and
// which waiter a signal wakes), a heap object found alive or freed — is one extension; the executor runs the
// section on copies, each event forced to the outcome tried (Executor::forceStep), as if the section ran alone.
// The forced state is what some linearisation of the child gives the event: its values are candidates of the
// node like those of a single event's extension (candidates()), and Closure/Realize decide which are feasible.
std::vector<VhbExplorer::Ext> VhbExplorer::sectionCandidates(const Node& n, ThreadId t) {
    std::vector<Ext> out;
    Ext cur;
    size_t ways = 0; // prefixes of ways through the section tried so far
    std::function<void(const exec::Executor&)> expand = [&](const exec::Executor& c) {
        const exec::ThreadView& v = c.thread(t);
        bool alive = v.state != exec::ThreadState::Finished && v.state != exec::ThreadState::Stopped;
        if (!alive || !c.inAtomicSection(t) || (!cur.evs.empty() && c.atomicSectionId(t) != cur.evs.back().section)) {
            if (!cur.evs.empty()) out.push_back(cur);
            return;
        }
        ++ways;
        const Event p = v.pending;
        const uint32_t section = c.atomicSectionId(t);
        struct Outcome {
            exec::Executor::Forced forced;
            uint64_t waiters = 0;            // a condition operation: the waiter set it finds
            ThreadId woken = model::kNoThread; // a signal: the waiter it wakes
        };
        std::vector<Outcome> outcomes;
        auto plain = [&](uint32_t choice) {
            Outcome o;
            o.forced.choice = choice;
            return o;
        };
        // A heap object some event of the node or the section frees may be found alive or freed (DESIGN.md
        // "free"): the event is tried both ways; one nothing frees is alive in every linearisation, as in the copy.
        std::optional<uint32_t> aliveKey, sourceKey; // (a copy's source object: sourceAliveKey)
        bool ranMulti = false; // a multi-word access ran with some combination of values (below)
        if (p.kind == EventKind::Free || (p.isMemory() && ex_->isHeapAddress(p.addr)))
            if (uint32_t k = key(kAlive, program::pointerObject(p.addr), 0); valuesOf(n, k, cur.evs).count(1))
                aliveKey = k;
        if (auto k = sourceAliveKey(p); k && valuesOf(n, *k, cur.evs).count(1)) sourceKey = k;
        if (p.kind == EventKind::Nondet) {
            for (uint32_t k = 0; k < v.choices; ++k) outcomes.push_back(plain(k));
        } else if (p.kind == EventKind::Lock || p.kind == EventKind::TryLock) {
            for (bool free : {true, false}) {
                if (!free && p.kind == EventKind::Lock) break;
                Outcome o;
                o.forced.mutexFree = free;
                outcomes.push_back(o);
            }
        } else if (p.kind == EventKind::CondWait || p.kind == EventKind::CondSignal ||
                   p.kind == EventKind::CondBroadcast) {
            auto base = symbolic(p);
            if (!base || limit_) return;
            for (uint64_t waiters : valuesOf(n, base->key, cur.evs)) {
                if (p.kind == EventKind::CondWait && hasWaiter(waiters, t)) continue;
                const std::vector<ThreadId> list = decodeWaiters(waiters);
                // A signal wakes one waiter of its choice (toSchedule finds its place in the real waiter list).
                const size_t ways = p.kind == EventKind::CondSignal && !list.empty() ? list.size() : 1;
                for (size_t k = 0; k < ways; ++k) {
                    Outcome o;
                    o.forced.choice = uint32_t(k);
                    o.forced.condWaiters = list;
                    o.waiters = waiters;
                    if (p.kind == EventKind::CondSignal && !list.empty()) o.woken = list[k];
                    outcomes.push_back(o);
                }
            }
        } else if (isMulti(p)) {
            // Every combination of its words' candidate values (multiCandidatesOn), each with the copy that ran it.
            auto base = symbolic(p);
            if (!base || limit_) return;
            for (auto& [s, next] : multiCandidatesOn(c, n, t, *base, cur.evs, aliveKey || sourceKey)) {
                if (limit_) return;
                ranMulti = true;
                s.section = section;
                cur.evs.push_back(s);
                cur.choices.push_back(0);
                expand(*next);
                cur.evs.pop_back();
                cur.choices.pop_back();
                if (limit_) return;
            }
            // Found alive, it ran above; found freed, it is the outcome below (a use after free, a realloc of a
            // freed pointer).
            if (!aliveKey && !sourceKey) {
                if (!ranMulti && !cur.evs.empty()) { // it blocks (or fails) inside the section: nothing runs after it
                    Ext e = cur;
                    e.open = true;
                    out.push_back(e);
                }
                return;
            }
        } else if (p.kind == EventKind::Read || p.kind == EventKind::Rmw) {
            auto base = symbolic(p);
            if (!base) return;
            uint32_t k = base->key;
            if (!init_[k] && !writtenThisRun_.count(k) &&
                std::none_of(cur.evs.begin(), cur.evs.end(), [&](const SymEvent& e) { return e.writes() && e.key == k; }))
                if (auto val = c.peek(p.addr, p.size)) init_[k] = mask(*val, p.size);
            for (uint64_t val : valuesOf(n, k, cur.evs)) {
                Outcome o;
                o.forced.readValue = val;
                outcomes.push_back(o);
            }
        } else {
            outcomes.push_back(plain(0));
        }
        if (aliveKey) { // found alive (forced: the copy's own interleaving may have freed it) or freed
            for (Outcome& o : outcomes) o.forced.objectAlive = true;
            Outcome freed;
            freed.forced.objectAlive = false;
            outcomes.push_back(freed);
        }
        if (sourceKey) { // a copy (multi-word: its alive outcomes ran above) whose source was freed first
            Outcome freed;
            if (aliveKey) freed.forced.objectAlive = true;
            freed.forced.sourceAlive = false;
            outcomes.push_back(freed);
        }
        bool any = ranMulti;
        for (const Outcome& o : outcomes) {
            auto next = c.forceStep(t, o.forced);
            if (!next) continue;
            any = true;
            auto s = symbolic(next->trace().back());
            if (!s || limit_) return;
            if (isCond(s->role)) condValues(*s, t, o.waiters, o.woken);
            if (o.forced.objectAlive == false) { // a double free or a use after free: the thread stops at it
                s = s->role == Role::Free ? doubleFree(s->key) : useAfterFree(*s);
            } else if (o.forced.sourceAlive == false) {
                s = useAfterFree(*s, *sourceKey);
            }
            s->section = section;
            cur.evs.push_back(*s);
            cur.choices.push_back(o.forced.choice);
            // Many ways: a way whose events so far are not realisable on the node (a relaxation of every way it
            // begins, as for a multi-word access's prefixes: DESIGN.md "Many combinations") is not followed.
            if (outcomes.size() > 1 && ways > kPlainCombinations && !realizable(withEvents(n, t, cur.evs))) {
                cur.evs.pop_back();
                cur.choices.pop_back();
                continue;
            }
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
    expand(*ex_);
    return out;
}

} // namespace skein::explore::vhb::detail
