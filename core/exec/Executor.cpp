// Executor lifecycle, scheduling state, and the visible step.
#include "core/exec/Executor.h"

#include <cstring>

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using model::EventKind;

Executor::Executor(const program::Program& p, ExecOptions opts) : program_(p), opts_(std::move(opts)), memory_(p) {
    // A domain that holds every value of a narrow type explores that type exhaustively: not a sample.
    for (unsigned w = 1; w <= 16; ++w) {
        if (opts_.nondetDomain.size() < (size_t(1) << w)) break; // too few values for this width or a wider one
        std::vector<bool> seen(size_t(1) << w);
        size_t distinct = 0;
        for (int64_t v : opts_.nondetDomain) {
            auto bit = seen[maskBits(uint64_t(v), w)];
            if (!bit) bit = true, ++distinct;
        }
        if (distinct == seen.size()) wholeDomainWidths_ |= 1u << w;
    }
    // The trace's first buffer at once rather than grown by doubling from one event (reset keeps its capacity): an
    // explorer that builds an executor per exploration (qpor) copied 31 events in 5 reallocations to reach 17 on
    // semaphore_buffer.c — ~1 % of that exploration's time (bench/README.md, thirty-third session).
    trace_.reserve(32);
    reset();
}

Executor::~Executor() = default;

Executor::Executor(const Executor& o, CloneTag)
    : program_(o.program_), opts_(o.opts_), memory_(o.memory_), views_(o.views_), mutexes_(o.mutexes_),
      condWaiters_(o.condWaiters_), condsDestroyed_(o.condsDestroyed_), syncDestroyed_(o.syncDestroyed_),
      trace_(o.trace_), status_(o.status_), errors_(o.errors_), anyCut_(o.anyCut_),
      anyBound_(o.anyBound_), exitRequested_(o.exitRequested_), twoJoiners_(o.twoJoiners_),
      syncUse_(o.syncUse_),
      boundReason_(o.boundReason_),
      exclusive_(o.exclusive_), sampledNondet_(o.sampledNondet_), wholeDomainWidths_(o.wholeDomainWidths_),
      instructions_(o.instructions_),
      output_(o.output_), canonicalIds_(o.canonicalIds_), created_(o.created_), liveThreads_(o.liveThreads_) {
    for (const auto& t : o.threads_) threads_.push_back(std::make_unique<Thread>(*t));
}

std::unique_ptr<Executor> Executor::clone() const { return std::make_unique<Executor>(*this, CloneTag{}); }

void Executor::copyStateFrom(const Executor& o) {
    memory_.copyStateFrom(o.memory_);
    threads_.resize(o.threads_.size());
    for (size_t t = 0; t < o.threads_.size(); ++t) {
        if (threads_[t]) *threads_[t] = *o.threads_[t]; // the thread's vectors keep their capacity
        else threads_[t] = std::make_unique<Thread>(*o.threads_[t]);
    }
    views_ = o.views_;
    mutexes_ = o.mutexes_;
    condWaiters_ = o.condWaiters_;
    condsDestroyed_ = o.condsDestroyed_;
    syncDestroyed_ = o.syncDestroyed_;
    trace_ = o.trace_;
    status_ = o.status_;
    errors_ = o.errors_;
    anyCut_ = o.anyCut_;
    anyBound_ = o.anyBound_;
    exitRequested_ = o.exitRequested_;
    twoJoiners_ = o.twoJoiners_;
    syncUse_ = o.syncUse_;
    boundReason_ = o.boundReason_;
    exclusive_ = o.exclusive_;
    sampledNondet_ = o.sampledNondet_;
    instructions_ = o.instructions_;
    output_ = o.output_;
    // A snapshot and the executor it was cloned from share one map of canonical ids (canonicalIds_), which only
    // grows: the ids learned after a snapshot keep naming the same logical threads when it is restored (the
    // explorers key events by thread id). From another lineage, the larger map is taken.
    if (o.canonicalIds_ != canonicalIds_ && o.canonicalIds_->size() > canonicalIds_->size())
        canonicalIds_ = o.canonicalIds_;
    created_ = o.created_;
    liveThreads_ = o.liveThreads_;
    stateChanged();
}

