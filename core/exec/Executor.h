#pragma once
// The deterministic executor of one execution (DESIGN.md "Executor"). It knows nothing of the algorithm that
// drives it: an explorer sees, per thread, the next visible event (its label, whether it is enabled, how many
// outcomes it has), and asks the executor to perform one. Everything between two visible events runs inside
// step() without a scheduling point. Same decisions ⇒ same execution, bit for bit.
//
// Thread-safety: an Executor is used by one thread at a time; several executors may share a Program.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/exec/Memory.h"
#include "core/model/Event.h"
#include "core/program/Program.h"
#include "core/report/Result.h"

namespace skein::exec {

using model::Event;
using model::ThreadId;

struct ExecOptions {
    uint32_t unroll = 0;                     // loop iterations per loop entry; 0 = unbounded
    uint64_t maxStepsPerThread = 5'000'000;  // interpreted instructions per thread per execution
    uint32_t maxEventsPerThread = 10'000;    // visible events per thread per execution (cuts runaway loops)
    uint32_t maxThreads = 64;
    uint32_t maxCallDepth = 2000;            // beyond it: stack exhaustion error
    std::vector<int64_t> nondetDomain = {0, 1}; // values __VERIFIER_nondet_* may return (bool: always {0,1})
    // Polled every 64K interpreted instructions of a thread: true stops the thread with the bound "cancelled" (a
    // long execution gives way to an edit or a cancel within milliseconds; explorers then stop too).
    std::function<bool()> cancelled;
};

enum class ThreadState : uint8_t {
    Ready,         // its pending event can run
    BlockedLock,   // waits for a mutex (`waitObject`)
    BlockedJoin,   // waits for thread `waitObject` to finish
    BlockedCond,   // waits on a condition variable to be signalled
    Finished,
    Stopped,       // stopped by an error, a failed assume/abort/spin cut, or a bound; never runs again
};

struct ThreadView {
    ThreadState state = ThreadState::Ready;
    Event pending;           // the next visible event's label (valid unless Finished)
    uint32_t choices = 1;    // outcomes of the pending event (nondet values, which waiter to wake)
    uint64_t waitObject = 0; // BlockedLock: mutex address; BlockedJoin: thread id; BlockedCond: cond address
};

// How an execution ended (or that it has not). Errors, failed assumes and bounds stop only the thread that
// hits them: the others run on until no thread is enabled, so that every thread's visible actions stay
// independent of what another thread does after them (the unfolding explorers rely on it). The status is
// decided once no thread is enabled, in this order:
enum class ExecStatus : uint8_t {
    Running,       // some thread is enabled — or none is and the live threads all wait: a deadlock
    Finished,      // every thread finished (or main/exit() ended the program and the rest wait or finished)
    Error,         // some thread stopped at an error: see errors()
    Cut,           // some thread stopped at abort(), a failed assume or a spin loop: the execution is dropped
    Bounded,       // some thread hit a bound: see boundReason()
    Unsupported,   // the program reached a construct Skein does not model (stops everything at once)
};

struct ExecError {
    report::ErrorKind kind = report::ErrorKind::Assertion;
    std::string message;
    ThreadId thread = 0;
    uint32_t loc = 0;
    size_t traceLength = 0; // visible events executed when it happened (the counterexample ends there)
};

class Executor {
public:
    Executor(const program::Program& p, ExecOptions opts);
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Back to the initial state: main at its first visible event.
    void reset();
    // An independent copy of the current state (to look ahead without disturbing this execution).
    std::unique_ptr<Executor> clone() const;
    // Takes the execution state of `o` (an executor of the same program and options), reusing this executor's
    // buffers: a snapshot taken with clone() is restored this way, much cheaper than reset() and a replay. The
    // canonical thread ids are never forgotten: the later (larger) of the two maps is kept. Precondition: the two
    // share one lineage of canonical ids — one executor steps, the others are its clones and only copy from it or
    // into it (what the explorers do) — so that one map extends the other (tests/unit/ExecutorSnapshotTest.cpp).
    void copyStateFrom(const Executor& o);
    // About how many bytes a copy of the current state holds (memory and trace): what a snapshot costs.
    size_t stateBytes() const;
    // Thread t is inside an SV-COMP atomic section (its pending event is part of one).
    bool inAtomicSection(ThreadId t) const;
    // A join of t can return: t has finished, not by ending the program (exit(), main's return), which nothing may
    // observe — a join of such a thread blocks for good.
    bool joinable(ThreadId t) const;
    // What a join of t returns when it completes here without error — t joinable, neither joined nor detached
    // yet: its return value; nullopt where such a join would block or fail.
    std::optional<uint64_t> joinResult(ThreadId t) const;
    // Everything a join of t reaching its call answers from besides t's return value: whether t exists, is absent,
    // detached, joined already, or joinable — one number, equal in two states exactly when the join blocks, fails or
    // completes alike in both.
    uint64_t joinState(ThreadId t) const;
    // Everything a mutex operation on `mutex` answers from (pthread_mutex_lock, trylock, unlock, and cond_wait's
    // release): its owner, a recursive owner's relocks, whether it is destroyed, and its type — one number, equal
    // in two states exactly when every such operation behaves the same in both. nullopt past 2^15 relocks.
    std::optional<uint64_t> mutexInput(uint64_t mutex) const;
    // Everything a free() of a pointer to object `id` (offset 0) answers from: whether the object exists, its kind,
    // whether it is alive and its size — one number, equal in two states exactly when the free succeeds (and frees
    // as many bytes) or fails alike in both.
    uint64_t objectState(uint32_t id) const;
    // 0 when thread t's pending event is outside an atomic section; else a number naming the section (equal for
    // the events of one section, different for two sections of the thread, even back to back).
    uint32_t atomicSectionId(ThreadId t) const;
    // The current contents of `size` bytes at `addr` (little-endian, zero-extended), or nothing when the access
    // would be invalid. A query: it changes nothing (the vhb explorer learns initial values with it).
    std::optional<uint64_t> peek(uint64_t addr, uint32_t size) const;
    // Is `addr` inside a malloc'd object (one that free() can end)? A query (the vhb explorer models an access of
    // such an object as also observing that the object is alive).
    bool isHeapAddress(uint64_t addr) const;
    // What thread t's pending read-modify-write would do if it read `value`: the event it would execute (its
    // written value depends on what it reads). Runs on a copy; nothing here changes. Empty when t has no pending
    // memory event.
    std::optional<Event> probe(ThreadId t, uint64_t value) const;
    // What a copy forces before thread t takes its pending event "as if it ran alone" (forceStep): the state the
    // event would find in some other interleaving, which this executor's own interleaving need not have.
    struct Forced {
        uint32_t choice = 0;                 // the outcome (a nondet value, which waiter a signal wakes)
        std::optional<uint64_t> readValue;   // a memory event reads this (the location is overwritten first)
        std::optional<bool> mutexFree;       // a lock/trylock finds its mutex free (true) or held (false)
        std::optional<std::vector<ThreadId>> condWaiters; // a condition operation finds exactly these waiters
        std::optional<bool> objectAlive;     // a heap access or free finds its object alive or already freed
        std::optional<bool> sourceAlive;     // a copy finds the heap object it reads from (addr2) alive or freed
    };
    // A copy in which thread t has taken its pending event as `f` forces it, whatever the other threads hold. Null
    // when t cannot take it even so (a join of a thread that has not finished). The vhb explorer expands an atomic
    // section with it.
    std::unique_ptr<Executor> forceStep(ThreadId t, const Forced& f) const;
    // A copy in which the given bytes of memory were overwritten (each (address, byte); invalid addresses are
    // skipped) and then thread t took its pending event — with `forceAlive`, finding its heap objects (a copy's
    // source too) alive. Null when t cannot take it. The vhb explorer asks what a multi-word access (memcpy,
    // strcmp, ...) would do for each combination of values it may read.
    std::unique_ptr<Executor> forceStepBytes(ThreadId t, const std::vector<std::pair<uint64_t, uint8_t>>& bytes,
                                             bool forceAlive = false) const;

