// Bad input (issue 2): a syntax error, an unsupported construct (a clear `unsupported: <what>` error at a
// file:line, not a crash), an empty file, a program without main, a 10 MB file.
#include <chrono>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string allMessages(const skein::CheckFailure& f) {
    std::string s;
    for (auto& d : f.diagnostics) s += d.message + "\n";
    return s;
}

TEST(BadInput, SyntaxErrorIsADiagnosticWithALine) {
    const std::string src = R"(
        int main() {
            int x = 1
            return x; // L:here
        })";
    auto f = failSource(src);
    ASSERT_FALSE(f.diagnostics.empty());
    const auto& d = f.diagnostics[0];
    EXPECT_EQ(d.severity, skein::report::Severity::Error);
    EXPECT_TRUE(contains(d.message, "expected ';'")) << d.message;
    EXPECT_EQ(d.location.file, "test.c");
    // Clang points at the end of the line missing the semicolon.
    EXPECT_EQ(d.location.line, lineOf(src, "L:here") - 1);
}

TEST(BadInput, TypeErrorsAndMissingHeaders) {
    auto f = failSource("struct S { int a; };\nint main() { struct S s; return s.b; }\n");
    ASSERT_FALSE(f.diagnostics.empty());
    EXPECT_EQ(f.diagnostics[0].location.line, 2u);
    auto h = failSource("#include \"no_such_header.h\"\nint main() { return 0; }\n");
    ASSERT_FALSE(h.diagnostics.empty());
    EXPECT_TRUE(contains(allMessages(h), "no_such_header.h")) << allMessages(h);
    auto e = failSource("#error stop here\nint main() { return 0; }\n");
    EXPECT_TRUE(contains(allMessages(e), "stop here")) << allMessages(e);
}

TEST(BadInput, EmptyFileHasNoMain) {
    auto f = failSource("");
    ASSERT_FALSE(f.diagnostics.empty());
    EXPECT_TRUE(contains(f.diagnostics[0].message, "main")) << f.diagnostics[0].message;
    EXPECT_EQ(f.diagnostics[0].location.file, "test.c");
}

TEST(BadInput, ProgramWithoutMain) {
    auto f = failSource("int helper(int x) { return x + 1; }\nint main(void);\n");
    ASSERT_FALSE(f.diagnostics.empty());
    EXPECT_TRUE(contains(f.diagnostics[0].message, "no `main`")) << f.diagnostics[0].message;
}

TEST(BadInput, BinaryGarbageDoesNotCrash) {
    std::string junk = "int main() { return 0; }\n";
    junk += std::string("\x01\x02\xff\xfe\x00\x7f garbage \x80\x81", 19);
    auto f = failSource(junk);
    EXPECT_FALSE(f.diagnostics.empty());
}

TEST(BadInput, UnreadableFile) {
    skein::CheckRequest req;
    req.path = "/nonexistent/dir/missing.c";
    auto r = skein::check(req);
    ASSERT_FALSE(r.has_value());
    ASSERT_FALSE(r.error().diagnostics.empty());
    EXPECT_TRUE(contains(r.error().diagnostics[0].message, "cannot read")) << r.error().diagnostics[0].message;
}

// An unsupported construct the program reaches: reported as an `unsupported` error at its line, never a crash.
// (Those the lowering meets say so first: "unsupported: ...".)
void expectUnsupported(const std::string& src, const std::string& what) {
    if (const auto* e = expectUnsupportedAt(src, what)) {
        EXPECT_TRUE(contains(e->message, "unsupported: ")) << e->message;
    }
}

