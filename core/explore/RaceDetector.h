#pragma once
// Happens-before (vector clocks) over one execution, and data-race detection: two accesses to overlapping
// bytes, at least one a write, at least one non-atomic, unordered by happens-before. Synchronisation: mutex
// unlock→lock, thread create→start and finish→join, and under sequential consistency every atomic write→atomic
// read of the same location (release/acquire).
#include <cstdint>
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

private:
    using Clock = std::vector<uint32_t>;
    struct Access {
        uint32_t event;
        model::ThreadId tid;
        uint32_t epoch;
        bool atomic;
    };
    struct Shadow {
        int32_t lastWrite = -1; // index into accesses_
        std::vector<uint32_t> reads; // since the last write
    };
    std::vector<Clock> threads_;
    std::unordered_map<uint64_t, Clock> locks_, atomics_;
    std::unordered_map<uint64_t, Shadow> shadow_;
    std::vector<Access> accesses_;
    std::vector<Race> races_; // of the last event

    Clock& clock(model::ThreadId t);
    static void join(Clock& into, const Clock& from);
    bool ordered(const Access& a, model::ThreadId t) ;
    bool checkRange(uint64_t lo, uint64_t hi, bool write, const Access& acc);
};

} // namespace skein::explore
