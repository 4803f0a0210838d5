// Counterexample graphs (core/explore/TraceBuilder.cpp): reads-from edges found through the last writer of each
// byte, over writes wide enough that the table of bytes grows several times.
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

} // namespace
