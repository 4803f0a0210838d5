// The C library functions Skein models in C (core/frontend/models/libc.c), linked into a program that calls them
// (core/frontend/Frontend.cpp, linkLibcModels) and interpreted as its own code: their answers, their memory accesses
// as the program's (races included, placed at the call), a program's own definition first, no loop bound inside.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/frontend/Frontend.h"
#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

// The list compile() consults before it links the models is the file's list of functions.
TEST(LibcModels, TheNamesAreTheFilesFunctions) {
    std::vector<std::string> listed = skein::frontend::libcModelNames(), defined = skein::frontend::libcModelsDefined();
    std::sort(listed.begin(), listed.end());
    std::sort(defined.begin(), defined.end());
    EXPECT_FALSE(defined.empty());
    EXPECT_EQ(listed, defined);
}

// <ctype.h>'s macros read glibc's table (__ctype_b_loc), its functions the same classes: each class of every
// character, EOF and the negative chars included, against its definition in the C locale, and the case mappings.
TEST(LibcModels, CharacterClassesAndCases) {
    EXPECT_EQ(safeOutput(R"(
        #include <ctype.h>
        #include <stdio.h>
        int (*fns[])(int) = {isupper, islower, isalpha, isdigit, isxdigit, isspace, isprint, isgraph, isblank,
                             iscntrl, ispunct, isalnum};
        int main() {
            int bad = 0;
            for (int c = -128; c < 256; ++c) {
                int up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z', di = c >= '0' && c <= '9';
                int al = up || lo, pr = c >= 32 && c < 127, gr = pr && c != ' ';
                int want[12] = {up, lo, al, di, di || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'),
                                c == ' ' || (c >= 9 && c <= 13), pr, gr, c == ' ' || c == '\t',
                                (c >= 0 && c < 32) || c == 127, gr && !al && !di, al || di};
                int got[12] = {isupper(c), islower(c), isalpha(c), isdigit(c), isxdigit(c), isspace(c), isprint(c),
                               isgraph(c), isblank(c), iscntrl(c), ispunct(c), isalnum(c)};
                for (int k = 0; k < 12; ++k) bad += (got[k] != 0) != want[k] || (fns[k](c) != 0) != want[k];
                const int same = c < -1 ? c + 256 : c; // (glibc: a negative char but EOF maps to its byte)
                bad += toupper(c) != (lo ? c - 32 : same) || tolower(c) != (up ? c + 32 : same);
            }
            printf("%d\n", bad);
            return 0;
        })"),
              "0\n");
}

TEST(LibcModels, Numbers) {
    EXPECT_EQ(safeOutput(R"(
        #include <errno.h>
        #include <stdio.h>
        #include <stdlib.h>
        int main() {
            char *end;
            printf("%d %ld %lld %d %ld %ld\n", atoi("  -42x"), atol("+17"), atoll("9000000000"), abs(-3), labs(-4L),
                   (long)llabs(-5LL));
            long hex = strtol("0x1Fz", &end, 0);
            printf("%ld %c %ld %ld %ld\n", hex, *end, strtol("017", 0, 0), strtol("z", 0, 36), strtol("ff", 0, 16));
            const char *none = "  +";
            long zero = strtol(none, &end, 10);
            printf("%ld %d\n", zero, end == none);
            errno = 0;
            long big = strtol("-99999999999999999999", 0, 10);
            printf("%d %d\n", big == -0x7fffffffffffffffL - 1, errno == ERANGE);
            errno = 0;
            unsigned long all = strtoul("-1", 0, 10);
            printf("%d %d\n", all == 0xffffffffffffffffUL, errno);
            errno = 0;
            printf("%ld %d\n", strtol("12", 0, 1), errno == EINVAL);
            return 0;
        })"),
              "-42 17 9000000000 3 4 5\n31 z 15 35 255\n0 1\n1 1\n1 0\n0 1\n");
}

