#include "core/explore/TraceBuilder.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/explore/Explorer.h"

namespace skein::explore {

using model::Event;
using model::EventKind;
using report::EdgeKind;

// Values as the program most likely means them: sign-extended from the access width (C's int, long, char).
static int64_t signedValue(uint64_t v, uint32_t size) {
    if (size == 0 || size >= 8) return int64_t(v);
    unsigned bits = size * 8;
    uint64_t m = uint64_t(1) << (bits - 1);
    v &= (uint64_t(1) << bits) - 1;
    return int64_t((v ^ m) - m);
}

namespace {
void appendInt(std::string& out, int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// A SyncDestroy's name in a trace.
const char* syncDestroyName(const Event& e) {
    switch (e.value2) {
    case model::Event::kCond: return "cond_destroy";
    case model::Event::kMutex: return "mutex_destroy";
    case model::Event::kRwLock: return "rwlock_destroy";
    case model::Event::kBarrier: return "barrier_destroy";
    default: return "sem_destroy";
    }
}

// A SyncInit's name in a trace: the function's (one event kind for the five objects).
const char* syncInitName(const Event& e) {
    switch (e.value2) {
    case model::Event::kRwLock: return "rwlock_init";
    case model::Event::kBarrier: return "barrier_init";
    case model::Event::kMutex: return "mutex_init";
    case model::Event::kCond: return "cond_init";
    default: return "sem_init";
    }
}

// The event's label ("W x = 1") into `out`, built in place from its parts: a counterexample is built once per
// distinct error, and on a small exploration that is a good part of the run (bench/README.md), where a chain of `+`
// or std::to_string made a temporary string per part. `v` names e.addr (the caller has it already), `v2` e.addr2 where
// the event has one (a copy's source, a cond_wait's mutex, a timed wait's condition variable).
void describeEventInto(std::string& out, const Event& e, std::string_view v, std::string_view v2) {
    out.clear();
    auto value = [&](uint64_t x) { appendInt(out, signedValue(x, e.size)); };
    switch (e.kind) {
    case EventKind::Read: out.append("R ").append(v).append(" = "), value(e.value); return;
    case EventKind::Write: out.append("W ").append(v).append(" = "), value(e.value); return;
    case EventKind::Rmw:
        out.append("RMW ").append(v).append(" "), value(e.value);
        out.append("→"), value(e.value2);
        return;
    case EventKind::Copy: out.append("copy ").append(v2).append(" → ").append(v); return;
    case EventKind::Free: out.append("free ").append(v); return;
    case EventKind::Lock: out.append("lock ").append(v); return;
    case EventKind::TryLock: out.append("trylock ").append(v).append(e.value ? " (acquired)" : " (busy)"); return;
    case EventKind::Unlock: out.append("unlock ").append(v); return;
    case EventKind::CondWait:
        out.append("wait ").append(v).append(" (releases ").append(v2).append(")");
        return;
    case EventKind::CondSignal: out.append("signal ").append(v); return;
    case EventKind::CondBroadcast: out.append("broadcast ").append(v); return;
    case EventKind::ThreadCreate: out.append("create thread "), appendInt(out, int64_t(e.value)); return;
    case EventKind::ThreadJoin: out.append("join thread "), appendInt(out, int64_t(e.value)); return;
    case EventKind::ProgramExit: out.append("exit("), appendInt(out, int64_t(e.value)), out.append(")"); return;
    case EventKind::Nondet:
        if (e.addr2) { // a timed condition wait's choice (Builtins.cpp, CondWait)
            const bool timesOut = e.value == program::kTimeOutChoice;
            out.append("timed wait on ").append(v2);
            out.append(timesOut ? ": times out" : ": waits for a signal");
            return;
        }
        out.append("nondet = "), appendInt(out, int64_t(e.value));
        return;
    case EventKind::SemWait: out.append("sem_wait ").append(v); return;
    case EventKind::SemTryWait: out.append("sem_trywait ").append(v).append(e.value ? " (took)" : " (count 0)"); return;
    case EventKind::SemPost: out.append("sem_post ").append(v); return;
    case EventKind::SemGetValue: out.append("sem_getvalue ").append(v).append(" = "), appendInt(out, int64_t(e.value));
        return;
    case EventKind::BarrierArrive: out.append("arrive at ").append(v).append(" ("), appendInt(out, int64_t(e.value));
        out.append(")");
        return;
    case EventKind::BarrierLeave: out.append("leave ").append(v).append(e.value ? " (serial)" : ""); return;
    case EventKind::RwLock: out.append(e.value2 ? "wrlock " : "rdlock ").append(v); return;
    case EventKind::RwTryLock:
        out.append(e.value2 ? "trywrlock " : "tryrdlock ").append(v).append(e.value ? " (acquired)" : " (busy)");
        return;
    case EventKind::RwUnlock: out.append(e.value2 ? "unlock (write) " : "unlock (read) ").append(v); return;
    case EventKind::Fence: out.append("fence"); return;
    case EventKind::SyncDestroy: out.append(syncDestroyName(e)).append(" ").append(v); return;
    case EventKind::SyncInit:
        out.append(syncInitName(e)).append(" ").append(v);
        if (e.value2 == model::Event::kSemaphore || e.value2 == model::Event::kBarrier)
            out.append(" = "), appendInt(out, int64_t(e.value)); // the count, the size
        return;
    }
    out.append(model::eventKindName(e.kind));
}

// The last writer of each byte written: open addressing in one array that doubles when half full, where a hash
// map made a node per byte (a pointer write is eight), a good part of a short counterexample's allocations.
class LastWriter {
public:
    explicit LastWriter(size_t expected) { grow(std::bit_ceil(std::max<size_t>(16, 2 * expected))); }
    const uint32_t* find(uint64_t byte) const {
        const Slot& s = slots_[probe(byte)];
        return s.byte == byte ? &s.event : nullptr;
    }
    void set(uint64_t byte, uint32_t event) {
        Slot& s = slots_[probe(byte)];
        if (s.byte == kEmpty) {
            s.byte = byte;
            if (++used_ * 2 > slots_.size()) {
                s.event = event;
                grow(slots_.size() * 2);
                return;
            }
        }
        s.event = event;
    }

private:
    static constexpr uint64_t kEmpty = UINT64_MAX; // no executor address (object ids are below 2^30)
    struct Slot {
        uint64_t byte = kEmpty;
        uint32_t event = 0;
    };
    size_t probe(uint64_t byte) const { // the byte's slot, or the empty one where it would go
        size_t i = size_t((byte * 0x9E3779B97F4A7C15ull) >> shift_);
        while (slots_[i].byte != byte && slots_[i].byte != kEmpty) i = (i + 1) & (slots_.size() - 1);
        return i;
    }
    void grow(size_t size) {
        std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(size));
        shift_ = unsigned(64 - std::countr_zero(size));
        for (const Slot& s : old)
            if (s.byte != kEmpty) slots_[probe(s.byte)] = s;
    }
    std::vector<Slot> slots_;
    size_t used_ = 0;
    unsigned shift_ = 64;
};

// Each address described once per counterexample: a trace names the same few variables over and over, and
// describing one builds its name from the memory's object table.
class AddressNames {
public:
    explicit AddressNames(const exec::Executor& ex) : ex_(ex) {}
    const std::string& of(uint64_t addr) {
        for (const auto& [a, name] : seen_)
            if (a == addr) return name;
        return seen_.emplace_back(addr, ex_.describeAddress(addr)).second;
    }

private:
    const exec::Executor& ex_;
    std::vector<std::pair<uint64_t, std::string>> seen_; // few: searched linearly
};
} // namespace

std::string describeEvent(const exec::Executor& ex, const Event& e) {
    std::string out;
    const bool second = e.kind == EventKind::Copy || e.kind == EventKind::CondWait || e.kind == EventKind::Nondet;
    describeEventInto(out, e, ex.describeAddress(e.addr), second && e.addr2 ? ex.describeAddress(e.addr2) : "");
    return out;
}

void buildCounterexample(const exec::Executor& ex, report::ErrorReport& out, const CounterexampleCut& cut) {
    // The trace up to the cut, viewed in place: a counterexample is built once per distinct error, which on a small
    // exploration is a good part of the run (bench/README.md).
    const std::span<const Event> events(ex.trace().data(), std::min(cut.length, ex.trace().size()));
    int raceA = cut.raceFirst, raceB = cut.raceSecond;
    const program::Program& prog = ex.program();
    out.trace.clear();
    out.graph = {};
    AddressNames names(ex);
    out.trace.reserve(events.size() + ex.numThreads() + 1);
    out.graph.nodes.reserve(events.size() + ex.numThreads() + 1);
    for (size_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        report::TraceStep& s = out.trace.emplace_back(); // filled in place (reserved above): no moves
        s.step = uint32_t(i + 1);
        s.thread = e.tid;
        prog.sourceLocationInto(e.loc, s.location);
        s.operation = model::eventKindName(e.kind);
        if (e.kind == EventKind::SyncInit) s.operation = syncInitName(e);
        if (e.kind == EventKind::SyncDestroy) s.operation = syncDestroyName(e);
        // Computed once per step (the step and its graph node both show it), and only for an event on an object
        // (a create, join, exit or nondet names none): describing an address is a good part of a step's cost.
        if (e.isMemory() || e.isMutexOp() || e.isSyncObjectOp() || e.kind == EventKind::SyncInit ||
            e.kind == EventKind::SyncDestroy || e.kind == EventKind::CondSignal || e.kind == EventKind::CondBroadcast)
            s.variable = names.of(e.addr);
        if (e.kind == EventKind::Read || e.kind == EventKind::Write || e.kind == EventKind::Rmw || e.kind == EventKind::Nondet)
            s.value = e.kind == EventKind::Nondet ? int64_t(e.value)
                                                  : signedValue(e.kind == EventKind::Rmw ? e.value2 : e.value, e.size);
        if (e.kind == EventKind::Rmw) s.detail = "read " + std::to_string(signedValue(e.value, e.size));
        if (e.kind == EventKind::ThreadCreate) s.detail = "creates thread " + std::to_string(e.value);
        if (e.kind == EventKind::ThreadJoin) s.detail = "joins thread " + std::to_string(e.value);
        if (e.kind == EventKind::TryLock) s.detail = e.value ? "acquired" : "busy";
        if (e.kind == EventKind::Nondet && e.addr2) { // a timed condition wait's choice
            s.variable = names.of(e.addr2);
            s.detail = e.value == program::kTimeOutChoice ? "times out" : "waits for a signal";
        }
        if (e.kind == EventKind::SemTryWait) s.detail = e.value ? "took a unit" : "count was 0";
        if (e.kind == EventKind::SemGetValue) s.detail = "count " + std::to_string(e.value);
        if (e.kind == EventKind::SyncInit && (e.value2 == model::Event::kSemaphore || e.value2 == model::Event::kBarrier))
            s.detail = (e.value2 == model::Event::kBarrier ? "size " : "count ") + std::to_string(e.value);
        if (e.kind == EventKind::BarrierArrive) s.detail = "arrival " + std::to_string(e.value) + " of its round";
        if (e.kind == EventKind::BarrierLeave && e.value) s.detail = "the serial thread";
        if (e.isRwLockOp()) s.detail = e.value2 ? "for writing" : "for reading";
        if (e.kind == EventKind::RwTryLock) s.detail += e.value ? ", acquired" : ", busy";
        // (Named once: the step's detail and its node's label both show it.)
        const bool second = e.kind == EventKind::Copy || e.kind == EventKind::CondWait || e.kind == EventKind::Nondet;
        const std::string_view v2 = second && e.addr2 ? std::string_view(names.of(e.addr2)) : std::string_view();
        if (e.kind == EventKind::Copy) s.detail.append("from ").append(v2);
        if (int(i) == raceA || int(i) == raceB) s.detail += (s.detail.empty() ? "" : "; ") + std::string("racing access");
        report::GraphNode& g = out.graph.nodes.emplace_back(); // in place too
        g.id = uint32_t(i);
        g.thread = e.tid;
        describeEventInto(g.label, e, s.variable, v2);
    }
    // A deadlock ends with the operation each blocked thread waits to perform.
    if (out.kind == report::ErrorKind::Deadlock) {
        for (model::ThreadId t = 0; t < ex.numThreads(); ++t) {
            const exec::ThreadView& v = ex.thread(t);
            if (v.state == exec::ThreadState::Finished) continue;
            // A thread cut at a spin loop, or able to run, spins for good (terminalErrors).
            const bool spins = v.state == exec::ThreadState::Stopped || ex.enabled(t);
            const std::optional<model::Event> spin = spins ? ex.spinsForever(t) : std::nullopt;
            if (spins && !spin) continue;
            report::TraceStep s;
            s.step = uint32_t(out.trace.size() + 1);
            s.thread = t;
            s.location = prog.sourceLocation(spin ? spin->loc : v.pending.loc);
            s.operation = spins ? "spins" : "blocked";
            s.variable = v.state == exec::ThreadState::BlockedJoin || spins ? "" : ex.describeAddress(v.waitObject);
            s.detail = spins ? spinDescription(ex, *spin) : ex.describeBlocked(t);
            out.graph.nodes.push_back({uint32_t(out.graph.nodes.size()), t, s.operation + ": " + s.detail});
            out.trace.push_back(std::move(s));
        }
    }
    // The failing operation itself, when the execution stopped at an error. (Node ids are trace indices: the
    // node's location is its step's.)
    if (cut.error) {
        const uint32_t at = uint32_t(out.trace.size());
        report::TraceStep s;
        s.step = at + 1;
        s.thread = cut.error->thread;
        s.location = prog.sourceLocation(cut.error->loc);
        s.operation = "error";
        s.detail = cut.error->message;
        out.graph.nodes.push_back({at, s.thread, cut.error->message});
        out.trace.push_back(std::move(s));
    }

    auto& edges = out.graph.edges;
    edges.reserve(2 * out.graph.nodes.size());
    // Per thread (ids below numThreads()): its last node and its create event; kNone where there is none yet.
    static constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> lastOf(ex.numThreads(), kNone), createOf(ex.numThreads(), kNone);
    auto slot = [](std::vector<uint32_t>& v, model::ThreadId t) -> uint32_t& {
        if (t >= v.size()) v.resize(t + 1, kNone);
        return v[t];
    };
    std::map<uint64_t, uint32_t> lastUnlock;
    LastWriter lastWriter(std::min<size_t>(4 * events.size(), 4096)); // it grows past that as needed
    for (size_t i = 0; i < out.graph.nodes.size(); ++i) {
        model::ThreadId t = out.graph.nodes[i].thread;
        if (uint32_t last = slot(lastOf, t); last != kNone) edges.push_back({last, uint32_t(i), EdgeKind::ProgramOrder});
        else if (uint32_t c = slot(createOf, t); c != kNone) edges.push_back({c, uint32_t(i), EdgeKind::Sync});
        slot(lastOf, t) = uint32_t(i);
        if (i >= events.size()) continue;
        const Event& e = events[i];
        switch (e.kind) {
        case EventKind::ThreadCreate: slot(createOf, model::ThreadId(e.value)) = uint32_t(i); break;
        case EventKind::ThreadJoin:
            if (uint32_t l = slot(lastOf, model::ThreadId(e.value)); l != kNone)
                edges.push_back({l, uint32_t(i), EdgeKind::Sync});
            break;
        case EventKind::Unlock: lastUnlock[e.addr] = uint32_t(i); break;
        case EventKind::CondWait: lastUnlock[e.addr2] = uint32_t(i); break;
        case EventKind::Lock:
        case EventKind::TryLock:
            if (auto u = lastUnlock.find(e.addr); u != lastUnlock.end() && events[u->second].tid != e.tid)
                edges.push_back({u->second, uint32_t(i), EdgeKind::Sync});
            break;
        // A late initialisation sets the state the next operation finds, as a release (the race detector's reading).
        case EventKind::SyncInit:
            if (e.value2 == model::Event::kCond) break; // (as the race detector: it orders nothing)
            lastUnlock[e.addr] = uint32_t(i);
            if (e.value2 == model::Event::kRwLock) lastUnlock[e.addr + 1] = uint32_t(i);
            break;
        case EventKind::SemPost: // the latest post: what a wait takes
        case EventKind::BarrierArrive: lastUnlock[e.addr] = uint32_t(i); break; // ... the latest arrival
        case EventKind::BarrierLeave:
            if (auto u = lastUnlock.find(e.addr); u != lastUnlock.end() && events[u->second].tid != e.tid)
                edges.push_back({u->second, uint32_t(i), EdgeKind::Sync});
            break;
        // A reader-writer lock: its writers' last release (key addr) and readers' (addr + 1), as the race detector.
        case EventKind::RwUnlock: lastUnlock[e.value2 ? e.addr : e.addr + 1] = uint32_t(i); break;
        case EventKind::RwLock:
        case EventKind::RwTryLock:
            if (e.kind == EventKind::RwTryLock && !e.value) break;
            for (uint64_t key : {e.addr, e.addr + 1}) {
                if (key != e.addr && !e.value2) continue; // a reader waits for no reader
                if (auto u = lastUnlock.find(key); u != lastUnlock.end() && events[u->second].tid != e.tid)
                    edges.push_back({u->second, uint32_t(i), EdgeKind::Sync});
            }
            break;
        case EventKind::SemWait:
        case EventKind::SemTryWait:
            if (auto u = lastUnlock.find(e.addr);
                u != lastUnlock.end() && events[u->second].tid != e.tid && (e.kind == EventKind::SemWait || e.value))
                edges.push_back({u->second, uint32_t(i), EdgeKind::Sync});
            break;
        default: break;
        }
        if (!e.isMemory()) continue;
        // rf: from the latest writer of the first byte read (other threads only: po already orders the rest).
        auto [rlo, rhi] = e.readRange(0);
        if (rlo < rhi) {
            if (const uint32_t* w = lastWriter.find(rlo); w && events[*w].tid != e.tid)
                edges.push_back({*w, uint32_t(i), EdgeKind::ReadsFrom});
        }
        auto [wlo, whi] = e.writeRange();
        if (wlo < whi) {
            if (const uint32_t* w = lastWriter.find(wlo); w && events[*w].tid != e.tid)
                edges.push_back({*w, uint32_t(i), EdgeKind::Coherence});
            for (uint64_t a = wlo; a < whi && a < wlo + 64; ++a) lastWriter.set(a, uint32_t(i));
        }
    }
    if (raceA >= 0 && raceB >= 0) edges.push_back({uint32_t(raceA), uint32_t(raceB), EdgeKind::Race});
}

} // namespace skein::explore
