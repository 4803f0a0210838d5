// qpor's segments (core/explore/unfolding/Segments.h): an object of more than 16 words is cut into runs of words
// that no access touches in part, one resource each, learned as accesses come; a cut inside a segment already used
// makes the exploration start over. The dependence must stay exactly dfs's (per word): random programs over two
// large objects — element reads and writes, bytes, memset/memcpy/memmove of sub-ranges, some under a mutex, in
// every order of first touches, so that cuts and restarts happen, some in atomic sections — against the dfs oracle
// in every mode.
// SKEIN_DIFF_PROGRAMS=N runs N programs (default 300); SKEIN_DIFF_SEED picks the first seed.
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/Segments.h"
#include "tests/unit/RandomPrograms.h"
#include "tests/unit/TestSupport.h"

namespace {

using skein::explore::unfolding::Segments;

constexpr uint64_t kObject = uint64_t(7) << 32; // a pointer to offset 0 of object 7

std::vector<uint64_t> resources(Segments& s, uint64_t offset, uint64_t size, uint64_t objectSize, bool* ok = nullptr) {
    std::vector<uint64_t> out;
    const bool r = s.forEach(kObject + offset, size, [&] { return objectSize; },
                             [&](uint64_t a) { out.push_back(a - kObject); });
    if (ok) *ok = r;
    return out;
}

TEST(Segments, SmallObjectsKeepAResourcePerWord) {
    Segments s;
    s.startExploration();
    EXPECT_EQ(resources(s, 0, 16, 64), (std::vector<uint64_t>{0, 4, 8, 12}));
    EXPECT_EQ(resources(s, 6, 1, 64), (std::vector<uint64_t>{4})); // a byte: its word
    EXPECT_EQ(s.segmentedObjects(), 0u);
}

TEST(Segments, LargeObjectsAreCutWhereAccessesBeginAndEnd) {
    Segments s;
    s.startExploration();
    // An element, then the whole object: the element's word, then the three segments around and including it.
    EXPECT_EQ(resources(s, 40, 4, 4096), (std::vector<uint64_t>{40}));
    EXPECT_EQ(resources(s, 0, 4096, 4096), (std::vector<uint64_t>{0, 40, 44}));
    EXPECT_EQ(s.segmentedObjects(), 1u);
    // Bytes round to their words; a range inside an unused part of the object cuts it freely.
    EXPECT_EQ(resources(s, 41, 2, 4096), (std::vector<uint64_t>{40}));
    bool ok = false;
    // [44, 4096) was used by the whole-object access: cutting it at 100 and 104 needs a new exploration.
    resources(s, 100, 4, 4096, &ok);
    EXPECT_FALSE(ok);
    EXPECT_TRUE(s.restart());
    s.startExploration();
    EXPECT_EQ(resources(s, 0, 4096, 4096, &ok), (std::vector<uint64_t>{0, 40, 44, 100, 104}));
    EXPECT_TRUE(ok);
    EXPECT_EQ(resources(s, 100, 4, 4096, &ok), (std::vector<uint64_t>{100}));
    EXPECT_TRUE(ok);
    EXPECT_EQ(s.restarts(), 1u);
    EXPECT_FALSE(s.restart()); // nothing pending
}

TEST(Segments, ObjectsCutTooOftenFallBackToWords) {
    Segments s;
    s.startExploration();
    resources(s, 0, 1024, 1024);
    // Every element after the whole: a restart each until the object has kMaxCuts cuts, then words.
    uint32_t restarts = 0;
    for (uint64_t off = 4; off < 1024 && restarts <= Segments::kMaxRestarts + 1; off += 8) {
        bool ok = true;
        resources(s, off, 4, 1024, &ok);
        if (!ok) {
            ASSERT_TRUE(s.restart());
            ++restarts;
            s.startExploration();
            resources(s, 0, 1024, 1024);
        }
    }
    EXPECT_LE(s.restarts(), Segments::kMaxRestarts);
    EXPECT_EQ(s.segmentedObjects(), 0u);
    EXPECT_EQ(resources(s, 8, 8, 1024), (std::vector<uint64_t>{8, 12}));
}

// A memset of the whole array first, then single elements by two threads under a mutex: the element writes cut
// segments the memset used (a restart each), and the counts are dfs's.
const char* const kElementsAfterWholeArray = R"(
        #include <pthread.h>
        #include <string.h>
        int a[64];
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        void *w(void *x) {
            long i = (long)x;
            pthread_mutex_lock(&m);
            a[10 * i + 3] = a[10 * i + 5] + 1;
            pthread_mutex_unlock(&m);
            a[40 + i] = 1;
            return 0;
        }
        int main(void) {
            pthread_t t[2];
            memset(a, 0, sizeof a);
            for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)i);
            memset(a + 48, 2, 8 * sizeof(int));
            for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
            memset(a, 0, sizeof a);
            return 0;
        })";

