// qpor's incremental race collection (core/explore/Explorer.h, IncrementalRaces): rolled back to a prefix and fed the
// rest, it must report exactly what a detector fed from the start reports. (The detector's own undo log is checked
// against a per-byte reference in RaceDetectorTest.cpp.)
#include <cstdio>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/exec/Executor.h"
#include "core/explore/Explorer.h"
#include "core/explore/RaceDetector.h"
#include "tests/unit/RandomPrograms.h"

namespace {

using skein::explore::RaceDetector;

// Executions that share prefixes, as qpor's maximal configurations do: the same errors, occurrence counts and
// counterexamples from IncrementalRaces as from collectErrors run on every execution from the start.
// SKEIN_DIFF_PROGRAMS=N checks N programs (default 150) and SKEIN_DIFF_SEED picks the first seed, as in
// DifferentialTest.cpp.
void incrementalAgreesWithFromStart(const skein::testing::GeneratorFlags& flags, int programs) {
    using skein::testing::envNumber;
    using skein::testing::forEachSmallProgram;
    int programsWithRaces = 0;
    const int checked = forEachSmallProgram(
        flags, int(envNumber("SKEIN_DIFF_PROGRAMS", programs)), uint32_t(envNumber("SKEIN_DIFF_SEED", 1)), 20000,
        [&](uint32_t seed, const std::string&, const skein::program::Program& prog,
            const skein::explore::ExploreOptions& options, const skein::report::CheckResult&) {
            std::mt19937 rng(seed);
            skein::explore::ErrorCollector fromStart(options, nullptr), incremental(options, nullptr);
            RaceDetector detector;
            skein::explore::IncrementalRaces races;
            skein::exec::Executor ex(prog, {});
            std::vector<skein::report::Decision> schedule, previous;
            for (int run = 0; run < 12; ++run) {
                ex.reset();
                schedule.assign(previous.begin(), previous.begin() + long(rng() % (previous.size() + 1)));
                for (const auto& d : schedule) ex.step(d.thread, d.choice);
                for (;;) {
                    std::vector<uint32_t> enabled;
                    for (uint32_t t = 0; t < ex.numThreads(); ++t)
                        if (ex.enabled(t)) enabled.push_back(t);
                    if (enabled.empty() || ex.status() != skein::exec::ExecStatus::Running) break;
                    const uint32_t t = enabled[rng() % enabled.size()];
                    const uint32_t choice = rng() % ex.thread(t).choices;
                    schedule.push_back({t, choice});
                    ex.step(t, choice);
                }
                const bool a = skein::explore::collectErrors(fromStart, &detector, ex, schedule);
                const bool b = races.collect(incremental, true, ex, schedule);
                ASSERT_EQ(a, b) << "run " << run;
                previous = schedule;
            }
            auto want = fromStart.take(), got = incremental.take();
            ASSERT_EQ(got.size(), want.size());
            bool raced = false;
            for (size_t i = 0; i < want.size(); ++i) {
                SCOPED_TRACE("error " + std::to_string(i) + ": " + want[i].message);
                raced |= want[i].kind == skein::report::ErrorKind::DataRace;
                EXPECT_EQ(got[i].kind, want[i].kind);
                EXPECT_EQ(got[i].message, want[i].message);
                EXPECT_EQ(got[i].location.line, want[i].location.line);
                EXPECT_EQ(got[i].occurrences, want[i].occurrences);
                ASSERT_EQ(got[i].trace.size(), want[i].trace.size());
                for (size_t s = 0; s < want[i].trace.size(); ++s) {
                    EXPECT_EQ(got[i].trace[s].detail, want[i].trace[s].detail);
                    EXPECT_EQ(got[i].trace[s].variable, want[i].trace[s].variable);
                }
                EXPECT_EQ(got[i].graph.edges.size(), want[i].graph.edges.size());
            }
            programsWithRaces += raced;
        });
    std::printf("incremental races: %d programs checked, %d with a data race\n", checked, programsWithRaces);
    EXPECT_GT(programsWithRaces, checked / 10)
        << "enough random programs must race for the comparison to mean something";
}

TEST(IncrementalRaces, SameErrorsAsCollectErrorsOnExecutionsSharingPrefixes) {
    incrementalAgreesWithFromStart(skein::testing::GeneratorFlags{}, 150);
}

// With condition variables, a heap object threads may free, and library and mixed-size accesses (memcpy, memset,
// string functions, a union read at several widths): races on some bytes of an access and not others.
TEST(IncrementalRaces, SameErrorsWithConditionVariablesHeapAndMixedSizes) {
    skein::testing::GeneratorFlags flags;
    flags.condVars = true;
    flags.heap = true;
    flags.memory = true;
    incrementalAgreesWithFromStart(flags, 100);
}

// With semaphores and a barrier initialised after the first worker was created: a late initialisation replaces
// the clocks its object's operations released (RaceDetector::onEvent, SyncInit), and a rollback past it must restore
// them. Mutexes destroyed while workers run are in them too (SyncDestroy orders nothing).
TEST(IncrementalRaces, SameErrorsWithLateInitialisations) {
    skein::testing::GeneratorFlags flags;
    flags.semaphores = true;
    flags.barriers = true;
    flags.lateInit = true;
    flags.lateDestroy = true;
    incrementalAgreesWithFromStart(flags, 100);
}

} // namespace
