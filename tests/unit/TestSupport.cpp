#include "tests/unit/TestSupport.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace skein::test {

static CheckRequest request(const std::string& source, const Options& o) {
    CheckRequest req;
    req.path = "test.c";
    req.contents = source;
    req.clangFlags = o.flags;
    req.algorithm = o.algorithm;
    req.options = o.explore;
    return req;
}

report::CheckResult checkSource(const std::string& source, const Options& o) {
    auto r = check(request(source, o));
    if (!r) {
        std::string all;
        for (auto& d : r.error().diagnostics) all += report::formatLocation(d.location) + ": " + d.message + "\n";
        ADD_FAILURE() << "program did not compile:\n" << all;
        return {};
    }
    return *r;
}

CheckFailure failSource(const std::string& source, const Options& o) {
    auto r = check(request(source, o));
    if (r) {
        ADD_FAILURE() << "program compiled, expected a failure";
        return {};
    }
    return r.error();
}

std::vector<std::string> errorKinds(const report::CheckResult& r) {
    std::vector<std::string> k;
    for (auto& e : r.errors) k.emplace_back(report::errorKindName(e.kind));
    std::sort(k.begin(), k.end());
    k.erase(std::unique(k.begin(), k.end()), k.end());
    return k;
}

void expectCompleteExploration(const report::CheckResult& r, report::Verdict verdict,
                               const std::vector<std::string>& kinds, uint64_t executions, uint64_t finalStates) {
    EXPECT_EQ(r.verdict, verdict);
    EXPECT_EQ(errorKinds(r), kinds);
    EXPECT_EQ(r.stats.executions, executions);
    EXPECT_EQ(r.stats.blocked, 0u);
    EXPECT_EQ(r.stats.finalStates, finalStates);
    EXPECT_FALSE(r.stoppedEarly);
    EXPECT_TRUE(r.bounds.empty());
}

std::string output(const report::CheckResult& r) {
    std::string s;
    for (auto& o : r.output) s += o.text;
    return s;
}

std::string sourceFile(const std::string& relativePath) {
    std::ifstream in(std::string(SKEIN_SOURCE_DIR) + "/" + relativePath);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

const char* const kMemsetMemcpyProgram = R"(
    #include <pthread.h>
    #include <stdlib.h>
    #include <string.h>
    char *src, *dst;
    void *setter(void *a) { memset(src, 1, SIZE); return 0; }
    void *copier(void *a) { memcpy(dst, src, SIZE); return 0; }
    int main(void) {
        pthread_t a, b;
        src = malloc(SIZE);
        dst = malloc(SIZE);
        memset(src, 0, SIZE);
        pthread_create(&a, 0, setter, 0);
        pthread_create(&b, 0, copier, 0);
        pthread_join(a, 0);
        pthread_join(b, 0);
        free(src);
        free(dst);
        return 0;
    })";

} // namespace skein::test
