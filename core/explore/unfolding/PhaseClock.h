#pragma once
// Time per phase of the qpor explorer (QporImpl.h), sampled. A template over its tick source so that the sampling
// can be tested against a fake clock (tests/unit/PhaseClockTest.cpp).
#include <algorithm>
#include <chrono>
#include <cstdint>

namespace skein::explore::unfolding {

// Per-phase time accounting (issue 3's split: running the program, en(C), the comb, cex(C); `Other` is the rest:
// setting up, the errors, races and counterexamples of maximal configurations, popping the stack). A phase lasts
// from the switch into it to the next switch. The clock is the CPU's time-stamp counter, ~12 ns a reading here (AMD
// EPYC under Firecracker), where clock_gettime costs ~33 ns; read at every switch — about four per explored event, 46
// in an exploration of use_after_free — it was 3-5 % of a small exploration (17.8 → 16.9 µs with no readings at
// all).
//
// So the phases are sampled: about one interval between two switches in kMeanGap is timed, its start and its end
// read, and each phase's share of the sampled ticks is taken as its share of the exploration's elapsed time. The
// gaps between sampled intervals are drawn at random (uniform in 1..2·kMeanGap−1, from a xorshift generator with a
// fixed seed: every run samples the same switches), so that a periodic sequence of phases — en(C), execute, cex(C),
// en(C), … — cannot line up with the sampling; every switch then starts a sampled interval with the same
// probability, whatever its phase, and the estimate is unbiased. The first interval is always sampled, so that even
// an exploration of a few events reports a split.
template <class Ticks> class BasicPhaseClock {
public:
    enum Phase : uint8_t { Other, Execute, Extensions, Comb, Cex, kPhases };
    static constexpr uint32_t kMeanGap = 8;
    // `start` is when the exploration started (its elapsed time counts from there): the time until this clock is
    // built — the executor and the explorer set up, much of a cold exploration of a few events — is Other's.
    explicit BasicPhaseClock(std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now())
        : setupMs_(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()) {}
    // Ends the current phase and starts p.
    void enter(Phase p) {
        if (open_) [[unlikely]] {
            spent_[current_] += Ticks::now() - start_;
            open_ = false;
        }
        if (--countdown_ == 0) [[unlikely]] {
            rng_ ^= rng_ << 13, rng_ ^= rng_ >> 17, rng_ ^= rng_ << 5;
            countdown_ = 1 + rng_ % (2 * kMeanGap - 1);
            start_ = Ticks::now();
            open_ = true;
        }
        current_ = p;
    }
    // The estimated time spent in p of an exploration that took `elapsedMs` from its start: the set-up time for
    // Other, and the rest shared out by the sampled ticks. The phases add up to `elapsedMs`.
    double ms(Phase p, double elapsedMs) const {
        const double setup = std::min(setupMs_, elapsedMs);
        uint64_t sampled = 0;
        for (uint64_t t : spent_) sampled += t;
        const double shared = sampled ? double(spent_[p]) * (elapsedMs - setup) / double(sampled)
                                      : (p == Other ? elapsedMs - setup : 0);
        return shared + (p == Other ? setup : 0);
    }

private:
    double setupMs_;
    uint64_t start_ = 0;
    uint64_t spent_[kPhases] = {};
    uint32_t countdown_ = 1; // switches until the next sampled interval starts
    uint32_t rng_ = 0x9E3779B9u;
    bool open_ = false; // the current interval is sampled
    Phase current_ = Other;
};

// The CPU's time-stamp counter where there is one.
struct TscTicks {
    static uint64_t now() {
#if defined(__x86_64__)
        return __builtin_ia32_rdtsc();
#else
        return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
    }
};
using PhaseClock = BasicPhaseClock<TscTicks>;

} // namespace skein::explore::unfolding
