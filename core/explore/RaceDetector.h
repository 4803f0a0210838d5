#pragma once
// Happens-before (vector clocks) over one execution, and data-race detection: two accesses to overlapping
// bytes, at least one a write, at least one non-atomic, unordered by happens-before. Synchronisation: mutex
// unlock→lock, thread create→start and finish→join, and under sequential consistency every atomic write→atomic
// read of the same location (release/acquire).
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/model/Event.h"

namespace skein::explore {

class RaceDetector {
public:
    struct Race {
        uint32_t first, second; // indices into the execution's event sequence
    };
    void reset();
    // Feed each executed event in order. Returns true when it races with an earlier one; races() lists every
    // earlier access it races with, each once, in the order met (bytes in address order, reads before writes).
    bool onEvent(const model::Event& e, uint32_t index);
    const std::vector<Race>& races() const { return races_; }

    // Rolling back, for an explorer whose consecutive executions share a prefix (qpor: IncrementalRaces). With
    // undo kept, every change an event makes is logged, so that rollback(n) returns the detector to its state
    // after the first n events fed since the reset, for less than feeding those n again.
    // The log points into this detector's own shadow and clocks: a copy (vhb keeps copies in its snapshots) is only
    // meaningful without undo kept.
    void keepUndo(bool on) { undo_ = on; }
    // Buffers for a trace of about `events` events touching about `bytes` bytes, sized once rather than grown by
    // doubling from one element (qpor's detector lives for one exploration: IncrementalRaces).
    void reserve(size_t events, size_t bytes) {
        accesses_.reserve(events);
        shadow_.reserve(bytes / (4 * kBlockWords) + 1);
        if (undo_) {
            log_.reserve(events);
            marks_.reserve(events);
        }
    }
    size_t fed() const { return marks_.size(); } // events fed since the reset (with undo kept)
    void rollback(size_t n);

private:
    using Clock = std::vector<uint32_t>;
    struct Access {
        uint32_t event;
        model::ThreadId tid;
        uint32_t epoch;
        bool atomic;
    };
    // The state of a byte: its last write and the reads since, one per thread.
    struct Shadow {
        int32_t lastWrite = -1; // index into accesses_
        int32_t split = -1;     // a word's: its bytes' own states, splits_[split], once an access covered part of it
        std::vector<uint32_t> reads; // since the last write
    };
    // The shadow is kept per aligned 4-byte word, the unit of nearly every access: a word's four bytes share one
    // state until an access covers only some of them (a char of an int, the tail of a memcpy), and from then on the
    // word has a state per byte. Reports are those of a state per byte: a word's bytes visited one by one would meet
    // the same accesses in the same order, and an event's races are listed once each, in the order first met. Words
    // come in blocks of kBlockWords, one hash-map node each, so that a range (an int array, a memset, a free) takes
    // one look-up per block, not one per byte: on a 16 KB buffer the map's per-byte nodes were nearly all of a run.
    static constexpr uint64_t kBlockWords = 8;
    using Block = std::array<Shadow, kBlockWords>;
    std::vector<Clock> threads_;
    std::unordered_map<uint64_t, Clock> locks_, atomics_;
    // A barrier's clock per round (the round is the events' value2): a departure acquires its own round's arrivals
    // only. One clock for every round made a departure also acquire what a thread did before arriving at the next
    // round — an arrival the departure commutes with, so that an explorer running one order of the two missed the
    // race the other order shows (tests/corpus/threads/barrier_race_next_round.c).
    std::map<std::pair<uint64_t, uint64_t>, Clock> barrierRounds_;
    std::unordered_map<uint64_t, Block> shadow_; // by address / (4 · kBlockWords)
    std::deque<std::array<Shadow, 4>> splits_;   // a deque: the undo log points into it while it grows
    std::vector<Access> accesses_;
    std::vector<Race> races_; // of the last event

    // The undo log. A clock entry of 0 and an absent one mean the same (epochs start at 1), as do an empty clock
    // or shadow and an absent one: growing a clock or adding a map entry needs no undo. `at` names what changed:
    // a thread id for ThreadEntry (threads_ may move its clocks), else the clock or shadow itself (the elements of
    // an unordered_map or a map stay where they are until erased, and only reset() erases), so that undoing looks
    // nothing up.
    struct Undo {
        enum class Kind : uint8_t {
            ThreadEntry, // threads_[at][idx] was `old`
            ClockEntry,  // (*Clock*)at)[idx] was `old` (an atomic location's clock)
            LockClock,   // *(Clock*)at was saved_.back()
            LastWrite,   // ((Shadow*)at)->lastWrite was int32_t(old)
            Reads,       // ((Shadow*)at)->reads was saved_.back() (a write cleared it)
            ReadAt,      // ((Shadow*)at)->reads[idx] was `old`
            ReadPush,    // ((Shadow*)at)->reads had one read less
            Split,       // the word (Shadow*)at had no state per byte (splits_.back() is its)
        };
        Kind kind;
        uint32_t idx = 0, old = 0;
        uintptr_t at = 0;
    };
    struct Mark { // before each event fed
        size_t log, saved, accesses;
    };
    bool undo_ = false;
    std::vector<Undo> log_;
    std::vector<Clock> saved_; // the vectors LockClock and Reads replaced, in log order
    std::vector<Mark> marks_;

    Clock& clock(model::ThreadId t);
    // into ⊔= from; `kind` and `at` name `into` for the undo log (ThreadEntry or ClockEntry).
    void join(Clock& into, const Clock& from, Undo::Kind kind, uintptr_t at);
    bool ordered(const Access& a, model::ThreadId t) ;
    bool checkRange(uint64_t lo, uint64_t hi, bool write, const Access& acc);
    struct Met { // what one checkRange has met so far
        bool raced = false;
        int32_t lastWrite = -1; // the last write reported (or found ordered) for this range
    };
    // One byte's (or a whole word's) state met by an access: reports the races, then records the access.
    void visit(Shadow& s, bool write, uint32_t self, const Access& acc, Met& met);
    std::array<Shadow, 4>& split(Shadow& word);
};

} // namespace skein::explore
