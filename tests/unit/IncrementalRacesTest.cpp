// The race detector's undo log and qpor's incremental race collection (core/explore/Explorer.h, IncrementalRaces):
// rolled back to a prefix and fed the rest, they must report exactly what a detector fed from the start reports.
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
using skein::model::Event;
using skein::model::EventKind;

// Random event sequences over three threads (created by thread 0 first), two mutexes and a few overlapping byte
// ranges: plain and atomic reads, writes and read-modify-writes, locks, unlocks, a join.
std::vector<Event> randomEvents(std::mt19937& rng, size_t n) {
    std::vector<Event> out;
    auto add = [&](Event e) {
        e.loc = uint32_t(out.size());
        out.push_back(e);
    };
    for (uint32_t t = 1; t <= 2; ++t) {
        Event c;
        c.kind = EventKind::ThreadCreate;
        c.tid = 0;
        c.value = t;
        add(c);
    }
    while (out.size() < n) {
        Event e;
        e.tid = rng() % 3;
        switch (rng() % 8) {
        case 0: e.kind = EventKind::Lock; e.addr = 1000 + rng() % 2; break;
        case 1: e.kind = EventKind::Unlock; e.addr = 1000 + rng() % 2; break;
        case 2: e.kind = EventKind::Rmw; break;
        case 3:
        case 4: e.kind = EventKind::Write; break;
        default: e.kind = EventKind::Read; break;
        }
        if (e.kind != EventKind::Lock && e.kind != EventKind::Unlock) {
            e.addr = 64 + rng() % 6;
            e.size = 1u << (rng() % 3); // 1, 2 or 4 bytes: ranges overlap in part
            e.atomic = rng() % 3 == 0;
        }
        if (rng() % 40 == 0 && e.tid == 0) {
            e = Event{};
            e.kind = EventKind::ThreadJoin;
            e.tid = 0;
            e.value = 1 + rng() % 2;
        }
        add(e);
    }
    return out;
}

// The races each event reports, as (first, second) pairs.
std::vector<std::vector<std::pair<uint32_t, uint32_t>>> feed(RaceDetector& d, const std::vector<Event>& evs,
                                                             size_t from) {
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> out;
    for (size_t i = from; i < evs.size(); ++i) {
        d.onEvent(evs[i], uint32_t(i));
        auto& races = out.emplace_back();
        for (const auto& r : d.races()) races.push_back({r.first, r.second});
    }
    return out;
}

TEST(RaceDetectorUndo, RollbackThenFeedReportsWhatAFreshDetectorReports) {
    std::mt19937 rng(7);
    int racesCompared = 0;
    for (int round = 0; round < 400; ++round) {
        RaceDetector kept;
        kept.keepUndo(true);
        std::vector<Event> fed = randomEvents(rng, 4 + rng() % 30);
        feed(kept, fed, 0);
        // Several rollbacks in a row, each to a prefix of what was fed last, then a different suffix.
        for (int step = 0; step < 4; ++step) {
            const size_t keep = rng() % (fed.size() + 1);
            kept.rollback(keep);
            ASSERT_EQ(kept.fed(), keep);
            std::vector<Event> next(fed.begin(), fed.begin() + long(keep));
            for (const Event& e : randomEvents(rng, 4 + rng() % 30))
                if (e.kind != EventKind::ThreadCreate) next.push_back(e);
            for (size_t i = 0; i < next.size(); ++i) next[i].loc = uint32_t(i);
            const auto got = feed(kept, next, keep);
            RaceDetector fresh;
            const auto want = feed(fresh, next, 0);
            ASSERT_EQ(got.size() + keep, want.size());
            for (size_t i = 0; i < got.size(); ++i) {
                ASSERT_EQ(got[i], want[keep + i]) << "round " << round << ", rollback " << step << ", event "
                                                  << keep + i;
                racesCompared += int(got[i].size());
            }
            fed = std::move(next);
        }
    }
    EXPECT_GT(racesCompared, 1000) << "the sequences must race often enough to compare something";
}

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
    EXPECT_GT(programsWithRaces, checked / 10) << "enough random programs must race for the comparison to mean something";
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

} // namespace
