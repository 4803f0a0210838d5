// Variadic functions the program defines (core/program/LowerCall.cpp: allocateVariadicAreas,
// lowerVariadicCall, lowerVaStart) and the printf family on strings and va_lists (core/frontend/models/libc.c
// over the
// __skein_vformat builtin): what va_arg reads, what the formatting functions write and return, the errors and
// refusals at their limits, and that a shared buffer they write is an event (a race) while a local one is
// not.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// Every kind of argument va_arg takes: ints, longs, doubles, pointers, a small struct (passed in two
// registers' worth of slots), a large one (passed by value in memory); va_copy; a variadic call through a
// pointer, in a loop (the call site's area reused), recursively (each frame its own area).
TEST(Variadic, VaArgReadsEveryKindOfArgument) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdarg.h>
        #include <stdio.h>
        struct Small { double d; int i; };
        struct Large { long a, b, c; };
        int sum(int n, ...) {
            va_list ap;
            va_start(ap, n);
            int s = 0;
            for (int i = 0; i < n; ++i) s += va_arg(ap, int);
            va_end(ap);
            return s;
        }
        double mixed(int n, ...) {
            va_list ap, again;
            va_start(ap, n);
            va_copy(again, ap);
            double d = 0;
            for (int i = 0; i < n; ++i) d += va_arg(ap, double);
            struct Small s = va_arg(ap, struct Small);
            struct Large l = va_arg(ap, struct Large);
            long big = va_arg(ap, long);
            const char *str = va_arg(ap, const char *);
            double first = va_arg(again, double); // the copy starts where ap did
            va_end(again);
            va_end(ap);
            return d + s.d + s.i + l.a + l.b + l.c + big + str[1] + first * 1000;
        }
        int depth(int n, ...) { // each frame reads its own caller's arguments
            va_list ap;
            va_start(ap, n);
            int v = va_arg(ap, int);
            va_end(ap);
            return n == 0 ? v : v + depth(n - 1, v * 10);
        }
        int main() {
            struct Small s = {0.5, 2};
            struct Large l = {10, 20, 30};
            int (*f)(int, ...) = sum;
            int loop = 0;
            for (int i = 0; i < 4; ++i) loop += f(i, 1, 2, 3);
            printf("%d %d %g %d %d\n", sum(3, 1, 2, 3), sum(0),
                   mixed(2, 1.25, 2.0, s, l, 100L, "ab"), loop, depth(2, 1));
            return 0;
        })"),
              "6 0 1513.75 10 111\n");
}

// clang calls through an unprototyped pointer (`int (*fp)()`) with a variadic type whose fixed part is the
// arguments given: the call passes an empty area the non-variadic callee never reads.
TEST(Variadic, UnprototypedCallsAreNotVariadic) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int f();
        int g(a, b) int a, b; { return a * b; }
        int main() {
            int (*fp)() = g;
            printf("%d %d %d\n", f(7, 2), fp(3, 4), g(5, 6));
            return 0;
        }
        int f(int a, int b) { return a - b; })"),
              "5 12 30\n");
}

TEST(Variadic, FormattingIntoStrings) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdarg.h>
        #include <stdio.h>
        #include <string.h>
        int format(char *out, size_t n, const char *fmt, ...) { // consumes one argument itself first
            va_list ap;
            va_start(ap, fmt);
            int skip = va_arg(ap, int);
            int len = vsnprintf(out, n, fmt, ap);
            va_end(ap);
            return len + skip;
        }
        int main() {
            char buf[64], small[5];
            int a = snprintf(buf, sizeof buf, "%d-%s-%x-%5.2f-%c-%ld", 42, "abc", 255, 3.14159, 'z', 1234567890123L);
            printf("[%s] %d\n", buf, a);
            int b = snprintf(small, sizeof small, "%s", "hello world"); // cut to 4 characters, length 11
            printf("[%s] %d\n", small, b);
            int c = snprintf(NULL, 0, "%d", 12345); // the length only
            int d = sprintf(buf, "x=%u%%", 7u);
            printf("[%s] %d %d\n", buf, c, d);
            int e = format(buf, sizeof buf, "<%s:%d>", 1000, "k", 5);
            printf("[%s] %d\n", buf, e);
            return 0;
        })"),
              "[42-abc-ff- 3.14-z-1234567890123] 31\n[hell] 11\n[x=7%] 5 4\n[<k:5>] 1005\n");
}

TEST(Variadic, LoggingHelpersPrint) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdarg.h>
        #include <stdio.h>
        void logf(const char *fmt, ...) {
            va_list ap;
            va_start(ap, fmt);
            vprintf(fmt, ap);
            va_end(ap);
        }
        void elog(const char *fmt, ...) {
            va_list ap;
            va_start(ap, fmt);
            vfprintf(stderr, fmt, ap);
            va_end(ap);
        }
        int main() {
            logf("%s %d\n", "one", 1);
            elog("%s %.1f\n", "two", 2.0);
            return 0;
        })"),
              "one 1\ntwo 2.0\n");
}