    ExecStatus status() const { return status_; }
    size_t numThreads() const { return threads_.size(); }
    // Inline, as the explorers ask for every thread's view several times between two steps (see viewGen_).
    const ThreadView& thread(ThreadId t) const {
        if (t < viewStamp_.size() && viewStamp_[t] == viewGen_) [[likely]]
            return views_[t];
        return refreshedView(t);
    }
    bool enabled(ThreadId t) const;
    // Thread t was stopped by a cut (a failed assume, abort, a spin iteration that changes nothing), not by an
    // error or a bound.
    bool wasCut(ThreadId t) const;
    // Thread t would spin for good if it ran alone from here: cut at a spin loop (an iteration that changed nothing:
    // LowerInstr.cpp, isSpinLoop) or able to run, it comes back, on a copy where the other threads are held, to a
    // spin cut after a whole iteration that only read and failed (at most kSpinRerunEvents events). Then nothing it
    // does can change anything: when every thread is done, blocked or spinning so, it is a deadlock of busy-waiting
    // threads (explore::terminalErrors). Returns the last event of that iteration (what it keeps repeating).
    std::optional<Event> spinsForever(ThreadId t) const;
    // Thread t was cut at a spin loop's back edge (not by an assume or abort).
    bool cutAtSpinLoop(ThreadId t) const;
    // The cheap filter before spinsForever's copies: no thread rules out a deadlock of waiting or spinning threads —
    // none is stopped other than by a spin cut (an assume, an error, a bound), none is about to do anything but read
    // or try (a thread that writes next spins in no interleaving: its own events fix its local state), none waits in
    // a timed condition wait (it would time out). Counts the threads cut at a spin loop into `spinCuts` when given.
    bool onlyWaitersOrSpinners(uint32_t* spinCuts = nullptr) const;
    // The kinds of event a spin loop's iteration that changes nothing consists of: reads and attempts that may fail
    // (an exchange or compare-exchange, a trylock, a sem_trywait, a sem_getvalue), and fences.
    static bool onlyReadsOrTries(model::EventKind k) {
        using model::EventKind;
        return k == EventKind::Read || k == EventKind::Rmw || k == EventKind::TryLock ||
               k == EventKind::SemTryWait || k == EventKind::SemGetValue || k == EventKind::Fence;
    }
    static constexpr uint32_t kSpinRerunEvents = 10000;
    // Thread t's next event is one a spin loop's iteration that changes nothing may hold: a read or try
    // (onlyReadsOrTries), or a step of a timed condition wait that times out — its choice, its unlock and re-lock,
    // which leave the mutex as they found it (program::kTimedCall).
    bool spinStep(ThreadId t) const;
    // Thread t waits in a timed condition wait for a signal: it can still time out, so it is not deadlocked.
    bool timedWaiter(ThreadId t) const;
    // The thread in an SV-COMP atomic section that has started executing it, or kNoThread: while there is one,
    // only it may run.
    ThreadId exclusiveThread() const { return exclusive_; }

