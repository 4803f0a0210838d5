// String functions whose ranges move with the bytes they find (model::Event::span): every explorer must see a
// strlen's dependence on the whole buffer, and its range must be that of the state it runs in
// (Executor::refreshRanges). Enumerated, not random: the bug these guard against needs three threads in one
// pattern (a strlen reached early, a strcpy that lengthens the string, a store past the old end), which random
// programs almost never build.
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

using skein::test::checkSource;

namespace {

// main takes strlen(sb) once (into a global, so the length is part of the final state) while one thread copies a
// string into sb and another stores one byte of it.
std::string program(const std::string& copied, int index, const std::string& byte) {
    std::string copy = copied.empty() ? "" : "strcpy(sb, \"" + copied + "\");";
    return R"(
        #include <pthread.h>
        #include <string.h>
        char sb[8] = "ab";
        unsigned long n;
        void *copier(void *a) { )" + copy + R"( return 0; }
        void *storer(void *a) { sb[)" + std::to_string(index) + "] = " + byte + R"(; return 0; }
        int main() {
            pthread_t x, y;
            pthread_create(&x, 0, copier, 0);
            pthread_create(&y, 0, storer, 0);
            n = strlen(sb);
            pthread_join(x, 0);
            pthread_join(y, 0);
            return 0;
        })";
}

TEST(StringRanges, ExplorersAgreeWithDfsWhenStoresMoveTheNul) {
    int programs = 0;
    for (const std::string copied : {"", "ab", "xyz12"})
        for (int index : {2, 3, 4, 5})
            for (const std::string byte : {"'c'", "0"}) {
                const std::string src = program(copied, index, byte);
                SCOPED_TRACE(src);
                skein::test::Options o;
                o.explore.detectRaces = false; // the races are plain; the lengths are what is compared
                const auto dfs = checkSource(src, o);
                ASSERT_TRUE(dfs.stats.mazurkiewiczTraces && dfs.stats.finalStates);
                o.algorithm = "qpor";
                const auto q = checkSource(src, o);
                EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
                EXPECT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
                EXPECT_EQ(q.stats.ssb, 0u);
                o.algorithm = "vhb";
                const auto v = checkSource(src, o);
                EXPECT_EQ(v.stats.finalStates, dfs.stats.finalStates);
                EXPECT_LE(v.stats.executions, *dfs.stats.mazurkiewiczTraces);
                ++programs;
            }
    EXPECT_EQ(programs, 24);
}

// By hand: "xyz12" copied, sb[5] = 'c' stored (past the copied string's NUL). main's strlen sees "ab" (2), the copy
// (5) or the copy and the store (6) — or the store first and then the copy, which overwrites sb[5] with its NUL
// (5 again), or the store alone ("ab" + a byte past the NUL: 2). Final lengths {2, 5, 6}, each with the two orders
// of copy and store after it; the strlen is dependent with both (the copy writes words 0–1, the store word 1, and
// the strlen's footprint is all of sb): 3 places of the strlen × 2 orders of the writers = 6 traces. Final states
// (sb, n): "xyz12c" with 2, 5 or 6; "xyz12" with 2 (twice) or 5: 5 distinct.
TEST(StringRanges, StrlenDependsOnTheWholeBuffer) {
    skein::test::Options o;
    o.explore.detectRaces = false;
    const auto dfs = checkSource(program("xyz12", 5, "'c'"), o);
    EXPECT_EQ(*dfs.stats.mazurkiewiczTraces, 6u);
    EXPECT_EQ(*dfs.stats.finalStates, 5u);
    o.algorithm = "qpor";
    const auto q = checkSource(program("xyz12", 5, "'c'"), o);
    EXPECT_EQ(q.stats.executions, 6u);
    EXPECT_EQ(*q.stats.finalStates, *dfs.stats.finalStates);
}

} // namespace
