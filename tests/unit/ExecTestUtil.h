#pragma once
// Small helpers shared by the executor test files (ExecutorSemanticsTest.cpp, ExecutorThreadsTest.cpp,
// ExecutorErrorsTest.cpp, ExecutorBoundsTest.cpp, BadInputTest.cpp).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/unit/TestSupport.h"

namespace skein::test {

using report::ErrorKind;
using report::Verdict;

// 1-based line of the first line of `src` containing `marker` (line 1 is the text before the first newline,
// as the compiler counts). Markers are comments such as `// L:div` so tests do not hard-code line numbers.
inline uint32_t lineOf(const std::string& src, const std::string& marker) {
    size_t at = src.find(marker);
    if (at == std::string::npos) {
        ADD_FAILURE() << "marker not found: " << marker;
        return 0;
    }
    uint32_t line = 1;
    for (size_t i = 0; i < at; ++i) line += src[i] == '\n';
    return line;
}

// Checks a program that must be safe and returns its captured output.
inline std::string safeOutput(const std::string& src, const Options& o = {}) {
    report::CheckResult r = checkSource(src, o);
    EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? std::string("(no error)") : r.errors[0].message)
                                        << (r.bounds.empty() ? std::string() : " bound: " + r.bounds[0].what);
    EXPECT_TRUE(r.errors.empty());
    return output(r);
}

// Checks a program that must be safe in each of the three explorers.
inline void expectSafeInEveryExplorer(const std::string& src) {
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        report::CheckResult r = checkSource(src, withAlgorithm(algo));
        EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? "" : r.errors[0].message);
        EXPECT_TRUE(r.errors.empty());
    }
}

// `program` with its (first) `placeholder` replaced by `text`: one test's variants of a program.
inline std::string substituted(std::string program, const std::string& placeholder, const std::string& text) {
    program.replace(program.find(placeholder), placeholder.size(), text);
    return program;
}

// The data race of `r` between the lines marked `a` and `b` (in either order), or null after failing the test.
inline const report::ErrorReport* expectRaceBetween(const report::CheckResult& r, const std::string& src,
                                                   const std::string& a, const std::string& b) {
    const report::ErrorReport* race = nullptr;
    for (const auto& e : r.errors)
        if (e.kind == ErrorKind::DataRace) race = &e;
    EXPECT_NE(race, nullptr) << (r.errors.empty() ? "no error" : r.errors[0].message);
    if (!race) return nullptr;
    const uint32_t la = lineOf(src, a), lb = lineOf(src, b);
    EXPECT_TRUE(race->otherLocation.has_value()) << race->message;
    const uint32_t other = race->otherLocation ? race->otherLocation->line : 0;
    EXPECT_TRUE((race->location.line == la && other == lb) || (race->location.line == lb && other == la))
        << race->message;
    return race;
}

// The first reported error of the given kind, or null.
// The operations of an error's trace steps, in order ("create", "lock", "sem_init", ..., "error").
inline std::vector<std::string> operations(const report::ErrorReport& e) {
    std::vector<std::string> out;
    for (const auto& s : e.trace) out.push_back(s.operation);
    return out;
}

// qpor in each mode explores `src` itself and finds what dfs found (`dfs`: the same error kinds and as many distinct
// errors) in `executions` maximal configurations, blocked ones included — one per trace: no SSB under `optimal`.
// `flags`: the compiler flags dfs's check had.
inline void expectQporAgreesWithDfs(const std::string& src, const report::CheckResult& dfs, uint64_t executions,
                                    std::initializer_list<const char*> modes = {"optimal", "k1", "sdpor"},
                                    const std::vector<std::string>& flags = {}) {
    for (const char* alt : modes) {
        SCOPED_TRACE(alt);
        Options o = withAlgorithm("qpor");
        o.flags = flags;
        o.explore.alt = alt;
        const report::CheckResult q = checkSource(src, o);
        EXPECT_EQ(q.algorithm, "qpor");
        EXPECT_EQ(errorKinds(q), errorKinds(dfs));
        EXPECT_EQ(q.errors.size(), dfs.errors.size());
        EXPECT_EQ(q.stats.executions + q.stats.blocked, executions);
        if (std::string(alt) == "optimal") {
            EXPECT_EQ(q.stats.ssb, 0u);
        }
    }
}

// `algorithm` stops on `src` with a limit whose note holds `why`, and check() hands the program to dfs, which finds
// dfs's error kinds (`dfs`).
inline void expectHandedToDfs(const std::string& src, const std::string& algorithm, const std::string& why,
                              const report::CheckResult& dfs) {
    const report::CheckResult r = checkSource(src, withAlgorithm(algorithm));
    EXPECT_EQ(r.algorithm, "dfs");
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find(why), std::string::npos) << r.notes[0];
    EXPECT_EQ(errorKinds(r), errorKinds(dfs));
}

// The pthread_misuse error at the line marked `marker` (there may be others elsewhere), whose message must be
// `message` and which comes with a trace (the verdict is then an error): returns it for further checks, null after
// failing the test.
inline const report::ErrorReport* expectMisuseAt(const report::CheckResult& r, const std::string& src,
                                                 const std::string& marker, const std::string& message) {
    EXPECT_EQ(r.verdict, Verdict::Error);
    const uint32_t line = lineOf(src, marker);
    for (const auto& e : r.errors)
        if (e.kind == ErrorKind::PthreadMisuse && e.location.line == line) {
            EXPECT_EQ(e.message, message);
            EXPECT_FALSE(e.trace.empty()) << "an error comes with a trace";
            return &e;
        }
    ADD_FAILURE() << "no misuse at the line marked " << marker;
    return nullptr;
}

inline const report::ErrorReport* findError(const report::CheckResult& r, ErrorKind k) {
    for (const auto& e : r.errors)
        if (e.kind == k) return &e;
    return nullptr;
}

// The single error of kind `k`, expected at `line`: returns it for further checks.
inline const report::ErrorReport* expectError(const report::CheckResult& r, ErrorKind k, uint32_t line) {
    EXPECT_EQ(r.verdict, Verdict::Error);
    const report::ErrorReport* e = findError(r, k);
    EXPECT_NE(e, nullptr) << "no error of kind " << report::errorKindName(k)
                          << (r.errors.empty() ? std::string() : "; first: " + r.errors[0].message);
    if (!e) return nullptr;
    EXPECT_EQ(e->location.line, line) << e->message;
    EXPECT_FALSE(e->trace.empty()) << "an error comes with a trace";
    return e;
}

// The `unsupported` error a program reaches (a construct or a library call Skein does not model): its message holds
// `what`, its place is the line marked `marker`, and the check is no verdict of safety. Null after failing the test.
inline const report::ErrorReport* expectUnsupportedAt(const std::string& src, const std::string& what,
                                                      const std::string& marker = "L:here") {
    const report::CheckResult r = checkSource(src);
    EXPECT_NE(r.verdict, Verdict::Safe) << src;
    const report::ErrorReport* e = findError(r, ErrorKind::Unsupported);
    EXPECT_NE(e, nullptr) << src << (r.errors.empty() ? "" : "\nfirst error: " + r.errors[0].message);
    if (!e) return nullptr;
    EXPECT_NE(e->message.find(what), std::string::npos) << e->message;
    EXPECT_EQ(e->location.file, "test.c");
    EXPECT_EQ(e->location.line, lineOf(src, marker)) << e->message;
    return e;
}

} // namespace skein::test