    // Performs thread t's pending event (which must be enabled) with outcome `choice` < choices, then runs t
    // to its next visible event. Returns the executed event.
    const Event& step(ThreadId t, uint32_t choice = 0);

    const std::vector<Event>& trace() const { return trace_; }
    // The errors of this execution, in the order they happened (at most one per thread).
    const std::vector<ExecError>& errors() const { return errors_; }
    const std::string& boundReason() const { return boundReason_; }
    // True when a nondet value was drawn from a domain smaller than its type's.
    bool sampledNondet() const { return sampledNondet_; }
    // True once two threads have called pthread_join on one thread in this execution: the second one's fate (a
    // misuse when the first already returned, nothing when both wait) depends on the order of the two calls, which
    // only explorers that order joins see (dfs; qpor and vhb hand such a program over).
    bool twoJoiners() const { return twoJoiners_; }
    // The synchronisation objects beyond mutexes and condition variables that a thread reached in this execution
    // (a set of SyncUse bits): which explorers model them differs — dfs all, qpor those initialised before the first
    // thread was created (and barriers whose threads meet every round), vhb none — and one that does not model an
    // object hands the program over (check() falls back to dfs).
    enum SyncUse : uint8_t {
        kUsesSemaphore = 1,
        kUsesBarrier = 2,
        kUsesRwLock = 4,
        // sem_init, pthread_rwlock_init or pthread_barrier_init once a thread was created: qpor derives a
        // semaphore's count (a lock's readers, a barrier's size) at a history from an initialisation that every
        // history holds (QporExplorer::syncCountAt).
        kSyncInitLate = 8,
        // A thread arrived at a barrier in a round other than its own count of arrivals there (more threads meet it
        // than its size, or a thread joined late): qpor takes an arrival's round from its thread's history.
        kBarrierRoundsVary = 16,
        // pthread_once or call_once: a mutex's lock and unlock on the once object, with the flag in its word
        // read and written by the thread that holds it — bytes no event accesses (SyncBuiltins.cpp, Builtin::Once).
        kUsesOnce = 32,
        // sem_destroy, pthread_rwlock_destroy or pthread_barrier_destroy while a thread the caller has not joined
        // exists (an event), or a thread created while such an object is destroyed (by a step): qpor's derivation of
        // the object's state at a history (syncCountAt) knows no destroy.
        kSyncDestroyLate = 128,
    };
    uint8_t syncUse() const { return syncUse_; }
    // The 32-bit word at `at` as a semaphore or barrier keeps it (syncWord); 0 where the bytes are not accessible.
    uint32_t syncValue(uint64_t at) const {
        uint32_t v = 0;
        const_cast<Executor*>(this)->syncWord(at, v); // (Memory::check is not const; nothing is written)
        return v;
    }
    uint64_t instructions() const { return instructions_; }
    const std::vector<report::Output>& output() const { return output_; }