TEST(Segments, ElementsAfterAWholeArrayOperationAgreeWithDfs) {
    const std::string src = kElementsAfterWholeArray;
    const auto dfs = skein::test::checkSource(src);
    ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
    for (const std::string alt : {"optimal", "k2", "sdpor"}) {
        SCOPED_TRACE(alt);
        skein::test::Options o;
        o.algorithm = "qpor";
        o.explore.alt = alt;
        const auto q = skein::test::checkSource(src, o);
        EXPECT_EQ(skein::testing::errorSet(q), skein::testing::errorSet(dfs));
        EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
        if (alt == "optimal") {
            EXPECT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
            EXPECT_EQ(q.stats.ssb, 0u);
        }
        EXPECT_EQ(q.stats.extra.at("segmented_objects"), 1.0);
        // The first memset used all of a, so each later access with an end not yet cut starts the exploration over,
        // once per access (both its ends are cut at once): a[5], a[3], a[40], the memset of a[48..56), a[15],
        // a[13], a[41] — 7 restarts.
        EXPECT_EQ(q.stats.extra.at("segment_restarts"), 7.0);
        EXPECT_EQ(q.stats.extra.at("section_restarts"), 0.0); // restarts of another cause, counted apart
    }
}

// The time budget covers every attempt: with none left when an attempt stops to start over, the answer is that
// attempt's, bounded — not a new attempt (before, each attempt had a budget of its own).
TEST(Segments, NoRestartPastTheTimeBudget) {
    skein::test::Options o;
    o.algorithm = "qpor";
    o.explore.timeLimitSeconds = 1e-9; // spent before the first cut
    const auto q = skein::test::checkSource(kElementsAfterWholeArray, o);
    EXPECT_TRUE(q.stoppedEarly);
    EXPECT_EQ(q.verdict, skein::report::Verdict::Bounded);
    EXPECT_EQ(q.stats.extra.at("segment_restarts"), 0.0);
    ASSERT_FALSE(q.bounds.empty());
    EXPECT_EQ(q.bounds.back().what, "time budget reached (--time-limit)");
}