TEST(LibcModels, StringsAndSorting) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
        int main() {
            const char *s = "hello, world";
            printf("%s|%s|%d|%s|%d|%d|%d|%s|%d|%d\n", strchr(s, 'o'), strrchr(s, 'o'), strchr(s, 'q') == 0,
                   strstr(s, "wor"), strstr(s, "xyz") == 0, (int)strnlen(s, 4), (int)strspn(s, "leh"),
                   strpbrk(s, " ,"), (int)strcspn(s, ","), (char *)memchr(s, 'w', 12) - s);
            char *d = strdup(s), *n = strndup(s, 5);
            printf("%s|%s|%d\n", d, n, strchr(s, 0) == s + 12);
            free(d);
            free(n);
            int v[6] = {5, 3, 6, 1, 4, 2}, key = 4;
            qsort(v, 6, sizeof v[0], cmp);
            int *at = bsearch(&key, v, 6, sizeof v[0], cmp);
            printf("%d%d%d%d%d%d %d\n", v[0], v[1], v[2], v[3], v[4], v[5], (int)(at - v));
            return 0;
        })"),
              "o, world|orld|1|world|1|4|4|, world|5|7\nhello, world|hello|1\n123456 3\n");
}

TEST(LibcModels, MoreStrings) {
    EXPECT_EQ(safeOutput(R"(
        #define _GNU_SOURCE
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <strings.h>
        int main() {
            char buf[32] = "ab", line[] = ",x,,yz,", copy[8], *save, *tok;
            strncat(buf, "cdef", 2);
            char *end = stpcpy(copy, "hi");
            printf("%s %d %d %d %d %d\n", buf, (int)(end - copy), strcasecmp("HeLLo", "hello"),
                   strncasecmp("abX", "ABy", 2), strcasecmp("a", "b") < 0, ffs(12));
            for (tok = strtok_r(line, ",", &save); tok; tok = strtok_r(0, ",", &save)) printf("[%s]", tok);
            char text[] = "a b";
            printf(" %s|%s|%d|%d|%d\n", strtok(text, " "), strtok(0, " "), strtok(0, " ") == 0,
                   (int)((char *)memrchr("abca", 'a', 4) - "abca"), getenv("HOME") == 0);
            char dst[4];
            printf("%d %s\n", (char *)memccpy(dst, "xyz", 'y', 3) == dst + 2, rindex("a/b/c", '/'));
            return 0;
        })"),
              "abcd 2 0 0 1 3\n[x][yz] a|b|1|3|1\n1 /c\n");
}

// strtok keeps its place in one static for the whole process, as glibc's: two threads tokenising at once race on it.
TEST(LibcModels, StrtokIsNotThreadSafe) {
    const char* src = R"(
        #include <pthread.h>
        #include <string.h>
        void *worker(void *a) {
            char text[] = "x y";
            strtok(text, " "); // L:worker
            return 0;
        }
        int main() {
            pthread_t t;
            char text[] = "u v";
            pthread_create(&t, 0, worker, 0);
            strtok(text, " "); // L:main
            pthread_join(t, 0);
            return 0;
        })";
    // (qpor: dfs takes seconds over the interleavings of the two threads' reads of their strings)
    const auto* e = expectRaceBetween(checkSource(src, withAlgorithm("qpor")), src, "L:worker", "L:main");
    ASSERT_NE(e, nullptr);
    EXPECT_NE(e->message.find("strtok_saved_position"), std::string::npos) << e->message;
}

// A model reads the program's memory as the program does: strchr of a buffer another thread writes races with that
// write, reported at the call, in every explorer.
TEST(LibcModels, TheirAccessesAreThePrograms) {
    const char* src = R"(
        #include <pthread.h>
        #include <string.h>
        char buf[8] = "abc";
        void *writer(void *a) {
            buf[1] = 'x'; // L:write
            return 0;
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, writer, 0);
            char *p = strchr(buf, 'x'); // L:call
            pthread_join(t, 0);
            return p != 0;
        })";
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        SCOPED_TRACE(algo);
        expectRaceBetween(checkSource(src, withAlgorithm(algo)), src, "L:call", "L:write");
    }
}

// A program that defines a function of the models keeps its own; a loop inside a model is not bounded by --unroll.
TEST(LibcModels, TheProgramsOwnDefinitionAndNoUnrollInside) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int abs(int x) { return 7; }
        int main() {
            printf("%d\n", abs(-3));
            return 0;
        })"),
              "7\n");
    Options o;
    o.explore.exec.unroll = 2;
    auto r = checkSource(R"(
        #include <string.h>
        int main() { return strchr("a long string", 'g') == 0; })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.bounds.empty()) << r.bounds[0].what;
}

