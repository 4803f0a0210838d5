#pragma once
// Annotated partial orders (VC-DPOR, Sec. 4.1): a set of events (a prefix of each thread), the value each read
// must observe, its good writes (the writes to its location with that value, Sec. 4.1 "GoodW"), and a partial
// order Q ⊇ program order. `closure` strengthens Q with orderings every realisation must have (the three rules
// of Alg. 2–4) or answers ⊥; `realize` finds a witness linearisation (Lemma 4.1) by a search restricted to the
// closed order. Plain data over dense location ids: no executor, no LLVM (DESIGN.md beside this file).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/explore/vhb/WaiterSets.h"

namespace skein::explore::vhb {

enum class Op : uint8_t {
    Read,   // observes `rval` at `key`
    Write,  // writes `wval` at `key`
    Rmw,    // observes `rval` then writes `wval` (if rmwWrites), nothing in between (atomics, lock)
    Create, // starts thread `other`
    Join,   // waits for thread `other` to finish
    Local,  // a thread-local event (nondet, fence, program exit): orders nothing
    Multi,  // a memory access of several words, or of part of one (memcpy, strcmp, a char, a long): its word
            // accesses are `accs` (DESIGN.md "Multi-location accesses"); `key`/`rval`/`wval` are unused
};

inline constexpr uint32_t kNoKey = ~0u;

enum class Acc2 : uint8_t { None, Read, Write };

// What a condition-variable or free() event is (the schedule needs the first: which waiter a signal wakes is a
// choice among the executor's waiters in the order they began waiting; the race search needs the second).
// A UseAfterFree event is an access of a freed heap object: it observes only that the object is freed (`key`,
// value 1), and keeps the location it accessed in `key2` (with `acc2` None: no access for the order) and whether
// it writes in `val2`, for the race search.
enum class Role : uint8_t { None, CondWait, CondSignal, CondBroadcast, Free, UseAfterFree };
inline bool isCond(Role r) { return r == Role::CondWait || r == Role::CondSignal || r == Role::CondBroadcast; }

// One word access of an Op::Multi event: a read observes `val` on the bytes of `mask` (the word's other bytes are
// not observed); a write writes the whole word `val` (a sub-word write is a read of the word's other bytes plus
// a whole-word write, so no byte is lost).
struct WordAcc {
    uint32_t key = 0;
    bool write = false;
    uint64_t val = 0;
    uint64_t mask = ~uint64_t(0);
    bool operator==(const WordAcc&) const = default;
};
using WordAccs = std::shared_ptr<const std::vector<WordAcc>>; // shared: SymEvents are copied per node

struct SymEvent {
    Op op = Op::Local;
    uint32_t key = 0;      // dense location id (a memory word, or a mutex)
    uint64_t rval = 0;     // Read/Rmw: the value it must observe
    uint64_t wval = 0;     // Write/Rmw: the value it writes
    bool rmwWrites = true; // Rmw: false for a failed compare-exchange
    uint32_t other = 0;    // Create/Join: the other thread; a Role::CondSignal that wakes a thread: it, plus 1
    uint32_t section = 0;  // nonzero: part of atomic section number `section` of its thread (runs alone)
    // A second location the same event accesses (DESIGN.md "Condition variables", "free"): a pthread_cond_wait
    // writes its mutex besides the condition variable; an access of a heap object reads whether it is alive.
    Acc2 acc2 = Acc2::None;
    uint32_t key2 = 0;
    uint64_t val2 = 0;     // what it must observe (Acc2::Read) or writes (Acc2::Write) at key2
    // A guard, not an observation: the event can run only while thread `guardThread` is not in the waiter set at
    // `guardKey` (WaiterSets.h; the mutex re-acquire of a pthread_cond_wait waits until a signal took its thread
    // off the waiters).
    uint32_t guardKey = kNoKey;
    uint32_t guardThread = 0;
    Role role = Role::None;
    WordAccs accs = nullptr; // Op::Multi: its word accesses (reads first, then writes; at most one write per word)
    // The primary access only (an Op::Multi event has none: see accs / forEachAccess).
    bool reads() const { return op == Op::Read || op == Op::Rmw; }
    bool writes() const { return op == Op::Write || (op == Op::Rmw && rmwWrites); }
    // Can it run on memory `mem`: do its reads observe their values, is its guard clear? (All reads are checked
    // against the memory before the event: it is one step.)
    bool enabledOn(const std::vector<uint64_t>& mem) const {
        if (reads() && mem[key] != rval) return false;
        if (acc2 == Acc2::Read && mem[key2] != val2) return false;
        if (accs)
            for (const WordAcc& w : *accs)
                if (!w.write && (mem[w.key] & w.mask) != w.val) return false;
        return guardKey == kNoKey || !hasWaiter(mem[guardKey], guardThread);
    }
    void applyTo(std::vector<uint64_t>& mem) const {
        if (writes()) mem[key] = wval;
        if (acc2 == Acc2::Write) mem[key2] = val2;
        if (accs)
            for (const WordAcc& w : *accs)
                if (w.write) mem[w.key] = w.val;
    }
};

// Every access of e, as (key, write?, value, mask): the primary one (a read-modify-write gives a read and a
// write), the second (acc2) and a multi-word event's word accesses.
template <class F>
void forEachAccess(const SymEvent& e, F&& f) {
    if (e.reads()) f(e.key, false, e.rval, ~uint64_t(0));
    if (e.writes()) f(e.key, true, e.wval, ~uint64_t(0));
    if (e.acc2 == Acc2::Read) f(e.key2, false, e.val2, ~uint64_t(0));
    if (e.acc2 == Acc2::Write) f(e.key2, true, e.val2, ~uint64_t(0));
    if (e.accs)
        for (const WordAcc& w : *e.accs) f(w.key, w.write, w.val, w.mask);
}

// The events of one annotated partial order: per thread, a prefix of its events with their values.
struct Apo {
    std::vector<std::vector<SymEvent>> threads;
    std::vector<uint64_t> init;   // per key: the initial value (the paper's initial write event)
    std::vector<bool> finished;   // per thread: it has finished after its events (a join can pass)
    std::vector<bool> openSection; // per thread: its last event is inside an atomic section not yet closed, so
                                   // nothing of another thread can follow it
    size_t size() const;
};

// The partial order Q over an Apo's events, transitively closed, as bit rows: ids are (thread, index) flattened.
class Order {
public:
    explicit Order(const Apo& a);
    // p (an order over the first len[t] events of each thread t of a) over all of a's events, the others
    // ordered with nothing yet.
    static Order extend(const Order& p, const Apo& a, const std::vector<uint32_t>& len);
    size_t threads() const { return nthreads_; }
    uint32_t id(uint32_t t, uint32_t i) const { return offset_[t] + i; }
    uint32_t threadOf(uint32_t e) const;
    size_t size() const { return n_; }
    bool before(uint32_t a, uint32_t b) const { return (rows_[a * words_ + (b >> 6)] >> (b & 63)) & 1; }
    // Row a: the events after a; column b: the events before b (bit sets of `words()` 64-bit words).
    const uint64_t* after(uint32_t a) const { return rows_.data() + size_t(a) * words_; }
    const uint64_t* beforeOf(uint32_t b) const { return cols_.data() + size_t(b) * words_; }
    size_t words() const { return words_; }
    // Nothing follows a.
    bool last(uint32_t a) const {
        const uint64_t* r = after(a);
        for (size_t k = 0; k < words_; ++k)
            if (r[k]) return false;
        return true;
    }
    // Inserts a → b and closes transitively. False when it makes a cycle (b is already before a).
    bool insert(uint32_t a, uint32_t b);
    // For the search: the number of events of thread u that must precede e (from Q).
    uint32_t required(uint32_t e, uint32_t u) const { return req_[size_t(e) * nthreads_ + u]; }
    void computeRequired();
    uint64_t inserted = 0; // orderings the closure added (beyond program order, create and join)

private:
    Order() = default;
    size_t n_ = 0, words_ = 0, nthreads_ = 0;
    std::vector<uint32_t> offset_;
    std::vector<uint64_t> rows_; // row a (words_ words from a * words_), bit b: a < b
    std::vector<uint64_t> cols_; // column b, bit a: a < b
    std::vector<uint64_t> xs_, ys_; // insert's buffers
    uint64_t* row(uint32_t a) { return rows_.data() + size_t(a) * words_; }
    uint64_t* col(uint32_t b) { return cols_.data() + size_t(b) * words_; }
    std::vector<uint32_t> req_;
};

// Alg. 1 (with Rules 1–3 of Alg. 2–4 generalised to any number of threads, DESIGN.md "Closure"): the closure of
// (a, program order + create/join), or nullopt (⊥) when some read can observe none of its good writes in any
// linearisation. Only adds orderings that hold in every linearisation respecting the good writes.
std::optional<Order> closure(const Apo& a);
// The same for a = (the APO `parent` closes: the first len[t] events of each thread t, initial values `init`)
// plus events at the ends of threads, starting from `parent` (DESIGN.md "Closure from the parent's"); falls back
// to closure(a) when that is not known to be sound (a new write an old read may observe without being ordered
// before it, a new create, a changed initial value). Equal answers to closure(a) are not promised: each ordering
// either adds holds in every respecting linearisation, and Realize decides exactly.
// With `unsupported`: instead of falling back, sets it and returns nothing.
std::optional<Order> closureExtending(const Apo& a, const Order& parent, const std::vector<uint32_t>& len,
                                      const std::vector<uint64_t>& init, bool* unsupported = nullptr);
// closureExtending for one new event, the last of thread t.
std::optional<Order> closureAfter(const Apo& a, const Order& parent, uint32_t t);
// closureAfter's first answer without building the order: true when a read of the new event (the last of
// thread t) has no visible good write and cannot observe the initial value on the parent's order plus the
// event's program-order predecessors (Alg. 2 line 2) — a ⊥ closureAfter would also give. False: not known.
bool bottomAfter(const Apo& a, const Order& parent, uint32_t t);
// The same answer without any order (PERFORMANCE.md "Long threads"): true when a read of the new event (the last of
// thread t; a multi-word one of at most 8 words) has no good write at all and cannot observe the initial value, because the
// initial value is another or a write of its location precedes it by program order, create and join alone —
// Alg. 2 line 2, which every Closure of a (from scratch or from a parent's) answers ⊥ on. O(events), no Order.
// False: not known.
bool bottomWithoutGoodWrite(const Apo& a, uint32_t t);
// True when the last event of thread t is a read-modify-write of a location that reads v and writes another
// value, and a has more such events (for that location and v) than writes of v plus the initial value: each
// must observe a write of v of its own, so no linearisation respects the values (a lock while another thread
// holds the mutex; a fetch-and-add of a value another one already took).
bool consumedTwice(const Apo& a, uint32_t t);
// True when the last event of thread t is a plain read r of x that cannot observe its value because t holds a
// lock m around it (PERFORMANCE.md "Cheaper nodes", ⊥ in a critical section): t accessed x after its lock of m, every
// write of x by another thread is made while its thread holds m, and every thread's writes of m alternate a lock
// (a read-modify-write 0 → 1) and a release (a write of 0), from an initial 0 — then no write of x by another
// thread can come between t's last access a of x and r, so r observes what a left (a's value), and r's value is
// another one. False: not known.
bool bottomInSection(const Apo& a, uint32_t t);
// The values location x can hold after every critical section of mutex location m (Apo.cpp, DESIGN.md "Critical
// sections run alone"): a superset of those of the linearisations respecting the values, computed from the
// sections' traffic on x alone; `open` (or ~0u) is a thread that ends inside the section it began at event
// `from`. Nothing when the sections of m are not known to be mutually exclusive or x is written outside them.
std::optional<std::vector<uint64_t>> finalsBySections(const Apo& a, uint32_t m, uint32_t x, uint32_t open, size_t from);
// True when every linearisation respecting the values ends with the same memory: each location's writers' last
// writes leave one value, or its critical sections (finalsBySections) leave one. False: not known.
bool finalMemoryFixed(const Apo& a);

// A linearisation as the sequence of threads that take a step.
using Linearisation = std::vector<uint32_t>;

// The search behind Realize: depth-first over the states (events done per thread, memory) reachable by
// linearisations of prefixes of `a` that respect `q` (when given), the values each read must observe and the
// atomic sections. `visit` is called on each new state (after `path`): return true to stop the search there.
struct SearchState {
    const std::vector<uint32_t>& pos;
    const std::vector<uint64_t>& mem;
    const Linearisation& path;
};
struct SearchLimits {
    uint64_t maxStates = 0; // 0: no limit
    // Per thread, how many of its events the search may take at most (empty: all). The race search never needs
    // a thread past the access it pairs (VhbRaces.cpp).
    std::vector<uint32_t> cap;
    uint64_t states = 0;    // out: states visited
    bool exhausted = false; // out: stopped at maxStates
};
bool search(const Apo& a, const Order* q, const std::function<bool(const SearchState&)>& visit,
            SearchLimits* limits = nullptr);
// The thread mid-way through an atomic section in state `pos` (only it may run), or ~0u. (canStep computes it
// unless given: a search computes it once per state.)
inline constexpr uint32_t kExclusiveUnknown = ~1u;
// Can thread t take its next event in state (pos, mem)? (Its Q-predecessors done, values, sections, join.)
// creatorChecked: the caller has already seen that the create of t (when t has not started) is done.
bool canStep(const Apo& a, const Order* q, const std::vector<uint32_t>& pos, const std::vector<uint64_t>& mem,
             uint32_t t, bool creatorChecked = false, uint32_t exclusive = kExclusiveUnknown);

uint32_t exclusiveThread(const Apo& a, const std::vector<uint32_t>& pos);

// Lemma 4.1: a linearisation of all of a's events respecting q and the values, or nothing.
std::optional<Linearisation> realize(const Apo& a, const Order& q, SearchLimits* limits = nullptr);

// Does the linearisation respect the values every read must observe (and the sections, creates and joins)?
bool respects(const Apo& a, const Linearisation& lin);

// A cheap witness before Closure and Realize (PERFORMANCE.md "Where time goes"): `base` linearises all of a's events
// but the last `k` of thread t (a parent node's witness); each place after t's earlier events where the first of
// the k may run is tried, from the end backwards (at most `maxTries` of them), with the k inserted there as one
// block, and the first linearisation that respects `a` is returned. Nothing: none of those did (the extension may
// still be realisable — ask Closure and Realize).
std::optional<Linearisation> insertInto(const Apo& a, const Linearisation& base, uint32_t t, uint32_t k,
                                        uint32_t maxTries);

// insertInto's pass over `base`, made once for all the candidates of a node (they share the base: the node's
// witness): the state after it, and what each step overwrote, so that the places are found walking back from the
// end instead of replaying the base from the start for every candidate (PERFORMANCE.md "Cheaper nodes").
struct ReplayedBase {
    Linearisation base;
    bool ok = false;                 // every event of base can run where it is (its values, over known keys)
    std::vector<uint32_t> pos;       // events per thread after base
    std::vector<uint64_t> mem;       // the memory after base (keys below mem.size())
    std::vector<uint32_t> lastStep;  // per thread: 1 + the index in base of its last event (0: none)
    std::vector<std::pair<uint32_t, uint64_t>> undo; // (key, value before) of each word written, in base order
    std::vector<uint32_t> undoAt;    // step p's writes are undo[undoAt[p], undoAt[p + 1])
};
ReplayedBase replayBase(const Apo& a, Linearisation base);
// insertInto over a replayed base: `a` is the base's APO with k more events at the end of thread t (its other
// threads and initial values on the keys the base knows unchanged). The same answer as insertInto(a, r.base, ...).
std::optional<Linearisation> insertInto(const Apo& a, const ReplayedBase& r, uint32_t t, uint32_t k,
                                        uint32_t maxTries);

} // namespace skein::explore::vhb