// Random programs: two threads (sometimes three) over `int a[24]` (a global) and `int *h` (32 ints on the heap), each a few
// of: an element written or read (the value kept for the final state), a byte written, memset/memcpy/memmove of a
// sub-range; some under a mutex, some two to an SV-COMP atomic section (a section's footprint names segments, and a
// restart drops what was learned of sections); main may write elements before the threads start and asserts on an
// element after joining them.
std::string randomProgram(uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
    std::ostringstream o;
    o << "#include <assert.h>\n#include <pthread.h>\n#include <stdlib.h>\n#include <string.h>\n"
      << "void __VERIFIER_atomic_begin(void);\nvoid __VERIFIER_atomic_end(void);\n"
      << "int a[24];\nint *h;\nint r[12];\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n";
    int reads = 0;
    auto obj = [&] { return pick(3) ? std::string("a") : std::string("h"); };
    auto size = [&](const std::string& x) { return x == "a" ? 24 : 32; };
    auto op = [&]() {
        std::ostringstream s;
        const std::string x = obj();
        const int n = size(x);
        switch (pick(7)) {
        case 0:
        case 1: s << x << "[" << pick(n) << "] = " << 1 + pick(3) << ";"; break;
        case 2:
            if (reads < 12) s << "r[" << reads++ << "] = " << x << "[" << pick(n) << "];";
            else s << x << "[" << pick(n) << "] = 5;";
            break;
        case 3: s << "((char *)" << x << ")[" << pick(4 * n) << "] = " << pick(3) << ";"; break;
        case 4: {
            const int len = 1 + pick(10), at = pick(n - len + 1);
            s << "memset(" << x << " + " << at << ", " << pick(2) << ", " << len << " * sizeof(int));";
            break;
        }
        case 5: {
            const std::string y = x == "a" ? "h" : "a";
            const int len = 1 + pick(8);
            s << "memcpy(" << x << " + " << pick(n - len + 1) << ", " << y << " + " << pick(size(y) - len + 1) << ", "
              << len << " * sizeof(int));";
            break;
        }
        default: {
            const int len = 1 + pick(8);
            s << "memmove(" << x << " + " << pick(n - len + 1) << ", " << x << " + " << pick(n - len + 1) << ", "
              << len << " * sizeof(int));";
        }
        }
        return s.str();
    };
    const int threads = 2 + (pick(4) == 0);
    for (int t = 0; t < threads; ++t) {
        o << "void *t" << t << "(void *arg) {\n";
        const int ops = 1 + pick(3);
        for (int i = 0; i < ops; ++i) {
            const int how = pick(6);
            if (how < 2) o << "  pthread_mutex_lock(&m); " << op() << " pthread_mutex_unlock(&m);\n";
            else if (how == 2) o << "  __VERIFIER_atomic_begin(); " << op() << " " << op() << " __VERIFIER_atomic_end();\n";
            else o << "  " << op() << "\n";
        }
        o << "  return 0;\n}\n";
    }
    o << "int main(void) {\n  pthread_t t[" << threads << "];\n  h = calloc(32, sizeof(int));\n";
    if (pick(2)) o << "  " << op() << "\n";
    for (int t = 0; t < threads; ++t) o << "  pthread_create(&t[" << t << "], 0, t" << t << ", 0);\n";
    if (pick(2)) o << "  " << op() << "\n";
    for (int t = 0; t < threads; ++t) o << "  pthread_join(t[" << t << "], 0);\n";
    o << "  assert(a[" << pick(24) << "] != " << 1 + pick(3) << ");\n";
    if (pick(2)) o << "  free(h);\n";
    o << "  return 0;\n}\n";
    return o.str();
}

TEST(Segments, QporModesAgreeWithDfsOnRandomProgramsOverLargeObjects) {
    const int programs = int(skein::testing::envNumber("SKEIN_DIFF_PROGRAMS", 300));
    int restarted = 0;
    const int checked = skein::testing::forEachGeneratedProgram(
        randomProgram, programs, uint32_t(skein::testing::envNumber("SKEIN_DIFF_SEED", 1)), 20000,
        [&](uint32_t, const std::string&, const skein::program::Program& prog,
            const skein::explore::ExploreOptions& options, const skein::report::CheckResult& dfs) {
            ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
            skein::explore::ExploreOptions o = options;
            for (const char* mode : {"optimal", "k2", "sdpor"}) {
                SCOPED_TRACE(std::string("--alt=") + mode);
                o.alt = mode;
                const auto q = skein::explore::findExplorer("qpor")->run(prog, o, nullptr);
                ASSERT_FALSE(q.explorerLimit);
                ASSERT_EQ(skein::testing::errorSet(q), skein::testing::errorSet(dfs));
                ASSERT_EQ(q.stats.finalStates, dfs.stats.finalStates);
                if (std::string(mode) == "optimal") {
                    ASSERT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
                    ASSERT_EQ(q.stats.ssb, 0u);
                    ASSERT_GE(q.stats.extra.at("segmented_objects"), 1.0);
                    if (q.stats.extra.at("segment_restarts") > 0) ++restarted;
                }
            }
        });
    // The oracle must have checked most programs, and the restart path must have been taken.
    EXPECT_GE(checked, programs / 2);
    EXPECT_GE(restarted, 1);
    std::printf("segments: %d programs checked against dfs, %d with restarts\n", checked, restarted);
}

} // namespace