    // What each blocked thread waits for, for deadlock reports.
    std::string describeBlocked(ThreadId t) const;
    // Whether thread a comes before thread b in the thread tree (a parent before its children, siblings in the order
    // their parent creates them). Ids are given by the first execution that creates a thread, so two explorers may
    // number a worker's children apart; this order is the same for both (deadlock reports pick a thread by it).
    bool treeOrderBefore(ThreadId a, ThreadId b) const;
    std::string describeAddress(uint64_t addr) const { return memory_.describe(addr); }
    // The size of the object a pointer points into (freed ones too); 0 when it names none.
    uint64_t objectSize(uint64_t ptr) const {
        const Object* o = memory_.object(uint32_t(ptr >> 32));
        return o ? o->size : 0;
    }
    // Whether ptr points into a live heap object that still holds its allocation's zeros where no event wrote it:
    // malloc's or calloc's, not realloc's (which copied the old object's bytes without an event on the new one).
    bool zeroedAtAllocation(uint64_t ptr) const {
        const Object* o = memory_.object(uint32_t(ptr >> 32));
        return o && o->kind == ObjectKind::Heap && o->alive && !o->copied;
    }
    // Hash of shared memory + each thread's state (finished, return value): final-state comparison.
    uint64_t finalStateHash() const;
    const program::Program& program() const { return program_; }
    // Joins `other`'s lineage of canonical thread ids: from now on both (and their clones) name every thread alike,
    // whichever of them creates it first. For an explorer with a second executor of its own (qpor's replays of
    // histories): built apart, the two numbered a worker's children by their own creation orders and disagreed.
    void adoptThreadIds(const Executor& other) { canonicalIds_ = other.canonicalIds_; }

private:
    struct CloneTag {};

public:
    Executor(const Executor& other, CloneTag); // for clone() only: the tag is private

private:
    struct Frame;
    struct Thread;
    struct BuiltinSite; // (ExecutorImpl.h)
    // The phase (Thread::phase) of the timed condition wait thread t is in, or -1 when its instruction is not one.
    int timedWaitPhase(ThreadId t) const;
    struct MutexState {
        ThreadId owner = model::kNoThread;
        uint32_t relocks = 0; // a recursive mutex: the owner's locks beyond the first (Builtins.cpp, mutexType)
        bool destroyed = false; // by pthread_mutex_destroy, until an init: using it is a misuse (POSIX: undefined)
    };

