// The strings a printf-style call prints are read by events, as printf reads them: to the NUL, or as many
// characters as a precision says — printf itself (a constant format's read at the call, LowerCall.cpp; one
// built at run time scanned when the call runs, __skein_read_format_arg) and the C models of the printf
// family on strings and va_lists (libc.c, readStrings over __skein_format_string). So printing a string
// another thread writes is a data race, an unterminated one printed with %s is read past its end, and the
// characters a precision leaves out are not read. program::scanFormat is the scan both use.
#include <gtest/gtest.h>

#include "core/program/Format.h"
#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// A writer thread stores into `name` while main formats it: `CALL` is the formatting call, `WRITE` the store.
std::string raceProgram(const std::string& call, const std::string& write = "strcpy(name, \"beta\");") {
    return R"(
        #include <pthread.h>
        #include <stdarg.h>
        #include <stdio.h>
        #include <string.h>
        char name[16] = "alphabet";
        char out[64];
        void logTo(char *dst, size_t n, const char *fmt, ...) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(dst, n, fmt, ap); // L:vsnprintf
            va_end(ap);
        }
        void *writer(void *arg) {
            )" +
           write + R"( // L:write
            return arg;
        }
        int main(void) {
            pthread_t t;
            pthread_create(&t, 0, writer, 0);
            )" +
           call + R"( // L:call
            pthread_join(t, 0);
            return 0;
        })";
}

TEST(FormatStrings, TheModelsReadTheirStringsByEvents) {
    for (const std::string call :
         {"snprintf(out, sizeof out, \"<%s>\", name);", "sprintf(out, \"%d %s\", 7, name);",
          "snprintf(out, sizeof out, \"%.*s|\", 3, name);"}) {
        const std::string src = raceProgram(call);
        for (const char* algo : {"dfs", "qpor"}) {
            SCOPED_TRACE(call + " " + algo);
            expectRaceBetween(checkSource(src, withAlgorithm(algo)), src, "L:write", "L:call");
        }
    }
    // Through the program's own variadic function: the race is at the vsnprintf in it.
    const std::string src = raceProgram("logTo(out, sizeof out, \"%s\", name);");
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        expectRaceBetween(checkSource(src, withAlgorithm(algo)), src, "L:write", "L:vsnprintf");
    }
}

// "%.3s" reads three characters at most: a write past them is no race, a write among them is one — for printf
// with a constant format and for the models alike; so is a precision passed as an argument.
TEST(FormatStrings, APrecisionReadsOnlyItsCharacters) {
    for (const std::string call :
         {"printf(\"%.3s\\n\", name);", "snprintf(out, sizeof out, \"%.3s\", name);",
          "printf(\"%.*s\\n\", 3, name);", "snprintf(out, sizeof out, \"%-6.*s\", 3, name);"}) {
        SCOPED_TRACE(call);
        const std::string past = raceProgram(call, "name[5] = 'X';");
        for (const char* algo : {"dfs", "qpor"}) {
            SCOPED_TRACE(algo);
            const auto r = checkSource(past, withAlgorithm(algo));
            EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? "" : r.errors[0].message);
        }
        const std::string among = raceProgram(call, "name[2] = 'X';");
        expectRaceBetween(checkSource(among, withAlgorithm("qpor")), among, "L:write", "L:call");
    }
    // A negative precision from an argument is none: the whole string is read.
    const std::string negative = raceProgram("printf(\"%.*s\\n\", -1, name);", "name[7] = 'X';");
    expectRaceBetween(checkSource(negative), negative, "L:write", "L:call");
}

