// Counterexample graphs (core/explore/TraceBuilder.cpp): reads-from edges found through the last writer of each
// byte, over writes wide enough that the table of bytes grows several times; the steps and labels of operations on
// two objects (a copy's source, a cond_wait's mutex).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

namespace {

using skein::report::EdgeKind;

TEST(Counterexample, ReadsFromTheLastWriterOfEachByteAcrossWideWrites) {
    // Ten 64-byte memsets (640 distinct bytes for a 14-step trace), then a reader of bytes 600 and 3.
    const std::string src = R"(
#include <assert.h>
#include <pthread.h>
#include <string.h>
char buf[640];
void *reader(void *a) {
    (void)a;
    char c = buf[600];
    char d = buf[3];
    assert(c == 0 && d == 0);
    return 0;
}
int main(void) {
    pthread_t t;
    for (int i = 0; i < 10; ++i) memset(buf + 64 * i, i + 1, 64);
    pthread_create(&t, 0, reader, 0);
    pthread_join(t, 0);
    return 0;
}
)";
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        skein::test::Options o;
        o.algorithm = algo;
        auto r = skein::test::checkSource(src, o);
        ASSERT_EQ(r.errors.size(), 1u);
        const auto& e = r.errors[0];
        ASSERT_EQ(e.trace.size(), 14u); // 10 writes, create, 2 reads, the failing assertion
        EXPECT_EQ(e.trace[11].variable, "buf[600]");
        EXPECT_EQ(e.trace[12].variable, "buf[3]");
        auto has = [&](uint32_t from, uint32_t to, EdgeKind k) {
            return std::any_of(e.graph.edges.begin(), e.graph.edges.end(),
                               [&](const auto& g) { return g.from == from && g.to == to && g.kind == k; });
        };
        EXPECT_TRUE(has(9, 11, EdgeKind::ReadsFrom)) << "byte 600: the tenth memset";
        EXPECT_TRUE(has(0, 12, EdgeKind::ReadsFrom)) << "byte 3: the first memset";
        EXPECT_TRUE(has(10, 11, EdgeKind::Sync)) << "create → the thread's first event";
        const auto rf = std::count_if(e.graph.edges.begin(), e.graph.edges.end(),
                                      [](const auto& g) { return g.kind == EdgeKind::ReadsFrom; });
        EXPECT_EQ(rf, 2);
        // Node ids are trace indices; the error step is the last node.
        ASSERT_EQ(e.graph.nodes.size(), e.trace.size());
        EXPECT_EQ(e.graph.nodes.back().id, 13u);
        EXPECT_EQ(e.graph.nodes[11].label, "R buf[600] = 10");
    }
}

// A copy names its source in its step's detail and its node's label, a cond_wait the mutex it releases (each second
// object named once per counterexample, with the first: TraceBuilder.cpp's AddressNames).
TEST(Counterexample, NamesTheSecondObjectOfACopyAndACondWait) {
    const std::string src = R"(
#include <assert.h>
#include <pthread.h>
#include <string.h>
int src[2] = {1, 2}, dst[2];
int waiting, ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *waiter(void *a) {
    (void)a;
    pthread_mutex_lock(&m);
    waiting = 1;
    while (!ready) pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    memcpy(dst, src, sizeof dst);
    pthread_mutex_lock(&m);
    int w = waiting; // 1: the waiter waits in its cond_wait now
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    assert(!w || dst[1] == 3);
    return 0;
}
)";
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        skein::test::Options o;
        o.algorithm = algo;
        o.explore.detectRaces = false;
        auto r = skein::test::checkSource(src, o);
        ASSERT_EQ(r.errors.size(), 1u);
        const auto& e = r.errors[0];
        ASSERT_EQ(e.graph.nodes.size(), e.trace.size());
        size_t copies = 0;
        for (size_t i = 0; i < e.trace.size(); ++i) {
            if (e.trace[i].operation != "copy") continue;
            ++copies;
            EXPECT_EQ(e.trace[i].detail, "from src[0]");
            EXPECT_EQ(e.graph.nodes[i].label, "copy src[0] → dst[0]");
        }
        EXPECT_EQ(copies, 1u);
        // The assertion fails only where the waiter took the mutex first, and so waited.
        size_t waits = 0;
        for (size_t i = 0; i < e.trace.size(); ++i) {
            if (e.graph.nodes[i].label.rfind("wait ", 0) != 0) continue;
            ++waits;
            EXPECT_EQ(e.graph.nodes[i].label, "wait c (releases m)");
        }
        EXPECT_EQ(waits, 1u);
    }
}

} // namespace
