// A compare-exchange under qpor is a read of the write it reads when its history makes it fail, and a write
// otherwise (core/explore/unfolding/DESIGN.md, "Compare-exchange"). These programs have the value it reads spread
// over writes the word's parent alone does not tell — a memset, a store of one byte or two, two 4-byte words of an
// 8-byte compare-exchange — or left by no write: a heap word's zeros from malloc. Until the nineteenth session each
// such compare-exchange was taken as a write (`cas_unknown`), and optimal ordered two failing ones both ways: 4
// executions against dfs's 1 trace.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/RandomPrograms.h"
#include "tests/unit/TestSupport.h"

using skein::test::checkSource;
using skein::testing::errorSet; // "kind@line"

namespace {
// Two threads try `cas(&X, expected, 7)` and `cas(&X, expected, 9)` and a third loads X, after main's `init`. By
// hand: when X holds `expected` after init, the first compare-exchange to run wins and the other fails reading the
// winner's value (2 orders); the load reads X before or after the winner, and commutes with the loser (a failed
// compare-exchange reads): 2 × 2 = 4 traces, final X = 7 or 9. Otherwise both fail and everything reads: 1 trace.
// With `heap`, X is a heap object main allocates in `init`.
std::string program(const std::string& type, const std::string& init, const std::string& expected, bool heap) {
    return "#include <pthread.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdatomic.h>\n" +
           (heap ? "_Atomic " + type + " *P;\n#define X (*P)\n" : "_Atomic " + type + " X;\n") +
           "void *t1(void *a) { (void)a; " + type + " e = " + expected + "; atomic_compare_exchange_strong(&X, &e, 7);"
           " return 0; }\n"
           "void *t2(void *a) { (void)a; " + type + " e = " + expected + "; atomic_compare_exchange_strong(&X, &e, 9);"
           " return 0; }\n"
           "void *t3(void *a) { (void)a; " + type + " v = atomic_load(&X); (void)v; return 0; }\n"
           "int main(void) {\n  " + init + "\n"
           "  pthread_t a, b, c;\n"
           "  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0); pthread_create(&c, 0, t3, 0);\n"
           "  pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0);\n  return 0;\n}\n";
}

// dfs counts `traces`; every qpor mode explores one execution per trace (`executions` where the value is not
// known) with dfs's errors and final states, and knows each compare-exchange's outcome (cas_unknown 0) but where
// `unknown`.
void expectExact(const std::string& src, uint64_t traces, bool unknown, uint64_t executions) {
    skein::test::Options o;
    o.algorithm = "dfs";
    const auto dfs = checkSource(src, o);
    ASSERT_EQ(*dfs.stats.mazurkiewiczTraces, traces);
    o.algorithm = "qpor";
    for (const char* mode : {"optimal", "k2", "sdpor"}) {
        SCOPED_TRACE(mode);
        o.explore.alt = mode;
        const auto q = checkSource(src, o);
        EXPECT_EQ(errorSet(q), errorSet(dfs));
        EXPECT_EQ(q.stats.finalStates, dfs.stats.finalStates);
        EXPECT_EQ(q.stats.executions, executions ? executions : traces);
        EXPECT_EQ(q.stats.ssb, 0u);
        EXPECT_EQ(q.stats.extra.at("cas_unknown"), unknown ? 1.0 : 0.0);
    }
}

struct Case {
    const char* type;
    const char* init;
    const char* expected;
    uint64_t traces; // 4 where X holds `expected` after init, 1 where it does not
    bool heap = false;
    // Where the history does not tell the value: taken as a write (cas_unknown), `executions` (0: one per trace).
    bool unknown = false;
    uint64_t executions = 0;
};
} // namespace

// memset writes its byte pattern (0x05050505 in an int); a store of one byte or two leaves the rest of the word as
// it was (the global's initial zeros, or a memset's bytes); an 8-byte compare-exchange has two words, each with its
// own writes; a heap object holds its allocation's zeros.
TEST(QporCompareExchange, ReadsTheValueItsHistoryLeft) {
    const Case cases[] = {
        {"int", "memset((void *)&X, 0, sizeof X);", "5", 1},
        {"int", "memset((void *)&X, 0, sizeof X);", "0", 4},
        {"int", "memset((void *)&X, 5, sizeof X);", "5", 1},
        {"int", "memset((void *)&X, 5, sizeof X);", "0x05050505", 4},
        {"long", "memset((void *)&X, 5, sizeof X);", "0x0505050505050505", 4},
        {"int", "((unsigned char *)&X)[0] = 5;", "5", 4},
        {"int", "((unsigned char *)&X)[1] = 1;", "5", 1},
        {"int", "((unsigned char *)&X)[1] = 1;", "256", 4},
        {"int", "((unsigned short *)&X)[0] = 5; ((unsigned char *)&X)[2] = 1;", "0x10005", 4},
        {"int", "memset((void *)&X, 0, sizeof X); ((unsigned char *)&X)[3] = 2;", "0x02000000", 4},
        {"long", "((unsigned int *)&X)[1] = 1;", "5", 1},
        // Placed after the store of one word, whose other word's writer there earlierPlacements does not know
        // (QporImpl.h, casFailsAt): taken as a write there, where makeEvent then tells it — still one per trace.
        {"long", "((unsigned int *)&X)[0] = 5; ((unsigned int *)&X)[1] = 1;", "0x100000005", 4, false, true},
        // A heap word nobody wrote holds malloc's zeros, one of a second element too.
        {"int", "P = malloc(sizeof *P);", "0", 4, true},
        {"int", "P = malloc(sizeof *P);", "5", 1, true},
        {"int", "_Atomic int *q = malloc(2 * sizeof *q); q[0] = 1; P = q + 1;", "0", 4, true},
        // A realloc copies the old object's bytes with no event on the new one: not known, so both compare-exchanges
        // are writes and optimal orders them both ways (a limit: DESIGN.md, "Limits").
        {"int", "P = malloc(sizeof *P); *(int *)P = 5; P = realloc((void *)P, 2 * sizeof *P);", "5", 4, true, true},
        {"int", "P = malloc(sizeof *P); *(int *)P = 5; P = realloc((void *)P, 2 * sizeof *P);", "0", 1, true, true, 4},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.type) + ": " + c.init + " expecting " + c.expected);
        expectExact(program(c.type, c.init, c.expected, c.heap), c.traces, c.unknown, c.executions);
    }
}