size_t Executor::stateBytes() const {
    return memory_.arena().size() + trace_.size() * sizeof(Event) + threads_.size() * sizeof(Thread);
}

bool Executor::wasCut(ThreadId t) const { return threads_[t]->cut; }

bool Executor::inAtomicSection(ThreadId t) const { return threads_[t]->atomicDepth > 0; }

bool Executor::joinable(ThreadId t) const { return threads_[t]->finished && !threads_[t]->endedProgram; }

std::optional<uint64_t> Executor::joinResult(ThreadId t) const {
    if (t >= threads_.size()) return std::nullopt;
    const Thread& th = *threads_[t];
    if (th.absent || th.joined || th.detached || !joinable(t)) return std::nullopt;
    return th.retval;
}

uint64_t Executor::joinState(ThreadId t) const {
    if (t >= threads_.size()) return 1 << 4;
    const Thread& th = *threads_[t];
    return uint64_t(th.absent) << 3 | uint64_t(th.detached) << 2 | uint64_t(th.joined) << 1 | uint64_t(joinable(t));
}

uint64_t Executor::objectState(uint32_t id) const {
    const Object* o = memory_.object(id);
    if (!o) return 0;
    return uint64_t(1) << 48 | uint64_t(o->kind) << 40 | uint64_t(o->alive) << 32 | o->size;
}

uint32_t Executor::atomicSectionId(ThreadId t) const {
    return threads_[t]->atomicDepth > 0 ? threads_[t]->sectionsEntered : 0;
}

