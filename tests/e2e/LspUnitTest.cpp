// In-process tests of the language server's building blocks (the end-to-end behaviour is LspTest.cpp): the
// position-independent fingerprint and location mapping, replay of a schedule, text edits in UTF-16
// coordinates, and the scheduler's debounce, supersession, cancellation and concurrency limit.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/Check.h"
#include "core/program/Fingerprint.h"
#include "server/lsp/ProgramFacts.h"
#include "server/lsp/Scheduler.h"
#include "server/lsp/Text.h"
#include "server/lsp/Tokens.h"
#include "server/lsp/Transport.h"

#include <unistd.h>

namespace skein::lsp {
namespace {

using namespace std::chrono_literals;

const char* kLostUpdate = R"(#include <assert.h>
#include <pthread.h>
int counter;
void *inc(void *arg) { counter++; return 0; }
int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, inc, 0);
  pthread_create(&t2, 0, inc, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(counter == 2);
  return 0;
}
)";

std::shared_ptr<const program::Program> lowered(const std::string& text) {
    CheckRequest req;
    req.path = "/virtual/test.c";
    req.contents = text;
    auto p = prepare(req);
    EXPECT_TRUE(p.has_value());
    return p ? p->program : nullptr;
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
}

TEST(LspFingerprint, IgnoresCommentsFormattingAndShiftedLines) {
    auto base = lowered(kLostUpdate);
    auto comment = lowered(std::string("/* two\n   lines */\n") + kLostUpdate);
    auto format =
        lowered(replaced(kLostUpdate, "counter++; return 0;", "\n    counter++;\n\n    return 0;\n"));
    ASSERT_TRUE(base && comment && format);
    EXPECT_EQ(program::positionIndependentFingerprint(*base),
              program::positionIndependentFingerprint(*comment));
    EXPECT_EQ(program::positionIndependentFingerprint(*base),
              program::positionIndependentFingerprint(*format));
    // Why Fingerprint.h exists: Program::fingerprint hashes assert()'s line argument.
    EXPECT_NE(base->fingerprint, comment->fingerprint);
}

TEST(LspFingerprint, SeparatesRealChanges) {
    auto base = lowered(kLostUpdate);
    for (auto [from, to] :
         {std::pair{"counter == 2", "counter == 3"}, std::pair{"counter++;", "counter += 2;"},
          std::pair{"int counter;", "int counter; int other;"},
          std::pair{"return 0;\n}\n)", "return 1;\n}\n)"}}) {
        std::string text = kLostUpdate;
        if (text.find(from) == std::string::npos) continue;
        auto changed = lowered(replaced(text, from, to));
        ASSERT_TRUE(changed);
        EXPECT_NE(program::positionIndependentFingerprint(*base),
                  program::positionIndependentFingerprint(*changed))
            << from << " -> " << to;
    }
    // An assert() whose line constant is also used elsewhere keeps it in the hash (only its value moves).
    std::string shared =
        replaced(kLostUpdate, "assert(counter == 2);", "assert(counter == 2); counter = 11;");
    auto a = lowered(shared), b = lowered(replaced(shared, "counter = 11;", "counter = 12;"));
    EXPECT_NE(program::positionIndependentFingerprint(*a), program::positionIndependentFingerprint(*b));
}

TEST(LspLocationMap, MovesEveryLocationOfAResultToTheNewText) {
    auto before = lowered(kLostUpdate);
    auto after = lowered(std::string("// one\n// two\n// three\n") + kLostUpdate);
    CheckRequest req;
    req.path = "/virtual/test.c";
    auto result = exploreProgram(*before, req);
    ASSERT_TRUE(result);
    ASSERT_FALSE(result->errors.empty());
    report::CheckResult moved = *result;
    LocationMap(*before, *after).apply(moved);
    for (size_t i = 0; i < moved.errors.size(); ++i) {
        EXPECT_EQ(moved.errors[i].location.line, result->errors[i].location.line + 3);
        for (size_t k = 0; k < moved.errors[i].trace.size(); ++k) {
            if (result->errors[i].trace[k].location.line == 0) continue;
            EXPECT_EQ(moved.errors[i].trace[k].location.line, result->errors[i].trace[k].location.line + 3);
        }
    }
}

TEST(LspReplay, ReproducesACounterexampleAndSeesAFix) {
    auto prog = lowered(kLostUpdate);
    CheckRequest req;
    req.path = "/virtual/test.c";
    auto result = exploreProgram(*prog, req);
    ASSERT_TRUE(result);
    for (const report::ErrorReport& e : result->errors) {
        ReplayResult r = replay(*prog, e.schedule, req.options);
        EXPECT_FALSE(r.diverged);
        bool same = false;
        for (const auto& x : r.errors) same |= x.kind == e.kind && x.location.line == e.location.line;
        EXPECT_TRUE(same) << e.message;
    }
    // The fixed program: the same schedules no longer fail the assertion.
    auto fixed = lowered(replaced(kLostUpdate, "counter == 2", "counter >= 1"));
    for (const report::ErrorReport& e : result->errors) {
        if (e.kind != report::ErrorKind::Assertion) continue;
        ReplayResult r = replay(*fixed, e.schedule, req.options);
        for (const auto& x : r.errors) EXPECT_NE(x.kind, report::ErrorKind::Assertion);
    }
}