// Calls with nothing to model in one process whose time stands still: they answer 0 (success) and change nothing.
TEST(LibcModels, CallsWithNothingToModel) {
    EXPECT_EQ(safeOutput(R"(
        #define _GNU_SOURCE
        #include <pthread.h>
        #include <stdio.h>
        #include <time.h>
        void *worker(void *a) { return a; }
        int main() {
            pthread_attr_t at;
            pthread_condattr_t ca;
            pthread_mutexattr_t ma;
            pthread_cond_t c;
            pthread_t t;
            struct timespec ts = {0, 1000};
            pthread_attr_init(&at);
            pthread_mutexattr_init(&ma);
            int r = pthread_attr_setstacksize(&at, 1 << 16) + pthread_condattr_init(&ca) +
                    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) + pthread_cond_init(&c, &ca) +
                    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_PRIVATE) + nanosleep(&ts, 0);
            pthread_create(&t, &at, worker, 0);
            r += pthread_setname_np(t, "worker");
            pthread_join(t, 0);
            printf("%d\n", r);
            return 0;
        })"),
              "0\n");
}

// strtod, strtof, atof and sscanf, against what glibc prints for the same calls (the expected text is glibc's).
TEST(LibcModels, FloatingPointNumbersAndScanf) {
    EXPECT_EQ(safeOutput(R"(
        #include <errno.h>
        #include <stdio.h>
        #include <stdlib.h>
        int main() {
            int a = 0, n = 0;
            unsigned u = 0;
            long l = 0;
            short h = 0;
            unsigned char hh = 0;
            char c = 0, w[16] = {0}, set[16] = {0};
            double d = 0;
            float f = 0;
            void *p = 0;
            int r = sscanf("  42 -7 0x1f 123456789012 3.5 2.25e1 hello xyz abc123:rest",
                           "%d %u %x %ld %lf %f %s %c%*c%c %[a-c]%n", &a, &u, &u, &l, &d, &f, w, &c, &c, set, &n);
            printf("%d %d %u %ld %g %g %s %c %s %d\n", r, a, u, l, d, f, w, c, set, n);
            r = sscanf("12345", "%3d%2hd", &a, &h);
            printf("%d %d %d\n", r, a, h);
            printf("%d %d\n", sscanf("", "%d", &a), sscanf("abc", "%d", &a));
            r = sscanf("x=5 100%", "x=%d %d%%", &a, &n);
            printf("%d %d %d\n", r, a, n);
            r = sscanf("0x10 010 255", "%i %i %hhu", &a, &n, &hh);
            printf("%d %d %d %d\n", r, a, n, hh);
            r = sscanf("ff a]b", "%p %[]a]", &p, set);
            printf("%d %d %s\n", r, p == (void *)0xff, set);
            r = sscanf("hello world", "%*s %s", w);
            printf("%d %s\n", r, w);
            char *end;
            double x = strtod("  -1.5e3xyz", &end);
            printf("%g [%s] %g %g\n", x, end, atof("0x1p4"), atof("-inf"));
            errno = 0;
            x = strtod("1e999", 0);
            printf("%g %d\n", x, errno == ERANGE);
            x = strtod("abc", &end);
            printf("%g [%s] %d\n", x, end, strtof("0.1", 0) == 0.1f);
            return 0;
        })"),
              "10 42 31 123456789012 3.5 22.5 hello z abc 50\n2 123 45\n-1 0\n2 5 100\n3 16 8 255\n2 1 a]\n"
              "1 world\n-1500 [xyz] 16 -inf\ninf 1\n0 [abc] 1\n");
}

