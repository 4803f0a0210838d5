// Executor lifecycle, scheduling state, and the visible step.
#include "core/exec/Executor.h"

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using model::EventKind;

Executor::Executor(const program::Program& p, ExecOptions opts) : program_(p), opts_(std::move(opts)), memory_(p) {
    // A domain that holds every value of a narrow type explores that type exhaustively: not a sample.
    for (unsigned w = 1; w <= 16; ++w) {
        std::vector<bool> seen(size_t(1) << w);
        size_t distinct = 0;
        for (int64_t v : opts_.nondetDomain) {
            auto bit = seen[maskBits(uint64_t(v), w)];
            if (!bit) bit = true, ++distinct;
        }
        if (distinct == seen.size()) wholeDomainWidths_ |= 1u << w;
    }
    reset();
}

Executor::~Executor() = default;

void Executor::reset() {
    memory_.reset();
    threads_.clear();
    views_.clear();
    mutexes_.clear();
    condWaiters_.clear();
    trace_.clear();
    status_ = ExecStatus::Running;
    error_.reset();
    boundReason_.clear();
    exclusive_ = model::kNoThread;
    sampledNondet_ = false;
    instructions_ = 0;
    output_.clear();

    threads_.push_back(std::make_unique<Thread>());
    views_.emplace_back();
    const program::Function& mainFn = program_.functions[program_.mainFunction];
    // main(argc, argv): argc = 0, argv = { NULL }.
    uint64_t args[2] = {0, 0};
    if (mainFn.numParams >= 2) {
        args[1] = memory_.allocate(0, 8, ObjectKind::Argv, false, 0);
    }
    if (pushFrame(0, program_.mainFunction, args, mainFn.numParams, program::kNoReg, 0, mainFn.atomicSection)) run(0);
}

const ThreadView& Executor::thread(ThreadId t) const {
    const_cast<Executor*>(this)->refreshView(t);
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
    case EventKind::ThreadJoin: {
        ThreadId target = ThreadId(v.pending.value);
        if (target < threads_.size() && !threads_[target]->finished) {
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

bool Executor::enabled(ThreadId t) const {
    if (status_ != ExecStatus::Running) return false;
    if (exclusive_ != model::kNoThread && exclusive_ != t) return false;
    return thread(t).state == ThreadState::Ready && threads_[t]->hasPending;
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
    if (th.frames.empty()) return 0;
    const Frame& f = th.frames.back();
    const program::Function& fn = program_.functions[f.func];
    return f.pc < fn.locs.size() ? fn.locs[f.pc] : fn.loc;
}

const Event& Executor::step(ThreadId t, uint32_t choice) {
    Thread& th = *threads_[t];
    Event ev = views_[t].pending;
    th.hasPending = false;
    ++th.events;
    if (th.atomicDepth > 0) exclusive_ = t;
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
        status_ = ExecStatus::Finished;
        continueThread = false;
        break;
    default:
        performBuiltin(t, in, choice, ev);
        continueThread = !th.hasPending && th.state != ThreadState::BlockedCond && !th.finished;
        break;
    }
    trace_.push_back(ev);
    if (th.events >= opts_.maxEventsPerThread && status_ == ExecStatus::Running && continueThread && !th.finished) {
        bound(t, "event bound: thread " + std::to_string(t) + " executed " + std::to_string(th.events) +
                     " visible events in one execution (--max-events)");
        return trace_.back();
    }
    if (status_ == ExecStatus::Running && continueThread) run(t);
    return trace_.back();
}

ThreadId Executor::createThread(uint32_t func, uint64_t arg) {
    ThreadId id = ThreadId(threads_.size());
    threads_.push_back(std::make_unique<Thread>());
    views_.emplace_back();
    const program::Function& fn = program_.functions[func];
    uint64_t args[1] = {arg};
    if (pushFrame(id, func, args, 1, program::kNoReg, 0, fn.atomicSection)) run(id);
    return id;
}

void Executor::finishThread(ThreadId t, uint64_t retval) {
    Thread& th = *threads_[t];
    while (!th.frames.empty()) {
        uint64_t zero = 0;
        // Unwind (pthread_exit from a nested call): stack objects die, atomic sections end.
        Frame f = th.frames.back();
        th.frames.pop_back();
        for (size_t k = f.stackObjectBase; k < th.stackObjects.size(); ++k)
            if (Object* o = memory_.object(th.stackObjects[k])) o->alive = false;
        th.stackObjects.resize(f.stackObjectBase);
        (void)zero;
    }
    th.atomicDepth = 0;
    if (exclusive_ == t) exclusive_ = model::kNoThread;
    th.finished = true;
    th.hasPending = false;
    th.retval = retval;
    views_[t].state = ThreadState::Finished;
    // main's return is a ProgramExit event and never gets here; when main called pthread_exit instead, the
    // process ends with its last thread.
    for (const auto& other : threads_)
        if (!other->finished) return;
    if (status_ == ExecStatus::Running) status_ = ExecStatus::Finished;
}

void Executor::fail(ThreadId t, report::ErrorKind kind, std::string message) {
    if (status_ != ExecStatus::Running) return;
    status_ = ExecStatus::Error;
    error_ = ExecError{kind, std::move(message), t, currentLoc(t)};
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
    if (status_ == ExecStatus::Running) status_ = ExecStatus::Cut;
}

void Executor::bound(ThreadId t, std::string why) {
    if (status_ != ExecStatus::Running) return;
    status_ = ExecStatus::Bounded;
    boundReason_ = std::move(why);
}

void Executor::unsupported(ThreadId t, std::string what) {
    if (status_ != ExecStatus::Running) return;
    status_ = ExecStatus::Unsupported;
    error_ = ExecError{report::ErrorKind::Unsupported, std::move(what), t, currentLoc(t)};
}

std::string Executor::describeBlocked(ThreadId t) const {
    const ThreadView& v = thread(t);
    switch (v.state) {
    case ThreadState::BlockedLock: {
        auto it = mutexes_.find(v.waitObject);
        std::string owner = it != mutexes_.end() && it->second.owner != model::kNoThread
                                ? " held by thread " + std::to_string(it->second.owner) : "";
        return "waits for mutex `" + memory_.describe(v.waitObject) + "`" + owner;
    }
    case ThreadState::BlockedJoin: return "waits to join thread " + std::to_string(v.waitObject);
    case ThreadState::BlockedCond:
        return "waits on condition variable `" + memory_.describe(v.waitObject) + "`";
    default: return "";
    }
}

uint64_t Executor::finalStateHash() const {
    uint64_t h = memory_.hashShared();
    for (const auto& th : threads_) h = (h ^ (th->finished ? th->retval + 1 : 0)) * 1099511628211ull;
    return h;
}

} // namespace skein::exec
