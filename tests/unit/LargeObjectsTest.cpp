// Events that touch many words. qpor cuts an object of more than 16 words into segments — runs of words no access
// touches in part, one resource each (core/explore/unfolding/Segments.h) — and gives every other object, and every
// object under `--qpor-resources=words`, a resource per 4-byte word: then a calloc, memset or free of a large buffer
// is an event with thousands of accesses. Defects lived there: the accesses were de-duplicated by a linear search
// (quadratic: a 1 MB calloc never finished), the walk over an event's placements recursed once per access (a 1 MB
// buffer overflowed the stack: the process died), and a memcpy of a buffer another thread memsets took minutes at
// 4 KB (below). Overlapping ranges — a memmove inside one array, strcmp of a string with itself — take the
// de-duplication path, and are checked against dfs. Every qpor check here runs with both kinds of resources
// (`forEachResourceKind`): an object cut too often falls back to words, so that path must stay right and fast.
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

using skein::test::checkSource;
using skein::test::errorKinds;

namespace {

// Runs `body` with qpor's segments on and off (ExploreOptions::qporSegments).
template <class F> void forEachResourceKind(skein::test::Options o, F body) {
    for (const bool segments : {true, false}) {
        SCOPED_TRACE(segments ? "--qpor-resources=segments" : "--qpor-resources=words");
        o.explore.qporSegments = segments;
        body(o);
    }
}

// examples/buffer_workers.c: three workers each write one word of a calloc'd buffer under a mutex, main frees it
// after joining them — 6 traces, one final state (derived in the file). -DWORDS sets the buffer's size.
std::string bufferWorkers() { return skein::test::sourceFile("examples/buffer_workers.c"); }

skein::test::Options withWords(long words, const std::string& algorithm = "dfs") {
    return skein::test::withFlag("-DWORDS=" + std::to_string(words), algorithm);
}

TEST(LargeObjects, QporExploresAMegabyteCallocAndFree) {
    const std::string src = bufferWorkers();
    ASSERT_FALSE(src.empty());
    forEachResourceKind(withWords(262144, "qpor"), [&](const skein::test::Options& o) {
        const auto r = checkSource(src, o); // 1 MB: 262,144 words in the free (words: an access each)
        EXPECT_EQ(r.verdict, skein::report::Verdict::Safe);
        EXPECT_EQ(r.stats.executions, 6u);
        EXPECT_EQ(r.stats.blocked, 0u);
        EXPECT_EQ(r.stats.ssb, 0u);
        EXPECT_EQ(r.stats.finalStates, 1u);
        // Segments: the three workers' words cut the buffer into 7 runs, learned without a restart (each cut lands
        // in a part no access has used yet).
        EXPECT_EQ(r.stats.extra.at("segmented_objects"), o.explore.qporSegments ? 1.0 : 0.0);
        EXPECT_EQ(r.stats.extra.at("segment_restarts"), 0.0);
    });
}

TEST(LargeObjects, QporMatchesDfsOnASmallBuffer) {
    const std::string src = bufferWorkers();
    ASSERT_FALSE(src.empty());
    const auto dfs = checkSource(src, withWords(64));
    ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
    EXPECT_EQ(*dfs.stats.mazurkiewiczTraces, 6u);
    forEachResourceKind(withWords(64, "qpor"), [&](const skein::test::Options& o) {
        const auto q = checkSource(src, o);
        EXPECT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
        EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
        EXPECT_EQ(errorKinds(q), errorKinds(dfs));
    });
}

// One thread memsets a 16 KB buffer while another memcpys it elsewhere: two events of 4,096 words each, the copy
// reading every word the memset writes. Placing the memset before the copy's reads (and the copy's reads before
// the memset) once took minutes: the copy was listed as an optional reader once per word, each level of the
// placement walk re-checked every level above it, and an access was looked up by a scan of 4,096. Found by dfs and
// qpor alike: the race between the two, and one final state per order.
TEST(LargeObjects, ConcurrentMemsetAndMemcpyOfSixteenKilobytes) {
    const std::string src = skein::test::kMemsetMemcpyProgram;
    auto o = skein::test::withFlag("-DSIZE=(1 << 14)");
    const auto dfs = checkSource(src, o);
    ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
    EXPECT_EQ(*dfs.stats.mazurkiewiczTraces, 2u);
    EXPECT_EQ(errorKinds(dfs), std::vector<std::string>{"data_race"});
    o.algorithm = "qpor";
    forEachResourceKind(o, [&](const skein::test::Options& qo) {
        const auto q = checkSource(src, qo);
        EXPECT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
        EXPECT_EQ(q.stats.ssb, 0u);
        EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
        EXPECT_EQ(errorKinds(q), errorKinds(dfs));
    });
}

// An event whose two ranges overlap: a memmove inside one array (its source and destination share words: one access
// per word, a Write), and strcmp of a string with itself (both footprints are the same object: Read accesses once).
// Every explorer mode finds what dfs finds.
TEST(LargeObjects, OverlappingRangesAgreeWithDfs) {
    const std::string src = R"(
        #include <assert.h>
        #include <pthread.h>
        #include <string.h>
        int a[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        char s[8] = "abc";
        int same, first;
        void *mover(void *x) { memmove(a, a + 2, 8 * sizeof(int)); return 0; }
        void *storer(void *x) { a[5] = 70; s[1] = 'z'; return 0; }
        void *reader(void *x) { same = strcmp(s, s); first = a[3]; return 0; }
        int main(void) {
            pthread_t t[3];
            pthread_create(&t[0], 0, mover, 0);
            pthread_create(&t[1], 0, storer, 0);
            pthread_create(&t[2], 0, reader, 0);
            for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
            assert(first != 70);
            return 0;
        })";
    skein::test::Options o;
    o.explore.detectRaces = false; // every access here is plain: the states and the assertion are what is compared
    const auto dfs = checkSource(src, o);
    ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
    ASSERT_GT(dfs.stats.finalStates, 1u);
    // a[3] is 3 before the memmove, then old a[5]: 70 when the store came first — the assertion fails then.
    EXPECT_EQ(errorKinds(dfs), std::vector<std::string>{"assertion"});
    for (const std::string alt : {"optimal", "k2", "sdpor"}) {
        SCOPED_TRACE(alt);
        o.algorithm = "qpor";
        o.explore.alt = alt;
        forEachResourceKind(o, [&](const skein::test::Options& qo) {
            const auto q = checkSource(src, qo);
            EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
            EXPECT_EQ(errorKinds(q), errorKinds(dfs));
            if (alt == "optimal") {
                EXPECT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
                EXPECT_EQ(q.stats.ssb, 0u);
            }
        });
    }
}

// Atomic sections that memset and memcpy 128 KB: a section is one event whose accesses are the union of its steps'
// (Sections.cpp), one per word. That union was built by a scan per access — quadratic: this program took ~19 s
// under qpor (a 256 KB memset in a section, 27 s) where dfs takes a tenth of a second. The two sections commute
// with nothing but each other: two traces, and dst ends all 0 or all 1.
TEST(LargeObjects, SectionsOverLargeBuffersAgreeWithDfs) {
    const std::string src = R"(
        #include <pthread.h>
        #include <stdlib.h>
        #include <string.h>
        void __VERIFIER_atomic_begin(void);
        void __VERIFIER_atomic_end(void);
        char *buf, *dst;
        void *setter(void *a) {
            __VERIFIER_atomic_begin();
            memset(buf, 1, 1 << 17);
            __VERIFIER_atomic_end();
            return 0;
        }
        void *copier(void *a) {
            __VERIFIER_atomic_begin();
            memcpy(dst, buf, 1 << 17);
            __VERIFIER_atomic_end();
            return 0;
        }
        int main(void) {
            pthread_t a, b;
            buf = calloc(1 << 17, 1);
            dst = malloc(1 << 17);
            pthread_create(&a, 0, setter, 0);
            pthread_create(&b, 0, copier, 0);
            pthread_join(a, 0);
            pthread_join(b, 0);
            return 0;
        })";
    const auto dfs = checkSource(src);
    ASSERT_TRUE(dfs.stats.mazurkiewiczTraces.has_value());
    EXPECT_EQ(*dfs.stats.mazurkiewiczTraces, 2u);
    EXPECT_EQ(dfs.stats.finalStates, 2u);
    EXPECT_TRUE(errorKinds(dfs).empty());
    skein::test::Options o;
    o.algorithm = "qpor";
    forEachResourceKind(o, [&](const skein::test::Options& qo) {
        const auto q = checkSource(src, qo);
        EXPECT_EQ(q.verdict, skein::report::Verdict::Safe);
        EXPECT_EQ(q.stats.executions, 2u);
        EXPECT_EQ(q.stats.blocked, 0u);
        EXPECT_EQ(q.stats.ssb, 0u);
        EXPECT_EQ(q.stats.finalStates, 2u);
    });
}

} // namespace