TEST(Variadic, SprintfPastTheBufferIsAMemoryError) {
    const std::string src = R"(
        #include <stdio.h>
        int main() {
            char buf[4];
            sprintf(buf, "%d", 123456); // L:overflow
            return 0;
        })";
    expectError(checkSource(src), ErrorKind::Memory, lineOf(src, "L:overflow"));
}

// The area holds exactly the arguments passed: a va_arg past the last one, or a format that wants more than were
// passed, reads out of its bounds — undefined behaviour, reported as a memory error where it happens.
TEST(Variadic, ReadingPastTheLastArgumentIsAMemoryError) {
    const std::string direct = R"(
        #include <stdarg.h>
        int second(int n, ...) {
            va_list ap;
            va_start(ap, n);
            int a = va_arg(ap, int);
            int b = va_arg(ap, int); // L:past
            va_end(ap);
            return a + b;
        }
        int main(void) { return second(2, 7); })";
    const auto* e = expectError(checkSource(direct), ErrorKind::Memory, lineOf(direct, "L:past"));
    ASSERT_NE(e, nullptr);
    EXPECT_NE(e->message.find("<variadic arguments>"), std::string::npos) << e->message;
    const std::string format = R"(
        #include <stdarg.h>
        #include <stdio.h>
        void logf(const char *fmt, ...) {
            va_list ap;
            va_start(ap, fmt);
            vprintf(fmt, ap); // L:format
            va_end(ap);
        }
        int main(void) {
            logf("%d %s\n", 1);
            return 0;
        })";
    e = expectError(checkSource(format), ErrorKind::Memory, lineOf(format, "L:format"));
    ASSERT_NE(e, nullptr);
    EXPECT_NE(e->message.find("the format reads 2 arguments where 1 were passed"), std::string::npos) << e->message;
}

TEST(Variadic, OutputLongerThanTheModelsBufferIsRefused) {
    const std::string src = R"(
        #include <stdio.h>
        #include <string.h>
        char big[5000], out[6000];
        int main() {
            memset(big, 'a', sizeof big - 1);
            snprintf(out, sizeof out, "%s", big); // L:long
            return 0;
        })";
    expectUnsupportedAt(src, "formatted output of 4999 characters", "L:long");
    // Cut to fit, it is no refusal: only what is kept must fit.
    EXPECT_EQ(checkSource(substituted(src, "sizeof out", "100")).verdict, Verdict::Safe);
}

// x86-64's va_arg of a 16-byte-aligned type rounds the overflow pointer up (llvm.ptrmask), which the caller's
// area, laid out from the coerced arguments alone, cannot promise: refused at the va_arg, not read wrong.
TEST(Variadic, AlignedArgumentsAreRefused) {
    const std::string src = R"(
        #include <stdarg.h>
        struct __attribute__((aligned(16))) Wide { long x; };
        long first(int n, ...) {
            va_list ap;
            va_start(ap, n);
            struct Wide w = va_arg(ap, struct Wide); // L:here
            va_end(ap);
            return w.x;
        }
        int main() {
            struct Wide w = {5};
            return (int)first(1, 7, w);
        })";
    expectUnsupportedAt(src, "a va_arg of a 16-byte-aligned type");
}

// A shared buffer written by snprintf is written by an event: two threads formatting into it race, and under
// a mutex they do not. A local buffer handed to the family stays the thread's own (no events: one execution).
TEST(Variadic, SharedBuffersRaceLocalOnesAreNoEvents) {
    const std::string src = R"(
        #include <pthread.h>
        #include <stdio.h>
        char line[32];
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        void *worker(void *arg) {
            char mine[32];
            LOCK
            snprintf(TARGET, 32, "worker %d", (int)(long)arg); // L:write
            UNLOCK
            return 0;
        }
        int main() {
            pthread_t a, b;
            pthread_create(&a, 0, worker, (void *)1);
            pthread_create(&b, 0, worker, (void *)2);
            pthread_join(a, 0);
            pthread_join(b, 0);
            return 0;
        })";
    auto variant = [&](const char* lock, const char* unlock, const char* target) {
        return substituted(substituted(substituted(src, "LOCK", lock), "UNLOCK", unlock), "TARGET", target);
    };
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        const std::string racy = variant("", "", "line");
        expectRaceBetween(checkSource(racy, withAlgorithm(algo)), racy, "L:write", "L:write");
        const auto locked = checkSource(
            variant("pthread_mutex_lock(&m);", "pthread_mutex_unlock(&m);", "line"), withAlgorithm(algo));
        EXPECT_EQ(locked.verdict, Verdict::Safe);
        if (std::string(algo) == "qpor") {
            EXPECT_EQ(locked.stats.executions, 2u); // the two orders of the sections
        }
        const auto local = checkSource(variant("", "", "mine"), withAlgorithm(algo));
        EXPECT_EQ(local.verdict, Verdict::Safe);
        EXPECT_EQ(local.stats.executions, 1u);
    }
}

} // namespace