TEST(LspText, AppliesIncrementalChangesInUtf16Units) {
    std::string text = "a\xf0\x9f\x98\x80z\nsecond\n"; // a😀z: the emoji is two UTF-16 units, four bytes
    TextDocumentContentChangeEvent c;
    c.range = Range{{0, 3}, {0, 4}}; // `z`
    c.text = "Z";
    ASSERT_TRUE(applyChange(text, c));
    EXPECT_EQ(text, "a\xf0\x9f\x98\x80Z\nsecond\n");
    c.range = Range{{1, 0}, {1, 100}}; // past the line's end: clamped
    c.text = "2nd";
    ASSERT_TRUE(applyChange(text, c));
    EXPECT_EQ(text, "a\xf0\x9f\x98\x80Z\n2nd\n");
    c.range = Range{{5, 0}, {5, 0}}; // past the last line
    EXPECT_FALSE(applyChange(text, c));
    LineIndex lines(text);
    EXPECT_EQ(lines.position(1, 6).character, 3u); // byte column 6 (after the emoji) = UTF-16 column 3
    EXPECT_EQ(uriToPath("file:///a/b%20c.c"), "/a/b c.c");
    EXPECT_EQ(pathToUri("/a/b c.c"), "file:///a/b%20c.c");
}

TEST(LspTokens, CommentsAndWhitespaceOnlyMapPositionsTokenByToken) {
    std::string before = "int x;\nint main() {\n  x = 1; /* c */\n  return x;\n}\n";
    std::string after = "// new first line\nint x;\nint main()\n{\n      x = 1;\n  return   x; // r\n}\n";
    auto m = TokenMap::build(before, after);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->map(3, 3), (std::pair<uint32_t, uint32_t>{5, 7}));   // `x` of `x = 1`
    EXPECT_EQ(m->map(3, 5), (std::pair<uint32_t, uint32_t>{5, 9}));   // `=`
    EXPECT_EQ(m->map(4, 10), (std::pair<uint32_t, uint32_t>{6, 12})); // `x` of `return x`
    EXPECT_EQ(m->map(2, 12), (std::pair<uint32_t, uint32_t>{4, 1}));  // `{` moved to its own line
}

TEST(LspTokens, RealChangesAreNotCommentEdits) {
    auto differ = [](const char* a, const char* b) { return !TokenMap::build(a, b).has_value(); };
    EXPECT_TRUE(differ("int a = b--c;", "int a = b - -c;"));          // maximal munch
    EXPECT_TRUE(differ("#define F(x) x\n", "#define F (x) x\n"));     // function-like vs object-like macro
    EXPECT_TRUE(differ("#define A 1\nint x;", "#define A 1 int x;")); // the directive's end moved
    EXPECT_TRUE(differ("double d = 1.5e+3;", "double d = 1.5e +3;"));
    EXPECT_TRUE(differ("const char* s = \"a b\";", "const char* s = \"a  b\";"));
    EXPECT_TRUE(differ("int l = __LINE__;", "int l = __LINE__;")); // positions are values here
    EXPECT_FALSE(differ("int a=b+c; // x", "int a = b + c; /* y */"));
}

TEST(LspTransport, FramesSplitAcrossWritesAndHeaderVariants) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::thread writer([w = fds[1]] {
        auto put = [&](const std::string& s) {
            ASSERT_EQ(write(w, s.data(), s.size()), ssize_t(s.size()));
            std::this_thread::sleep_for(2ms);
        };
        put("Content-Length: 7\r\n\r\n{\"a\""); // a frame in two writes
        put(":1}");
        put("content-length:7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"b\":2}");
        put("X-No-Length: 1\r\n\r\n"); // skipped
        put("Content-Length: 2\r\n\r\n[]");
        close(w);
    });
    Transport t(fds[0], -1);
    EXPECT_EQ(t.readMessage(), std::optional<std::string>("{\"a\":1}"));
    EXPECT_EQ(t.readMessage(), std::optional<std::string>("{\"b\":2}"));
    EXPECT_EQ(t.readMessage(), std::optional<std::string>("[]"));
    EXPECT_EQ(t.readMessage(), std::nullopt); // end of input
    writer.join();
    close(fds[0]);
}

TEST(LspScheduler, ANewerTaskSupersedesTheQueuedOneAndCancelsTheRunningOne) {
    Scheduler s(2, 1);
    std::atomic<int> ran{0}, lastRun{0};
    for (int v = 1; v <= 50; ++v)
        s.schedule(
            "doc", [&, v](const std::atomic<bool>&) { ++ran, lastRun = v; }, 30ms);
    ASSERT_TRUE(s.waitIdle(5s));
    EXPECT_EQ(ran, 1);
    EXPECT_EQ(lastRun, 50);

    std::atomic<bool> started{false}, sawCancel{false};
    s.schedule(
        "doc",
        [&](const std::atomic<bool>& cancelled) {
            started = true;
            auto end = std::chrono::steady_clock::now() + 5s;
            while (!cancelled && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(1ms);
            sawCancel = cancelled.load();
        },
        0ms);
    while (!started) std::this_thread::sleep_for(1ms);
    s.schedule(
        "doc", [&](const std::atomic<bool>&) { lastRun = 99; }, 0ms);
    ASSERT_TRUE(s.waitIdle(5s));
    EXPECT_TRUE(sawCancel);
    EXPECT_EQ(lastRun, 99);
}

TEST(LspScheduler, RunsAtMostTheConfiguredNumberOfTasksAtOnce) {
    Scheduler s(4, 2);
    std::atomic<int> now{0}, peak{0};
    for (int d = 0; d < 6; ++d)
        s.schedule(
            "doc" + std::to_string(d),
            [&](const std::atomic<bool>&) {
                int n = ++now;
                int p = peak;
                while (n > p && !peak.compare_exchange_weak(p, n)) {
                }
                std::this_thread::sleep_for(20ms);
                --now;
            },
            0ms);
    ASSERT_TRUE(s.waitIdle(5s));
    EXPECT_EQ(peak, 2);
}

} // namespace
} // namespace skein::lsp