// A format built at run time is scanned when printf runs: each pointer argument is read only if the format
// makes it a %s string, as far as its precision says.
TEST(FormatStrings, AFormatBuiltAtRunTimeIsScannedWhenPrintfRuns) {
    const std::string src = R"(
        #include <pthread.h>
        #include <stdio.h>
        char name[16] = "alphabet";
        void *writer(void *arg) {
            name[POS] = 'X'; // L:write
            return arg;
        }
        int main(int argc, char **argv) {
            (void)argv;
            const char *fmt = argc > 5 ? "%d\n" : FMT;
            pthread_t t;
            pthread_create(&t, 0, writer, 0);
            printf(fmt, 3, name); // L:call
            pthread_join(t, 0);
            return 0;
        })";
    struct Case {
        const char* fmt;
        const char* pos;
        bool race;
    };
    for (const Case& c : {Case{"\"%d %s\\n\"", "5", true}, Case{"\"%d %.2s\\n\"", "1", true},
                          Case{"\"%d %.2s\\n\"", "5", false}, Case{"\"%.*s\\n\"", "1", true},
                          Case{"\"%.*s\\n\"", "5", false}, Case{"\"%d %p\\n\"", "1", false}}) {
        const std::string p = substituted(substituted(src, "FMT", c.fmt), "POS", c.pos);
        SCOPED_TRACE(std::string(c.fmt) + " POS=" + c.pos);
        const auto r = checkSource(p);
        if (c.race)
            expectRaceBetween(r, p, "L:write", "L:call");
        else
            EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? "" : r.errors[0].message);
    }
}

// An array without a NUL may be printed with a precision that stays within it; with %s it is read past its
// end — by printf and by the models.
TEST(FormatStrings, AnUnterminatedArrayIsReadPastItsEndOnlyWithoutAPrecision) {
    const std::string src = R"(
        #include <stdio.h>
        char tag[3] = {'a', 'b', 'c'};
        char out[16];
        int main(void) {
            CALL // L:call
            return 0;
        })";
    for (const std::string call : {"printf(\"%.3s\\n\", tag);", "snprintf(out, sizeof out, \"%.3s\", tag);",
                                   "snprintf(out, sizeof out, \"%.*s\", 2, tag);"}) {
        SCOPED_TRACE(call);
        EXPECT_EQ(checkSource(substituted(src, "CALL", call)).verdict, Verdict::Safe);
    }
    for (const std::string call : {"printf(\"%s\\n\", tag);", "snprintf(out, sizeof out, \"%s\", tag);",
                                   "snprintf(out, sizeof out, \"%.4s\", tag);"}) {
        SCOPED_TRACE(call);
        const std::string p = substituted(src, "CALL", call);
        const auto* e = expectError(checkSource(p), ErrorKind::Memory, lineOf(p, "L:call"));
        if (e) {
            EXPECT_NE(e->message.find("tag"), std::string::npos) << e->message;
        }
    }
    // What is printed is what was read.
    EXPECT_EQ(safeOutput(substituted(src, "CALL", "printf(\"[%.2s][%.*s]\\n\", tag, 1, tag + 2);")),
              "[ab][c]\n");
}

// The strings of a call in one thread only, private or read-only, add no event: the reads are of objects no
// other thread reaches.
TEST(FormatStrings, PrivateStringsAddNoEvents) {
    const uint64_t none = checkSource("int main() { return 0; }").stats.events;
    EXPECT_EQ(checkSource(R"(
        #include <stdio.h>
        int main() {
            char mine[8] = "abc", out[32];
            printf("%.2s %s\n", mine, "literal");
            snprintf(out, sizeof out, "%s %.*s", mine, 1, "literal");
            return 0;
        })")
                  .stats.events,
              none);
}

TEST(FormatStrings, ScanFindsEachStringAndItsArguments) {
    using skein::program::scanFormat;
    const auto s = scanFormat("%d %-*s %% %.3s %*.*s %lu %.s %n %5.2f %s");
    EXPECT_EQ(s.wanted, 11u); // d, *, s, s, *, *, s, lu, s, f, s (%% and %n take none)
    ASSERT_EQ(s.strings.size(), 5u);
    EXPECT_EQ(s.strings[0].arg, 2u); // after %d and the width's *
    EXPECT_EQ(s.strings[0].precision, -1);
    EXPECT_EQ(s.strings[1].arg, 3u);
    EXPECT_EQ(s.strings[1].precision, 3);
    EXPECT_EQ(s.strings[2].arg, 6u); // width * (4), precision * (5)
    EXPECT_EQ(s.strings[2].precisionArg, 5);
    EXPECT_EQ(s.strings[2].precision, -1);
    EXPECT_EQ(s.strings[3].arg, 8u); // after %lu (7)
    EXPECT_EQ(s.strings[3].precision, 0);
    EXPECT_EQ(s.strings[4].arg, 10u); // after %5.2f (9)
    // A conversion cut short ends the scan.
    EXPECT_EQ(scanFormat("%s %.").strings.size(), 1u);
    EXPECT_EQ(scanFormat("100%").wanted, 0u);
}

} // namespace
