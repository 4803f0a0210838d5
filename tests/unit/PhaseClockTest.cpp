// The qpor explorer's sampled phase times (core/explore/unfolding/PhaseClock.h), against a fake tick source: each
// phase's estimated share of the time must be its true share, also when the sequence of phases is periodic with a
// period that a fixed sampling gap would line up with.
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/PhaseClock.h"

namespace {

struct FakeTicks {
    static inline uint64_t t = 0;
    static uint64_t now() { return t; }
};
using Clock = skein::explore::unfolding::BasicPhaseClock<FakeTicks>;

struct Step {
    Clock::Phase phase;
    uint64_t ticks; // how long the phase lasts
};

// Runs `pattern` `rounds` times and returns each phase's estimated share of the time, and its true share.
std::pair<std::array<double, Clock::kPhases>, std::array<double, Clock::kPhases>>
shares(const std::vector<Step>& pattern, int rounds) {
    Clock clock;
    std::array<double, Clock::kPhases> truth{};
    double total = 0;
    for (int r = 0; r < rounds; ++r)
        for (const Step& s : pattern) {
            clock.enter(s.phase);
            FakeTicks::t += s.ticks;
            truth[s.phase] += double(s.ticks);
            total += double(s.ticks);
        }
    clock.enter(Clock::Other); // closes the last phase
    std::array<double, Clock::kPhases> est{};
    double sum = 0;
    for (int p = 0; p < Clock::kPhases; ++p) sum += est[p] = clock.ms(Clock::Phase(p), total);
    for (int p = 0; p < Clock::kPhases; ++p) est[p] /= sum, truth[p] /= total;
    return {est, truth};
}

TEST(PhaseClock, SharesOfAnExplorationLikeSequence) {
    // en(C), execute, cex(C) per event, with a comb and the errors of a maximal configuration now and then.
    std::vector<Step> pattern = {{Clock::Extensions, 50}, {Clock::Execute, 20}, {Clock::Cex, 30},
                                 {Clock::Extensions, 50}, {Clock::Execute, 20}, {Clock::Cex, 30},
                                 {Clock::Other, 40},      {Clock::Comb, 60}};
    auto [est, truth] = shares(pattern, 20000);
    for (int p = 0; p < Clock::kPhases; ++p) EXPECT_NEAR(est[p], truth[p], 0.01) << "phase " << p;
    EXPECT_NEAR(truth[Clock::Extensions], 0.3333, 0.001); // the pattern's own arithmetic: 100 of 300
}

TEST(PhaseClock, APeriodThatAFixedGapWouldAliasIsEstimatedRight) {
    // Sixteen switches a round, one of them long: sampling every kMeanGap-th switch would time either that one in
    // every round or never.
    std::vector<Step> pattern(16, Step{Clock::Execute, 10});
    pattern[5] = {Clock::Comb, 1000};
    auto [est, truth] = shares(pattern, 20000);
    EXPECT_NEAR(est[Clock::Comb], truth[Clock::Comb], 0.02);
    EXPECT_NEAR(est[Clock::Execute], truth[Clock::Execute], 0.02);
}

TEST(PhaseClock, AFewSwitchesStillGiveASplit) {
    auto [est, truth] = shares({{Clock::Execute, 10}, {Clock::Extensions, 10}}, 1);
    double sum = 0;
    for (double e : est) sum += e;
    EXPECT_NEAR(sum, 1.0, 1e-9); // the first interval is always sampled: never an all-zero split
}

TEST(PhaseClock, TheSetUpBeforeTheClockIsOthersAndThePhasesAddUpToTheElapsedTime) {
    // Built 5 ms after the exploration started (the executor and the explorer set up): those 5 ms are Other's, and
    // the sampled ticks share out the rest of the 20 ms.
    Clock clock(std::chrono::steady_clock::now() - std::chrono::milliseconds(5));
    clock.enter(Clock::Execute);
    FakeTicks::t += 300;
    clock.enter(Clock::Extensions);
    FakeTicks::t += 100;
    clock.enter(Clock::Other);
    const double elapsed = 20;
    double sum = 0;
    for (int p = 0; p < Clock::kPhases; ++p) sum += clock.ms(Clock::Phase(p), elapsed);
    EXPECT_NEAR(sum, elapsed, 1e-9);
    // Only the first interval (Execute) is sampled for sure; the second may be: Execute's share of the 15 ms is 1
    // or 3/4, the setup's 5 ms go to Other, and at most a few microseconds pass between `now()` and the clock.
    const double execute = clock.ms(Clock::Execute, elapsed);
    EXPECT_TRUE(std::abs(execute - 15) < 0.01 || std::abs(execute - 11.25) < 0.01) << execute;
    EXPECT_NEAR(clock.ms(Clock::Other, elapsed), 5, 0.01);
}

} // namespace