// sscanf's reads of its input and stores through its pointers are the program's: a string another thread writes
// races with the parse, and a thread's own variables handed to it stay its own (no events).
TEST(LibcModels, ScanfReadsAndWritesAreThePrograms) {
    const std::string src = R"(
        #include <pthread.h>
        #include <stdio.h>
        #include <string.h>
        char text[16] = "12 34";
        void *writer(void *arg) {
            strcpy(text, "56 78"); // L:write
            return arg;
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, writer, 0);
            int a, b;
            sscanf(text, "%d %d", &a, &b); // L:parse
            pthread_join(t, 0);
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        expectRaceBetween(checkSource(src, withAlgorithm(algo)), src, "L:write", "L:parse");
    }
    const auto r = checkSource(R"(
        #include <stdio.h>
        int main() {
            int a, b;
            char word[8];
            return sscanf("12 34 x", "%d %d %7s", &a, &b, word) == 3 && a + b == 46 ? 0 : 1;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    const uint64_t none = checkSource("int main() { return 0; }").stats.events;
    EXPECT_EQ(r.stats.events, none) << "the locals handed to sscanf, and the models' own, are no events";
    // A string stored into a shared buffer is one copy per 128 characters, not an event per character.
    const auto word = checkSource(R"(
        #include <stdio.h>
        char word[300];
        int main() {
            return sscanf("a_word_of_fifty_characters_or_so_stored_at_once_ok x", "%s", word) == 1 ? 0 : 1;
        })");
    EXPECT_EQ(word.verdict, Verdict::Safe);
    EXPECT_EQ(word.stats.events, none + 1);
}

// Output through streams and descriptors is captured as printf's; strerror and perror give glibc's messages;
// getpid, clock and the buffering calls answer as documented; aligned allocations are malloc's (every object is
// aligned to anything), bzero is memset's.
TEST(LibcModels, StreamsErrorsAndAlignedAllocation) {
    EXPECT_EQ(safeOutput(R"(
        #include <errno.h>
        #include <malloc.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <strings.h>
        #include <time.h>
        #include <unistd.h>
        int main(void) {
            setvbuf(stdout, 0, _IONBF, 0);
            fputs("a", stdout);
            fputc('b', stdout);
            putc('c', stderr);
            fwrite("de", 1, 2, stdout);
            write(1, "fgh", 2);
            printf("\n[%s] [%s] [%s]\n", strerror(EINVAL), strerror(0), strerror(999));
            errno = EBUSY;
            perror("lock");
            printf("%d %ld %d\n", getpid(), (long)clock(), write(7, "x", 1) == -1 && errno == EBADF);
            void *p = aligned_alloc(64, 128), *q = 0, *m = memalign(16, 8);
            int r = posix_memalign(&q, 32, 16);
            char b[4] = "xyz";
            bzero(b, 2);
            printf("%d %d %d %d\n", p && q && m, r, b[0] == 0 && b[1] == 0, b[2]);
            free(p);
            free(q);
            free(m);
            return 0;
        })"),
              "abcdefg\n[Invalid argument] [Success] [Unknown error 999]\nlock: Device or resource busy\n1 0 1\n"
              "1 0 1 122\n");
}

// strerror's message of an unknown number is written into one buffer of the process, as glibc's: two threads asking
// at once race on it.
TEST(LibcModels, StrerrorIsNotThreadSafe) {
    const std::string src = R"(
        #include <pthread.h>
        #include <string.h>
        void *worker(void *arg) {
            return strerror(900 + (int)(long)arg); // L:worker
        }
        int main() {
            pthread_t t;
            pthread_create(&t, 0, worker, (void *)1);
            strerror(999); // L:main
            pthread_join(t, 0);
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        expectRaceBetween(checkSource(src, withAlgorithm(algo)), src, "L:worker", "L:main");
    }
}

// printf's %s strings of a constant format are read by an event first (LowerCall.cpp, readStringArguments): printing
// a string another thread writes races; a NULL is printed "(null)", a thread's own buffer costs no event.
TEST(LibcModels, PrintfReadsItsStrings) {
    const std::string src = R"(
        #include <pthread.h>
        #include <stdio.h>
        #include <string.h>
        char msg[16] = "hello";
        void *writer(void *arg) {
            strcpy(msg, "world"); // L:write
            return arg;
        }
        int main(void) {
            pthread_t t;
            pthread_create(&t, 0, writer, 0);
            printf("%d %s %s\n", 1, msg, (char *)0); // L:print
            pthread_join(t, 0);
            return 0;
        })";
    for (const char* algo : {"dfs", "qpor"}) {
        SCOPED_TRACE(algo);
        const auto r = checkSource(src, withAlgorithm(algo));
        expectRaceBetween(r, src, "L:write", "L:print");
        EXPECT_TRUE(output(r) == "1 hello (null)\n" || output(r) == "1 world (null)\n") << output(r);
    }
    const uint64_t none = checkSource("int main() { return 0; }").stats.events;
    EXPECT_EQ(checkSource(R"(
        #include <stdio.h>
        int main() {
            char mine[8] = "abc";
            printf("%s %s\n", mine, "literal");
            return 0;
        })")
                  .stats.events,
              none);
}

} // namespace