TEST(BadInput, UnsupportedConstructsAreReportedWithTheirLine) {
    expectUnsupported(R"(
        int main() {
            __asm__ volatile("nop"); // L:here
            return 0;
        })",
                      "inline assembly");
    expectUnsupported(R"(
        int mystery(int);
        int main() {
            return mystery(3); // L:here
        })",
                      "mystery");
    expectUnsupported(R"(
        #include <stdarg.h>
        int sum(int n, ...) {
            va_list ap;
            va_start(ap, n);
            int s = 0;
            for (int i = 0; i < n; i++) s += va_arg(ap, int);
            va_end(ap);
            return s;
        }
        int main() { return sum(1, 2.5L); } // L:here)",
                      "call argument of type x86_fp80");
    expectUnsupported(R"(
        long double scale(long double x) { return x * 2; }
        int main() { return (int)scale(1.5L); } // L:here)",
                      "x86_fp80");
    expectUnsupported(R"(
        int main() {
            void *target = &&done;
            goto *target; // L:here
        done:
            return 0;
        })",
                      "");
}

TEST(BadInput, UnsupportedConstructInDeadCodeDoesNotStopTheCheck) {
    auto r = checkSource(R"(
        int mystery(int);
        int never;
        int main() {
            if (never) return mystery(1);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
}

// `src` checked as test.c by dfs, through skein::check (compile, lower, explore).
auto checkWithDfs(const std::string& src) {
    skein::CheckRequest req;
    req.path = "test.c";
    req.contents = src;
    req.algorithm = "dfs";
    return skein::check(req);
}

TEST(BadInput, UnsupportedGlobalInitialiserNamesTheGlobalAndLine) {
    const std::string src = R"(
        long double ld = 1.5L; // L:here
        int main() { return 0; })";
    auto r = checkWithDfs(src);
    if (r) {
        // Accepted: then it must at least run.
        EXPECT_NE(r->verdict, Verdict::Error);
        return;
    }
    ASSERT_FALSE(r.error().diagnostics.empty());
    const auto& d = r.error().diagnostics[0];
    EXPECT_TRUE(contains(d.message, "unsupported: ")) << d.message;
    EXPECT_TRUE(contains(d.message, "ld")) << d.message;
    EXPECT_EQ(d.location.file, "test.c");
    EXPECT_EQ(d.location.line, lineOf(src, "L:here"));
}

TEST(BadInput, WideIntegersAndVectorsAreUnsupportedNotCrashes) {
    for (const char* src : {R"(
        int main() { __int128 x = 5; x = x * 3; return (int)x; })",
                            R"(
        typedef int v4 __attribute__((vector_size(16)));
        int main() { v4 a = {1, 2, 3, 4}; v4 b = a + a; return b[1]; })",
                            R"(
        #include <complex.h>
        int main() { double _Complex z = 1.0 + 2.0 * I; z = z * z; return (int)creal(z); })"}) {
        auto r = checkWithDfs(src);
        if (!r) continue; // rejected with a diagnostic: fine
        EXPECT_NE(r->verdict, Verdict::Safe) << src;
        EXPECT_NE(findError(*r, ErrorKind::Unsupported), nullptr) << src;
    }
}

TEST(BadInput, VectorGlobalsLowerAndUnusedVectorCodeDoesNotStopTheCheck) {
    auto r = checkSource(R"(
        typedef int v4 __attribute__((vector_size(16)));
        v4 g = {1, 2, 3, 4};
        int never;
        int main() { if (never) { v4 b = g + g; return b[1]; } return 0; })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
}

TEST(BadInput, KAndRAndImplicitDeclarations) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int main() { printf("%d\n", add(2, 3)); return 0; }
        int add(a, b) int a, b; { return a + b; }
    )"),
              "5\n");
}

TEST(BadInput, TenMegabyteFile) {
    // 10 MB: a large initialised table and many lines of comments. It must check in reasonable time.
    std::string src = "#include <assert.h>\n";
    src.reserve(10'500'000);
    src += "int table[] = {";
    const int n = 600'000;
    for (int i = 0; i < n; ++i) src += std::to_string(i % 1000) + (i + 1 < n ? "," : "");
    src += "};\n";
    while (src.size() < 10'000'000) src += "// padding padding padding padding padding padding padding padding\n";
    src += "int main() { assert(table[123456] == 456); assert(sizeof table / sizeof table[0] == 600000); return 0; }\n";
    ASSERT_GE(src.size(), 10'000'000u);
    auto t0 = std::chrono::steady_clock::now();
    auto r = checkSource(src);
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
}

} // namespace