    // The execution state below is copied in two places that must stay in step: the clone constructor and
    // copyStateFrom (which reuses buffers and never shrinks canonicalIds_). A new member goes into both.
    const program::Program& program_;
    ExecOptions opts_;
    Memory memory_;
    std::vector<std::unique_ptr<Thread>> threads_;
    std::vector<ThreadView> views_;
    std::unordered_map<uint64_t, MutexState> mutexes_;
    std::unordered_map<uint64_t, std::vector<ThreadId>> condWaiters_;
    std::vector<uint64_t> condsDestroyed_; // by pthread_cond_destroy, until an init: using one is a misuse (few)
    std::vector<uint64_t> syncDestroyed_;  // semaphores, reader-writer locks, barriers: as condsDestroyed_
    std::vector<Event> trace_;
    ExecStatus status_ = ExecStatus::Running;
    std::vector<ExecError> errors_;
    bool anyCut_ = false, anyBound_ = false, exitRequested_ = false, twoJoiners_ = false;
    uint8_t syncUse_ = 0; // SyncUse bits
    std::string boundReason_;
    ThreadId exclusive_ = model::kNoThread;
    bool sampledNondet_ = false;
    uint32_t wholeDomainWidths_ = 0; // bit w set: the nondet domain covers every w-bit value (w <= 16)
    uint64_t instructions_ = 0;
    std::vector<report::Output> output_;
    // Thread ids are canonical: the k-th thread that thread p creates gets the same id in every execution this
    // executor runs, whatever the interleaving (kept across reset()). Ids unused in an execution are holes. One map
    // per lineage — an executor, its clones, and those that adopted its ids — since ids only grow and never change:
    // an id one of them gives is the id all of them use.
    using ThreadIds = std::map<std::pair<ThreadId, uint32_t>, ThreadId>;
    std::shared_ptr<ThreadIds> canonicalIds_ = std::make_shared<ThreadIds>();
    std::vector<uint32_t> created_; // per thread: how many threads it created in this execution
    uint32_t liveThreads_ = 0;
    // spinsForever's copy, kept to reuse its buffers (copyStateFrom) across the executions it is asked about (one per
    // blocked execution with a spinning thread). Never copied with the executor, but it stays with this object: an
    // executor vhb moves into a snapshot keeps it (peak RSS on ticket_lock N=5 and peterson ITERS=3: unchanged).
    mutable std::unique_ptr<Executor> spinScratch_;

    // Interpreter (Interpret.cpp): runs t until its next visible operation, which it leaves pending.
    void run(ThreadId t);
    bool pushFrame(ThreadId t, uint32_t func, const uint64_t* args, uint32_t nargs, program::Reg retDst,
                   uint16_t retSlots, bool atomic);
    void popFrame(ThreadId t, const uint64_t* ret, uint32_t slots);
    // Builtins (Builtins.cpp): returns false when the call is a visible operation left pending.
    bool callBuiltin(ThreadId t, const program::Instr& in);
    // ... semaphores, barriers, reader-writer locks and pthread_once (SyncBuiltins.cpp), as callBuiltin and
    // performBuiltin.
    bool callSyncBuiltin(ThreadId t, const program::Instr& in);
    void performSyncBuiltin(ThreadId t, const program::Instr& in, Event& ev);
    // ... malloc, calloc, realloc, free and the string and memory functions (MemoryBuiltins.cpp).
    bool callMemoryBuiltin(ThreadId t, const program::Instr& in);
    void performMemoryBuiltin(ThreadId t, const program::Instr& in);
    void initSyncObject(program::Builtin b, uint64_t addr, uint64_t value);
    void initMutex(uint64_t addr, uint32_t kind);
    // `fn`: the called function's name (program::callName), for the messages.
    bool destroyMutex(ThreadId t, uint64_t addr, const char* fn);
    // Every thread but t that exists has been joined by t (threads created by those were too, or exist unjoined).
    bool othersJoinedBy(ThreadId t) const;
    bool usableMutex(ThreadId t, uint64_t addr, const char* op);
    bool destroyCond(ThreadId t, uint64_t addr, const char* fn);
    bool initCond(ThreadId t, uint64_t addr, const char* fn);
    bool usableCond(ThreadId t, uint64_t addr, const char* op);
    // sem_destroy, pthread_rwlock_destroy, pthread_barrier_destroy (b) of the object at addr, and an operation b of
    // such an object, which must not be destroyed (SyncBuiltins.cpp). False when it failed the thread.
    bool destroySyncObject(ThreadId t, program::Builtin b, uint64_t addr);
    bool usableSyncObject(ThreadId t, const program::Instr& in, uint64_t addr);
    bool syncDestroyed(uint64_t addr) const {
        return !syncDestroyed_.empty() && std::ranges::find(syncDestroyed_, addr) != syncDestroyed_.end();
    }
    // The 32-bit fields of a semaphore or barrier, kept in its own bytes: a semaphore's count at offset 0 (where
    // glibc keeps it); a barrier's size at 0, the arrivals of its current round at 4, the round at 8. False when the
    // bytes are not accessible (the operation reports the access error).
    bool syncWord(uint64_t at, uint32_t& value);
    void setSyncWord(uint64_t at, uint32_t value);
    // The address of thread t's errno: an int of its own, made at its first use, whose accesses are no events (no
    // other thread reaches it). `setErrno` is what a failing builtin leaves in it.
    uint64_t errnoAddress(ThreadId t);
    // Thread t exits (unwound, not at a program exit): the next destructor of a key it holds a value for starts
    // as a call (Frame::destructor), or false when none is left to run.
    bool runKeyDestructor(ThreadId t, uint64_t retval);
    void setErrno(ThreadId t, uint32_t value);
    void performBuiltin(ThreadId t, const program::Instr& in, uint32_t choice, Event& ev);
    void accessRanges(const program::Instr& in, const uint64_t* regs, const program::Function& fn, Event& ev);
    void refreshRanges(ThreadId t);
    void performMemory(ThreadId t, const program::Instr& in, Event& ev);