std::optional<uint64_t> Executor::peek(uint64_t addr, uint32_t size) const {
    if (size == 0 || size > 8) return std::nullopt;
    uint8_t* p = nullptr;
    if (const_cast<Memory&>(memory_).check(addr, size, false, &p) != AccessError::None || !p) return std::nullopt;
    uint64_t v = 0;
    for (uint32_t i = 0; i < size; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
}

bool Executor::isHeapAddress(uint64_t addr) const {
    const Object* o = memory_.object(program::pointerObject(addr));
    return o && o->kind == ObjectKind::Heap;
}

std::optional<Event> Executor::probe(ThreadId t, uint64_t value) const {
    if (t >= threads_.size() || !threads_[t]->hasPending || !views_[t].pending.isMemory()) return std::nullopt;
    Forced f;
    f.readValue = value;
    auto copy = forceStep(t, f);
    if (!copy) return std::nullopt;
    return copy->trace().back();
}

std::unique_ptr<Executor> Executor::forceStep(ThreadId t, const Forced& f) const {
    if (t >= threads_.size() || !threads_[t]->hasPending || status_ == ExecStatus::Unsupported) return nullptr;
    const Event ev = views_[t].pending;
    auto copy = clone();
    // Only the flag: a revived object keeps the bytes it had when freed, and a read of it is forced as well.
    if (f.objectAlive && !copy->forceObjectAlive(ev.addr, *f.objectAlive)) return nullptr;
    if (f.sourceAlive && !copy->forceObjectAlive(ev.addr2, *f.sourceAlive)) return nullptr;
    if (f.readValue && ev.isMemory()) {
        if (ev.size == 0 || ev.size > 8) return nullptr;
        uint8_t* p = nullptr;
        if (copy->memory_.check(ev.addr, ev.size, true, &p) == AccessError::None && p) {
            for (uint32_t i = 0; i < ev.size; ++i) p[i] = uint8_t(*f.readValue >> (8 * i));
        } else if (!f.objectAlive || *f.objectAlive) {
            return nullptr;
        }
    }
    if (f.mutexFree && (ev.kind == EventKind::Lock || ev.kind == EventKind::TryLock))
        copy->mutexes_[ev.addr].owner = *f.mutexFree ? model::kNoThread : (t == 0 ? 1 : 0);
    if (f.condWaiters &&
        (ev.kind == EventKind::CondWait || ev.kind == EventKind::CondSignal || ev.kind == EventKind::CondBroadcast)) {
        copy->condWaiters_[ev.addr] = *f.condWaiters;
        copy->refreshView(t); // a signal's number of outcomes follows the waiters
    }
    if (copy->exclusive_ != t) copy->exclusive_ = model::kNoThread; // it runs alone
    if (!copy->enabled(t)) return nullptr;
    copy->step(t, f.choice);
    return copy;
}

bool Executor::forceObjectAlive(uint64_t addr, bool alive) {
    Object* o = memory_.object(program::pointerObject(addr));
    if (!o || o->kind != ObjectKind::Heap) return false;
    o->alive = alive;
    return true;
}

std::unique_ptr<Executor> Executor::forceStepBytes(ThreadId t, const std::vector<std::pair<uint64_t, uint8_t>>& bytes,
                                                   bool forceAlive) const {
    if (t >= threads_.size() || !threads_[t]->hasPending || status_ == ExecStatus::Unsupported) return nullptr;
    auto copy = clone();
    if (forceAlive) {
        const Event& ev = views_[t].pending;
        if (isHeapAddress(ev.addr)) copy->forceObjectAlive(ev.addr, true);
        if (ev.kind == EventKind::Copy && isHeapAddress(ev.addr2)) copy->forceObjectAlive(ev.addr2, true);
    }
    for (auto [addr, byte] : bytes) {
        uint8_t* p = nullptr;
        if (copy->memory_.check(addr, 1, true, &p) == AccessError::None && p) *p = byte;
    }
    if (copy->exclusive_ != t) copy->exclusive_ = model::kNoThread;
    if (!copy->enabled(t)) return nullptr;
    copy->step(t, 0);
    return copy;
}

void Executor::reset() {
    memory_.reset();
    threads_.clear();
    views_.clear();
    mutexes_.clear();
    condWaiters_.clear();
    condsDestroyed_.clear();
    syncDestroyed_.clear();
    trace_.clear();
    status_ = ExecStatus::Running;
    errors_.clear();
    anyCut_ = anyBound_ = exitRequested_ = twoJoiners_ = false;
    syncUse_ = 0;
    boundReason_.clear();
    exclusive_ = model::kNoThread;
    sampledNondet_ = false;
    instructions_ = 0;
    output_.clear();

    threads_.push_back(std::make_unique<Thread>());
    views_.emplace_back();
    created_.assign(1, 0);
    liveThreads_ = 1;
    const program::Function& mainFn = program_.functions[program_.mainFunction];
    // main(argc, argv): argc = 0, argv = { NULL }.
    uint64_t args[2] = {0, 0};
    if (mainFn.numParams >= 2) {
        args[1] = memory_.allocate(0, 8, ObjectKind::Argv, false, 0);
    }
    if (pushFrame(0, program_.mainFunction, args, mainFn.numParams, program::kNoReg, 0, mainFn.atomicSection)) run(0);
    stateChanged();
    updateStatus();
}

bool Executor::enabled(ThreadId t) const {
    if (status_ == ExecStatus::Unsupported) return false;
    if (exclusive_ != model::kNoThread && exclusive_ != t) return false;
    return thread(t).state == ThreadState::Ready && threads_[t]->hasPending;
}

const ThreadView& Executor::refreshedView(ThreadId t) const {
    if (t >= viewStamp_.size()) viewStamp_.resize(std::max<size_t>(threads_.size(), 8), 0);
    const_cast<Executor*>(this)->refreshView(t);
    viewStamp_[t] = viewGen_;
    return views_[t];
}

void Executor::refreshView(ThreadId t) {
    const Thread& th = *threads_[t];
    ThreadView& v = views_[t];
    v.choices = 1;
    if (th.finished) {
        v.state = ThreadState::Finished;
        return;
    }
    if (th.stopped) {
        v.state = ThreadState::Stopped;
        return;
    }
    if (th.state == ThreadState::BlockedCond) {
        v.state = ThreadState::BlockedCond;
        return;
    }
    v.state = ThreadState::Ready;
    switch (v.pending.kind) {
    case EventKind::Lock: {
        auto it = mutexes_.find(v.pending.addr);
        if (it != mutexes_.end() && it->second.owner != model::kNoThread) {
            v.state = ThreadState::BlockedLock;
            v.waitObject = v.pending.addr;
        }
        break;
    }
    case EventKind::SemWait: {
        uint32_t count = 0;
        // (Inaccessible, or destroyed: the step reports the error.)
        if (syncWord(v.pending.addr, count) && count == 0 && !syncDestroyed(v.pending.addr)) {
            v.state = ThreadState::BlockedLock;
            v.waitObject = v.pending.addr;
        }
        break;
    }
    case EventKind::RwLock: { // a reader waits for no writer, a writer for no one
        uint32_t readers = 0, writer = 0;
        syncWord(v.pending.addr, readers);
        syncWord(v.pending.addr + 4, writer);
        if ((writer != 0 || (v.pending.value2 == 1 && readers != 0)) && !syncDestroyed(v.pending.addr)) {
            v.state = ThreadState::BlockedLock;
            v.waitObject = v.pending.addr;
        }
        break;
    }
    case EventKind::BarrierLeave: { // until the round it arrived in is complete
        uint32_t round = 0;
        if (syncWord(v.pending.addr + 8, round) && round == th.barrierRound) {
            v.state = ThreadState::BlockedLock;
            v.waitObject = v.pending.addr;
        }
        break;
    }
    case EventKind::ThreadJoin: {
        ThreadId target = ThreadId(v.pending.value);
        // A thread that ended the program (exit(), main's return) never becomes joinable: in the real process
        // nothing runs after it, and nothing may observe that it happened.
        if (target < threads_.size() && !joinable(target)) {
            v.state = ThreadState::BlockedJoin;
            v.waitObject = target;
        }
        break;
    }
    case EventKind::CondSignal: {
        auto it = condWaiters_.find(v.pending.addr);
        v.choices = it == condWaiters_.end() || it->second.empty() ? 1 : uint32_t(it->second.size());
        break;
    }
    case EventKind::Nondet: v.choices = uint32_t(v.pending.value2); break;
    default: break;
    }
}

void Executor::setPending(ThreadId t, const Event& ev, uint32_t choices) {
    Thread& th = *threads_[t];
    ThreadView& v = views_[t];
    v.pending = ev;
    v.pending.tid = t;
    v.pending.indexInThread = th.events;
    v.pending.loc = currentLoc(t);
    v.choices = choices;
    th.hasPending = true;
}

uint32_t Executor::currentLoc(ThreadId t) const {
    const Thread& th = *threads_[t];
    // Code without a source location (a library function's wrapper, Lower.cpp) is placed where it was called: at
    // its caller's call, or for a key's destructor where the thread exited.
    for (auto f = th.frames.rbegin(); f != th.frames.rend(); ++f) {
        const program::Function& fn = program_.functions[f->func];
        if (const uint32_t loc = f->pc < fn.locs.size() ? fn.locs[f->pc] : fn.loc) return loc;
        if (f->destructor) return th.exitLoc;
    }
    return 0;
}

const Event& Executor::step(ThreadId t, uint32_t choice) {
    Thread& th = *threads_[t];
    if (views_[t].pending.span) refreshRanges(t); // memory may have been set from outside (forceStepBytes)
    Event ev = views_[t].pending;
    th.hasPending = false;
    ++th.events;
    const size_t errorsBefore = errors_.size();
    if (th.atomicDepth > 0) {
        exclusive_ = t;
        // SV-COMP atomic sections run alone, so their accesses cannot race: they count as atomic accesses.
        if (ev.isMemory()) ev.atomic = true;
    }
    const Frame& fr = th.frames.back();
    const program::Instr& in = program_.functions[fr.func].code[fr.pc];
    bool continueThread = true;
    switch (ev.kind) {
    case EventKind::Read:
    case EventKind::Write:
    case EventKind::Rmw:
        if (in.op == program::Op::CallBuiltin) performBuiltin(t, in, choice, ev);
        else performMemory(t, in, ev);
        break;
    case EventKind::ProgramExit:
        // main returned or exit() was called. The process would end here; Skein instead lets the other threads
        // run on (a schedule that delays this exit has the same prefix) and does not report them as deadlocked
        // if they wait forever. main's stack stays alive for them.
        finishThread(t, ev.value, /*programExit=*/true);
        continueThread = false;
        break;
    default:
        performBuiltin(t, in, choice, ev);
        continueThread = !th.hasPending && th.state != ThreadState::BlockedCond && !th.finished;
        break;
    }
    if (errors_.size() > errorsBefore && errors_.back().thread == t) ev.failed = true;
    trace_.push_back(ev);
    // A string function another thread is about to run touches what it finds: its ranges follow the memory.
    if (ev.isMemory() && ev.writes())
        for (ThreadId u = 0; u < views_.size(); ++u)
            if (u != t && views_[u].pending.span) refreshRanges(u);
    bool alive = status_ != ExecStatus::Unsupported && !th.finished && !th.stopped;
    if (alive && continueThread && th.events >= opts_.maxEventsPerThread)
        bound(t, "event bound: thread " + std::to_string(t) + " executed " + std::to_string(th.events) +
                     " visible events in one execution (--max-events)");
    else if (alive && continueThread) run(t);
    stateChanged(); // before updateStatus: the views it computes are the new state's
    updateStatus();
    return trace_.back();
}

bool Executor::treeOrderBefore(ThreadId a, ThreadId b) const {
    // Each thread's path from main: the k of every create on the way, read back from the canonical ids (a handful:
    // asked only for a deadlock's report).
    auto path = [&](ThreadId t) {
        std::vector<uint32_t> p;
        while (t != 0) {
            auto it = std::find_if(canonicalIds_->begin(), canonicalIds_->end(),
                                   [&](const auto& c) { return c.second == t; });
            if (it == canonicalIds_->end()) break; // (not created by this executor's lineage: by id then)
            p.push_back(it->first.second);
            t = it->first.first;
        }
        std::reverse(p.begin(), p.end());
        return p;
    };
    const std::vector<uint32_t> pa = path(a), pb = path(b);
    return pa != pb ? pa < pb : a < b; // a prefix (an ancestor) first
}

ThreadId Executor::childId(ThreadId parent, uint32_t k) const {
    auto it = canonicalIds_->find({parent, k});
    return it != canonicalIds_->end() ? it->second : ThreadId(canonicalIds_->size() + 1);
}

ThreadId Executor::createThread(ThreadId parent, uint32_t func, uint64_t arg) {
    // A semaphore, lock or barrier destroyed (by a step: no other thread could see it) before this thread exists,
    // which may use it: a destroy qpor has no event of (kSyncDestroyLate).
    if (!syncDestroyed_.empty()) syncUse_ |= kSyncDestroyLate;
    uint32_t k = created_[parent]++;
    ThreadId id = canonicalIds_->try_emplace({parent, k}, ThreadId(canonicalIds_->size() + 1)).first->second;
    while (threads_.size() <= id) {
        auto hole = std::make_unique<Thread>();
        hole->absent = hole->finished = true;
        threads_.push_back(std::move(hole));
        views_.emplace_back();
        views_.back().state = ThreadState::Finished;
    }
    threads_[id] = std::make_unique<Thread>();
    views_[id] = ThreadView{};
    if (created_.size() <= id) created_.resize(id + 1, 0);
    ++liveThreads_;
    const program::Function& fn = program_.functions[func];
    uint64_t args[1] = {arg};
    if (pushFrame(id, func, args, 1, program::kNoReg, 0, fn.atomicSection)) run(id);
    return id;
}

void Executor::finishThread(ThreadId t, uint64_t retval, bool programExit) {
    Thread& th = *threads_[t];
    if (th.frames.empty() || !th.frames.front().destructor) th.exitLoc = currentLoc(t);
    while (!th.frames.empty()) {
        // Unwind (pthread_exit from a nested call): stack objects die, atomic sections end. At a program exit
        // the stack stays: other threads may still use what main passed them.
        Frame f = th.frames.back();
        th.frames.pop_back();
        if (!programExit)
            for (size_t k = f.stackObjectBase; k < th.stackObjects.size(); ++k)
                if (Object* o = memory_.object(th.stackObjects[k])) o->alive = false;
        th.stackObjects.resize(f.stackObjectBase);
    }
    // (At a program exit — main's return, exit() — no destructor runs: POSIX runs them for pthread_exit and the
    // return of a thread's start routine only.)
    if (!programExit && runKeyDestructor(t, retval)) return;
    th.atomicDepth = 0;
    if (exclusive_ == t) exclusive_ = model::kNoThread;
    th.finished = true;
    th.hasPending = false;
    th.retval = retval;
    views_[t].state = ThreadState::Finished;
    if (programExit) {
        exitRequested_ = true;
        th.endedProgram = true;
    }
}

bool Executor::runKeyDestructor(ThreadId t, uint64_t retval) {
    Thread& th = *threads_[t];
    // POSIX: while some key with a destructor has a value, a round of destructors, at most
    // PTHREAD_DESTRUCTOR_ITERATIONS (4) rounds; one destructor call per value a round found.
    if (th.destructorCalls >= 4 * th.specific.size()) return false;
    for (auto& [key, value] : th.specific) {
        const uint32_t creator = key / kKeysPerThread, index = key % kKeysPerThread;
        if (!value || creator >= threads_.size() || index >= threads_[creator]->keyDestructors.size()) continue;
        const uint32_t f = threads_[creator]->keyDestructors[index];
        if (f == ~0u) continue;
        const uint64_t arg = value;
        value = 0; // (before the call, as POSIX says)
        ++th.destructorCalls;
        th.retval = retval;
        if (pushFrame(t, f, &arg, 1, program::kNoReg, 0, program_.functions[f].atomicSection))
            th.frames.back().destructor = true;
        return true;
    }
    return false;
}

void Executor::stopThread(ThreadId t) {
    Thread& th = *threads_[t];
    th.stopped = true;
    th.hasPending = false;
    th.atomicDepth = 0;
    if (exclusive_ == t) exclusive_ = model::kNoThread;
    views_[t].state = ThreadState::Stopped;
}

// Decides the status once no thread is enabled (see ExecStatus).
void Executor::updateStatus() {
    if (status_ == ExecStatus::Unsupported) return;
    status_ = ExecStatus::Running;
    for (ThreadId t = 0; t < threads_.size(); ++t)
        if (enabled(t)) return;
    if (!errors_.empty()) status_ = ExecStatus::Error;
    else if (anyBound_) status_ = ExecStatus::Bounded;
    else if (anyCut_) status_ = ExecStatus::Cut;
    else {
        bool allDone = true;
        for (const auto& th : threads_) allDone &= th->finished;
        if (allDone || exitRequested_) status_ = ExecStatus::Finished;
    }
}

void Executor::fail(ThreadId t, report::ErrorKind kind, std::string message) {
    if (status_ == ExecStatus::Unsupported || threads_[t]->stopped) return;
    errors_.push_back(ExecError{kind, std::move(message), t, currentLoc(t), trace_.size()});
    stopThread(t);
}

void Executor::failAccess(ThreadId t, AccessError e, uint64_t ptr, uint64_t size) {
    std::string what = accessErrorText(e);
    std::string name = memory_.describe(ptr);
    if (e == AccessError::OutOfBounds) {
        const Object* o = memory_.object(program::pointerObject(ptr));
        std::string base = o ? memory_.objectName(program::pointerObject(ptr)) : "";
        what += ": " + std::to_string(size) + " bytes at offset " + std::to_string(int32_t(program::pointerOffset(ptr))) +
                (base.empty() ? "" : " of `" + base + "`") + (o ? " (size " + std::to_string(o->size) + ")" : "");
    } else if (!name.empty()) {
        what += " (`" + name + "`)";
    }
    fail(t, report::ErrorKind::Memory, what);
}

void Executor::cut(ThreadId t) {
    if (status_ == ExecStatus::Unsupported || threads_[t]->stopped) return;
    anyCut_ = true;
    threads_[t]->cut = true;
    stopThread(t);
}

bool Executor::cutAtSpinLoop(ThreadId t) const {
    const Thread& th = *threads_[t];
    if (!th.cut || th.frames.empty()) return false;
    const Frame& f = th.frames.back();
    const program::Instr& in = program_.functions[f.func].code[f.pc];
    return in.op == program::Op::LoopBack && in.imm;
}

int Executor::timedWaitPhase(ThreadId t) const {
    const Thread& th = *threads_[t];
    if (th.finished || th.frames.empty()) return -1;
    const Frame& f = th.frames.back();
    const program::Instr& in = program_.functions[f.func].code[f.pc];
    const bool timedWait = in.op == program::Op::CallBuiltin && program::Builtin(in.aux) == program::Builtin::CondWait &&
                           (in.imm & program::kTimedCall);
    return timedWait ? th.phase : -1;
}

bool Executor::spinStep(ThreadId t) const {
    const Event& next = thread(t).pending;
    if (onlyReadsOrTries(next.kind)) return true;
    const int phase = timedWaitPhase(t);
    if (phase != kTimedWaitUnlock) return phase == 0 || phase == kTimedWaitRelock;
    // The timeout's unlock lets a thread waiting for the mutex take it: then the iteration changes what others can
    // do, and the loop is not one that spins for good.
    for (ThreadId u = 0; u < threads_.size(); ++u) {
        if (u == t) continue;
        const ThreadView& v = thread(u); // (refreshed: a view is brought up to date when asked for)
        if (v.state == ThreadState::BlockedLock && v.waitObject == next.addr) return false;
    }
    return true;
}

bool Executor::timedWaiter(ThreadId t) const {
    return thread(t).state == ThreadState::BlockedCond && timedWaitPhase(t) == kCondWaitWoken;
}

bool Executor::onlyWaitersOrSpinners(uint32_t* spinCuts) const {
    uint32_t cuts = 0;
    for (ThreadId t = 0; t < threads_.size(); ++t) {
        const ThreadView& v = thread(t);
        if (v.state == ThreadState::Stopped) {
            if (!cutAtSpinLoop(t)) return false;
            ++cuts;
        } else if ((enabled(t) && !spinStep(t)) || timedWaiter(t)) {
            return false;
        }
    }
    if (spinCuts) *spinCuts = cuts;
    return true;
}

std::optional<Event> Executor::spinsForever(ThreadId t) const {
    const Thread& th = *threads_[t];
    // (After main returned or exit() was called the process is gone: nothing spins.)
    if (th.finished || th.frames.empty() || exitRequested_) return std::nullopt;
    // Cut at a spin loop's back edge — not at an assume or abort, which leave no state to go on from — or able to
    // run; outside any SV-COMP atomic function (a cut ends the section: it could not be resumed as it was).
    const auto outsideSections = [](const Thread& x) {
        return std::none_of(x.frames.begin(), x.frames.end(), [](const Frame& g) { return g.atomic; });
    };
    const bool runnable = !th.stopped && enabled(t);
    if ((th.cut ? !cutAtSpinLoop(t) : !runnable) || !outsideSections(th)) return std::nullopt;
    if (runnable && !spinStep(t)) return std::nullopt; // (before the copy)
    if (spinScratch_) spinScratch_->copyStateFrom(*this);
    else spinScratch_ = clone();
    Executor* c = spinScratch_.get();
    Thread& ct = *c->threads_[t];
    // Only an iteration that runs whole on the copy proves anything: the loops t is in began theirs before (other
    // threads may have written since), so their marks are made stale — at their back edges they go round once more
    // instead of being cut (Interpret.cpp, LoopBack).
    for (uint64_t& slot : ct.loopCounters) slot = uint64_t(ct.effects + 1) << 32 | uint32_t(slot);
    if (ct.cut) { // t starts the loop's iteration again (the loop carries no value from one to the next: isSpinLoop)
        Frame& cf = ct.frames.back();
        const program::Instr& back = program_.functions[cf.func].code[cf.pc];
        ct.stopped = ct.cut = false;
        cf.pc = back.a;
        ct.loopCounters[cf.loopBase + back.aux] = uint64_t(ct.effects) << 32;
        c->anyCut_ = false;
        c->run(t);
        c->updateStatus();
    }
    // t alone, the others held where they are, until it is cut again having only read and failed — or it does
    // anything else: writes, takes a lock, blocks, ends. An iteration without a visible event waits for nothing
    // (`LOOP: goto LOOP;`, an assume's halt in SV-COMP files): a thread parked on purpose, not spinning.
    const uint32_t effects = ct.effects;
    std::optional<Event> last;
    for (uint32_t events = 0; events < kSpinRerunEvents; ++events) {
        if (ct.cut) return last && c->cutAtSpinLoop(t) && outsideSections(ct) ? last : std::nullopt;
        if (!c->enabled(t)) return std::nullopt;
        if (!c->spinStep(t)) return std::nullopt;
        last = c->step(t, 0); // (a timed wait's choice 0 times out: program::kTimeOutChoice)
        if (ct.effects != effects || ct.atomicDepth > 0) return std::nullopt; // (or it entered an atomic section)
    }
    return std::nullopt;
}

void Executor::bound(ThreadId t, std::string why) {
    if (status_ == ExecStatus::Unsupported || threads_[t]->stopped) return;
    if (!anyBound_) boundReason_ = std::move(why);
    anyBound_ = true;
    stopThread(t);
}

void Executor::unsupported(ThreadId t, std::string what) {
    if (status_ == ExecStatus::Unsupported) return;
    status_ = ExecStatus::Unsupported;
    errors_.push_back(ExecError{report::ErrorKind::Unsupported, std::move(what), t, currentLoc(t), trace_.size()});
}

std::string Executor::describeBlocked(ThreadId t) const {
    const ThreadView& v = thread(t);
    switch (v.state) {
    case ThreadState::BlockedLock: {
        if (v.pending.kind == EventKind::SemWait)
            return "waits on semaphore `" + memory_.describe(v.waitObject) + "` (its count is 0)";
        if (v.pending.kind == EventKind::RwLock) {
            uint32_t readers = 0, writer = 0;
            auto* self = const_cast<Executor*>(this); // (reads the lock's fields)
            self->syncWord(v.waitObject, readers);
            self->syncWord(v.waitObject + 4, writer);
            return "waits to " + std::string(v.pending.value2 == 1 ? "write" : "read") + "-lock `" +
                   memory_.describe(v.waitObject) + "` (" +
                   (writer ? "held for writing by thread " + std::to_string(writer - 1)
                           : "held for reading by " + std::to_string(readers) + " thread(s)") +
                   ")";
        }
        if (v.pending.kind == EventKind::BarrierLeave) {
            uint32_t size = 0, arrived = 0;
            auto* self = const_cast<Executor*>(this); // (reads the barrier's fields)
            self->syncWord(v.waitObject, size);
            self->syncWord(v.waitObject + 4, arrived);
            return "waits at barrier `" + memory_.describe(v.waitObject) + "` (" + std::to_string(arrived) + " of " +
                   std::to_string(size) + " arrived)";
        }
        auto it = mutexes_.find(v.waitObject);
        const bool held = it != mutexes_.end() && it->second.owner != model::kNoThread;
        const Frame& fr = threads_[t]->frames.back();
        if (const program::Instr& in = program_.functions[fr.func].code[fr.pc];
            in.op == program::Op::CallBuiltin && program::Builtin(in.aux) == program::Builtin::Once)
            return "waits in pthread_once on `" + memory_.describe(v.waitObject) + "`" +
                   (held ? " for the init routine thread " + std::to_string(it->second.owner) + " is running" : "");
        return "waits for mutex `" + memory_.describe(v.waitObject) + "`" +
               (held ? " held by thread " + std::to_string(it->second.owner) : "");
    }
    case ThreadState::BlockedJoin: return "waits to join thread " + std::to_string(v.waitObject);
    case ThreadState::BlockedCond:
        return "waits on condition variable `" + memory_.describe(v.waitObject) + "`";
    default: return "";
    }
}

bool Executor::syncWord(uint64_t at, uint32_t& value) {
    uint8_t* bytes;
    if (memory_.check(at, 4, false, &bytes) != AccessError::None) return false;
    std::memcpy(&value, bytes, 4);
    return true;
}

uint64_t Executor::errnoAddress(ThreadId t) {
    Thread& th = *threads_[t];
    if (!th.errnoObject) th.errnoObject = memory_.allocate(t, 4, ObjectKind::Errno, false, 0);
    return th.errnoObject;
}

void Executor::setErrno(ThreadId t, uint32_t value) {
    uint8_t* bytes;
    if (memory_.check(errnoAddress(t), 4, true, &bytes) == AccessError::None) std::memcpy(bytes, &value, 4);
}

void Executor::setSyncWord(uint64_t at, uint32_t value) {
    uint8_t* bytes;
    if (memory_.check(at, 4, true, &bytes) == AccessError::None) std::memcpy(bytes, &value, 4);
}

uint64_t Executor::finalStateHash() const {
    uint64_t h = memory_.hashShared();
    for (const auto& th : threads_) h = (h ^ (th->finished ? th->retval + 1 : 0)) * 1099511628211ull;
    return h;
}

} // namespace skein::exec