    ThreadId createThread(ThreadId parent, uint32_t func, uint64_t arg);
    ThreadId childId(ThreadId parent, uint32_t k) const;
    void finishThread(ThreadId t, uint64_t retval, bool programExit = false);
    void stopThread(ThreadId t);
    void updateStatus();
    bool forceObjectAlive(uint64_t addr, bool alive); // forceStep's: false when addr is not in a heap object
    void fail(ThreadId t, report::ErrorKind kind, std::string message);
    void failAccess(ThreadId t, AccessError e, uint64_t ptr, uint64_t size);
    // The bytes [p, p+n) for a builtin to read or write, or null after reporting the access error that stops t.
    uint8_t* checkedBytes(ThreadId t, uint64_t p, uint64_t n, bool write);
    void cut(ThreadId t);
    void bound(ThreadId t, std::string why);
    void unsupported(ThreadId t, std::string what);
    void setPending(ThreadId t, const Event& ev, uint32_t choices = 1);
    uint32_t currentLoc(ThreadId t) const;
    std::string readCString(uint64_t ptr);
    // printf's formatting; `wanted` (when given) receives how many arguments the format took, past nargs too.
    std::string formatPrintf(ThreadId t, uint64_t fmt, const uint64_t* args, uint32_t nargs,
                             uint32_t* wanted = nullptr);
    // The libc models' builtins (LibraryRanges.cpp): __skein_vformat into `tmp` (its length into `length`) and
    // __skein_strtod of the models' private copy (the double's bits into `bits`); false when the thread stopped.
    bool vformat(ThreadId t, uint64_t tmp, uint64_t tmpSize, uint64_t n, uint64_t fmt, uint64_t list, uint64_t& length);
    // __skein_format_string: the k-th %s of fmt among a va_list's arguments, into the model's locals (`found`: 0 or 1).
    bool formatString(ThreadId t, uint64_t fmt, uint64_t list, uint64_t k, uint64_t sOut, uint64_t precisionOut,
                      uint64_t& found);
    struct VaArguments {
        const Object* area = nullptr;
        uint64_t at = 0;
        uint64_t args[64];
        uint32_t given = 0;
    };
    bool vaListArguments(ThreadId t, uint64_t list, VaArguments& out);
    // The bytes a "%.Ns" reads of a string of `length` characters (__skein_read_string_n).
    static uint64_t precisionRead(size_t length, uint64_t precision);
    // The precision of __skein_read_string_n's or __skein_read_format_arg's read: -1 none, 0 nothing to read.
    int64_t readPrecision(const program::Instr& in, const uint64_t* R, const program::Function& fn);
    bool parseDouble(ThreadId t, uint64_t copy, uint64_t result, bool isFloat, uint64_t& bits);
    void refreshView(ThreadId t);
    // A thread's view (its state: blocked or ready, the outcomes of its pending event) follows from the whole state:
    // thread() recomputes it only when the state changed since (a step, a reset, a copy of another state). The
    // explorers ask for every thread's view several times between two steps (qpor ~100 times in an execution of
    // 17 steps: 6 % of a small exploration's instructions). Not part of the copied state: a clone, whose state a
    // forceStep then changes from outside, starts with every view stale.
    uint64_t viewGen_ = 1;                        // bumped by every change of the state
    mutable std::vector<uint64_t> viewStamp_;     // by thread: the viewGen_ its view was computed at (0: never)
    void stateChanged() { ++viewGen_; }
    const ThreadView& refreshedView(ThreadId t) const; // thread()'s slow path: refreshes t's view and stamps it
    void wakeJoiners(ThreadId finished);
};

} // namespace skein::exec
