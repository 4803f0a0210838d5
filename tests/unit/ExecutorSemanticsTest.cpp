// Sequential semantics of the executor (issue 2, "Executor"): what a single thread computes. Values are
// asserted through the captured printf output, so each test checks the interpreter end to end: front end,
// lowering, interpretation. Operands go through function parameters so that Clang cannot fold them.
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

TEST(ExecSemantics, IntegerWidthsWrapAround) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <stdint.h>
        int8_t inc8(int8_t v) { return v + 1; }
        uint8_t inc8u(uint8_t v) { return v + 1; }
        int16_t inc16(int16_t v) { return v + 1; }
        uint16_t dec16u(uint16_t v) { return v - 1; }
        int64_t inc64(int64_t v) { return (int64_t)((uint64_t)v + 1); }
        uint64_t dec64u(uint64_t v) { return v - 1; }
        uint32_t mul32(uint32_t a, uint32_t b) { return a * b; }
        int main() {
            printf("%d %u %d %u\n", inc8(127), inc8u(255), inc16(32767), dec16u(0));
            printf("%lld %llu\n", (long long)inc64(INT64_MAX), (unsigned long long)dec64u(0));
            printf("%u\n", mul32(65536u, 65537u));
            char c = (char)inc8u(199);
            printf("%d\n", c);
            return 0;
        })"),
              "-128 0 -32768 65535\n-9223372036854775808 18446744073709551615\n65536\n-56\n");
}

TEST(ExecSemantics, SignedDivisionRemainderAndShifts) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int sdiv(int a, int b) { return a / b; }
        int srem(int a, int b) { return a % b; }
        long long sdiv64(long long a, long long b) { return a / b; }
        long long srem64(long long a, long long b) { return a % b; }
        short sdiv16(short a, short b) { return a / b; }
        unsigned udiv(unsigned a, unsigned b) { return a / b; }
        unsigned long long udiv64(unsigned long long a, unsigned long long b) { return a / b; }
        int ashr(int a, int s) { return a >> s; }
        unsigned lshr(unsigned a, int s) { return a >> s; }
        int shl(int a, int s) { return a << s; }
        long long ashr64(long long a, int s) { return a >> s; }
        signed char ashr8(signed char a, int s) { return a >> s; }
        int main() {
            printf("%d %d %d %d\n", sdiv(-7, 2), srem(-7, 2), sdiv(7, -2), srem(7, -2));
            printf("%lld %lld\n", sdiv64(-9000000000LL, 7), srem64(-9000000000LL, 7));
            printf("%d\n", sdiv16(-300, 7));
            printf("%u %llu\n", udiv(0xFFFFFFFFu, 2), udiv64(0xFFFFFFFFFFFFFFFFull, 3));
            printf("%d %u %d %lld %d\n", ashr(-16, 2), lshr(0x80000000u, 31), shl(1, 31), ashr64(-1, 63), ashr8(-128, 7));
            return 0;
        })"),
              "-3 -1 -3 1\n-1285714285 -5\n-42\n2147483647 6148914691236517205\n-4 1 -2147483648 -1 -1\n");
}

TEST(ExecSemantics, UnsignedAndSignedComparisons) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int ult(unsigned a, unsigned b) { return a < b; }
        int slt(int a, int b) { return a < b; }
        int mixed(int a, unsigned b) { return a < b; }
        int ult8(unsigned char a, unsigned char b) { return a < b; }
        int slt64(long long a, long long b) { return a < b; }
        int ugt64(unsigned long long a, unsigned long long b) { return a > b; }
        int main() {
            printf("%d %d %d %d %d %d\n", ult(1, 0xFFFFFFFFu), slt(1, -1), mixed(-1, 1), ult8(200, 100),
                   slt64(-5, 3), ugt64(0x8000000000000000ull, 1));
            return 0;
        })"),
              "1 0 0 0 1 1\n");
}

TEST(ExecSemantics, FloatingPointArithmeticAndConversions) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <math.h>
        float fadd(float a, float b) { return a + b; }
        double dadd(double a, double b) { return a + b; }
        double ddiv(double a, double b) { return a / b; }
        int toInt(double d) { return (int)d; }
        unsigned toUnsigned(double d) { return (unsigned)d; }
        unsigned char toUChar(float f) { return (unsigned char)f; }
        double fromInt(int i) { return i; }
        double fromU64(unsigned long long u) { return (double)u; }
        float narrow(double d) { return (float)d; }
        int isnan_(double d) { return d != d; }
        int less(float a, double b) { return a < b; }
        int main() {
            printf("%.9g %.17g\n", fadd(0.1f, 0.2f), dadd(0.1, 0.2));
            printf("%.3f %.2f %.1f\n", ddiv(3.0, 4.0), fadd(1.5f, 2.25f), -ddiv(1.0, 2.0));
            printf("%d %d %u %u\n", toInt(3.99), toInt(-3.99), toUnsigned(3e9), toUChar(250.7f));
            printf("%.1f %.1f %.9g\n", fromInt(-5), fromU64(1ull << 63), (double)narrow(1.0 / 3.0));
            printf("%d %d %d\n", isnan_(ddiv(0.0, 0.0)), less(1.5f, 1.25), ddiv(1.0, 0.0) > 1e308);
            printf("%.5f %.1f %.1f %.1f\n", sqrt(2.0), fabs(-2.5), floor(-1.5), ceil(1.2));
            printf("%e %g\n", 12345.678, 0.0001);
            return 0;
        })"),
              "0.300000012 0.30000000000000004\n0.750 3.75 -0.5\n3 -3 3000000000 250\n"
              "-5.0 9223372036854775808.0 0.333333343\n1 0 1\n1.41421 2.5 -2.0 2.0\n1.234568e+04 0.0001\n");
}

TEST(ExecSemantics, StructsArraysAndPointerArithmetic) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <stddef.h>
        struct P { int x; char c; long y; };
        struct Outer { int n; struct P ps[2]; int tail[3]; };
        struct P arr[3];
        int main() {
            for (int i = 0; i < 3; i++) { arr[i].x = i * 10; arr[i].c = 'a' + i; arr[i].y = -i; }
            struct P *p = arr;
            p++;
            printf("%d %c %ld\n", p->x, p->c, p->y);
            printf("%ld %ld %zu\n", (long)(&arr[2] - &arr[0]), (long)((char *)&arr[2] - (char *)arr), sizeof(struct P));
            printf("%d %d\n", &arr[1] < &arr[2], p == &arr[1]);
            int m[2][3] = {{1, 2, 3}, {4, 5, 6}};
            int s = 0;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 3; j++) s += m[i][j] * (i + 1);
            int *q = &m[0][0];
            printf("%d %d %d\n", s, *(q + 4), q[5]);
            struct P a = arr[2];
            a.x = 99;
            printf("%d %d\n", a.x, arr[2].x);
            struct Outer o = {7, {{1, 'x', 2}, {3, 'y', 4}}, {5, 6, 7}};
            struct Outer o2;
            o2 = o;
            o2.ps[1].c = 'z';
            char *base = (char *)&o2;
            int *tail = (int *)(base + offsetof(struct Outer, tail));
            printf("%d %c %c %d %ld\n", o2.n, o.ps[1].c, o2.ps[1].c, tail[2], o2.ps[1].y);
            return 0;
        })"),
              "10 b -1\n2 32 16\n1 1\n36 5 6\n99 20\n7 y z 7 4\n");
}

TEST(ExecSemantics, StructsByValueAndReturnedStructs) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        struct Big { int a[8]; };
        struct Pair { long a, b; };
        struct Small { int x, y; };
        struct Three { char c[3]; };
        int modify(struct Big b) { b.a[0] = 100; return b.a[0] + b.a[7]; }
        struct Big make(int k) { struct Big b; for (int i = 0; i < 8; i++) b.a[i] = k + i; return b; }
        struct Pair mkpair(long x) { struct Pair p = {x, x + 1}; return p; }
        struct Small swap(struct Small s) { struct Small r = {s.y, s.x}; return r; }
        struct Three three(struct Three t) { t.c[0]++; return t; }
        int main() {
            struct Big x = {{1, 2, 3, 4, 5, 6, 7, 8}};
            int r = modify(x);
            printf("%d %d\n", r, x.a[0]);
            struct Big y = make(10);
            printf("%d %d\n", y.a[0], y.a[7]);
            struct Pair p = mkpair(41);
            printf("%ld %ld\n", p.a, p.b);
            struct Small s = {1, 2};
            s = swap(s);
            printf("%d %d\n", s.x, s.y);
            struct Three t = {{'a', 'b', 'c'}};
            t = three(t);
            printf("%c%c%c\n", t.c[0], t.c[1], t.c[2]);
            return 0;
        })"),
              "108 1\n10 17\n41 42\n2 1\nbbc\n");
}

TEST(ExecSemantics, FloatingPointStructsByValue) {
    // x86-64 passes {double, double} as two registers and {float, float} as one <2 x float> vector.
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        struct D { double x, y; };
        struct F { float x, y; };
        struct F3 { float x, y, z; };
        struct D mkd(double a) { struct D d = {a, a * 2}; return d; }
        double sumd(struct D d) { return d.x + d.y; }
        struct F mkf(float a) { struct F f = {a, a * 2}; return f; }
        float sumf(struct F f) { return f.x + f.y; }
        struct F3 scale(struct F3 v, float k) { v.x *= k; v.y *= k; v.z *= k; return v; }
        int main() {
            struct D d = mkd(1.5);
            struct F f = mkf(0.25f);
            struct F3 v = scale((struct F3){1, 2, 3}, 2);
            printf("%.1f %.1f %.1f %.2f %.2f %.2f %.0f %.0f %.0f\n", d.x, d.y, sumd(d), f.x, f.y, sumf(f), v.x, v.y, v.z);
            return 0;
        })"),
              "1.5 3.0 4.5 0.25 0.50 0.75 2 4 6\n");
}

TEST(ExecSemantics, GlobalInitialisers) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int g = 42;
        int arr[5] = {1, 2, 3};
        int *pg = &g;
        int *pa = &arr[2];
        const char *names[] = {"alpha", "beta", "gamma"};
        struct S { int id; const char *name; int *ptr; } table[] = {{1, "one", &g}, {2, "two", &arr[1]}};
        char buf[10] = "hi";
        double dd = 2.5;
        float ff = -0.25f;
        static int counter;
        long long big = -1LL;
        unsigned short us = 65535;
        struct { char c; int i; short s; } mixed = {'x', 7, -3};
        int inc(int v) { return v + 1; }
        int (*fp)(int) = inc;
        const char *last = "xyz" + 1;
        int **pp = &pg;
        int main() {
            printf("%d %d %d %d %d\n", g, arr[2] + arr[4], *pg, *pa, **pp);
            printf("%s %s %s %s\n", names[1], names[2] + 1, table[1].name, last);
            printf("%d %d %s %.2f %.2f %d\n", *table[1].ptr, *table[0].ptr, buf, dd, ff, counter);
            printf("%lld %u %c %d %d %d\n", big, us, mixed.c, mixed.i, mixed.s, fp(1));
            g = 5;
            printf("%d %d\n", *pg, *table[0].ptr);
            return 0;
        })"),
              "42 3 42 3 42\nbeta amma two yz\n2 42 hi 2.50 -0.25 0\n-1 65535 x 7 -3 2\n5 5\n");
}

TEST(ExecSemantics, FunctionPointers) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int add(int a, int b) { return a + b; }
        int mul(int a, int b) { return a * b; }
        int (*ops[])(int, int) = {add, mul};
        int apply(int (*f)(int, int), int a, int b) { return f(a, b); }
        struct Obj { int (*op)(int, int); int k; };
        typedef void (*Visitor)(int);
        int total;
        void visit(int v) { total += v; }
        void each(int *a, int n, Visitor v) { for (int i = 0; i < n; i++) v(a[i]); }
        int main() {
            int r = 0;
            for (int i = 0; i < 2; i++) r = r * 100 + ops[i](3, 4);
            struct Obj o = {mul, 5};
            int a[] = {1, 2, 3};
            each(a, 3, visit);
            int (*f)(int, int) = add;
            printf("%d %d %d %d %d %d\n", r, apply(mul, 5, 6), o.op(o.k, 2), total, f == add, f == mul);
            return 0;
        })"),
              "712 30 10 6 1 0\n");
}

TEST(ExecSemantics, Recursion) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
        int ack(int m, int n) { return m == 0 ? n + 1 : n == 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)); }
        int isOdd(int n);
        int isEven(int n) { return n == 0 ? 1 : isOdd(n - 1); }
        int isOdd(int n) { return n == 0 ? 0 : isEven(n - 1); }
        int sum(int *a, int n) { if (n == 0) return 0; int local[1] = {a[0]}; return local[0] + sum(a + 1, n - 1); }
        int main() {
            int a[] = {1, 2, 3, 4, 5};
            printf("%d %d %d %d %d\n", fib(15), ack(2, 3), isEven(10), isOdd(7), sum(a, 5));
            return 0;
        })"),
              "610 9 1 1 15\n");
}

TEST(ExecSemantics, SwitchStatements) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        const char *name(int x) {
            switch (x) {
            case -1: return "neg";
            case 0: return "zero";
            case 1: case 2: return "small";
            case 1000000: return "big";
            default: return "other";
            }
        }
        int fall(int x) {
            int r = 0;
            switch (x) { case 0: r += 1; case 1: r += 10; break; case 2: r += 100; default: r += 1000; }
            return r;
        }
        int wide(long long v) { switch (v) { case 0x100000000LL: return 1; case -2: return 2; default: return 0; } }
        int onChar(char c) { switch (c) { case 'a': return 1; case -5: return 2; default: return 3; } }
        int main() {
            printf("%s %s %s %s %s %s\n", name(-1), name(0), name(2), name(1000000), name(3), name(-7));
            printf("%d %d %d %d\n", fall(0), fall(1), fall(2), fall(3));
            printf("%d %d %d %d %d %d\n", wide(0x100000000LL), wide(-2), wide(0), onChar('a'), onChar(-5), onChar(0));
            return 0;
        })"),
              "neg zero small big other other\n11 10 1100 1000\n1 2 0 1 2 3\n");
}

TEST(ExecSemantics, GotoSelectAndPhi) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int pick(int c, int a, int b) { return c ? a : b; }
        int main() {
            int i = 0, s = 0;
        again:
            s += i;
            i++;
            if (i < 5) goto again;
            int found = -1;
            for (int x = 0; x < 10; x++)
                for (int y = 0; y < 10; y++)
                    if (x * y == 42) { found = x * 10 + y; goto out; }
        out:
            printf("%d %d %d %d %d\n", s, found, pick(1, 7, 8), pick(0, 7, 8), (i > 3 && s > 5) || found < 0);
            return 0;
        })"),
              "10 67 7 8 1\n");
}

TEST(ExecSemantics, VariableLengthArrays) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int sumvla(int n) {
            int a[n];
            for (int i = 0; i < n; i++) a[i] = i * i;
            int s = 0;
            for (int i = 0; i < n; i++) s += a[i];
            return s + (int)sizeof(a);
        }
        int diag(int n) {
            int m[n][n];
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) m[i][j] = i == j ? i : 0;
            int s = 0;
            for (int i = 0; i < n; i++) s += m[i][i];
            return s;
        }
        int main() {
            int t = 0;
            for (int k = 1; k <= 3; k++) { char v[k]; v[k - 1] = (char)k; t += v[k - 1]; }
            printf("%d %d %d\n", sumvla(5), diag(4), t);
            return 0;
        })"),
              "50 6 6\n");
}

TEST(ExecSemantics, MemoryAndStringFunctions) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <string.h>
        struct R { int a; double b; char s[6]; };
        int sign(int v) { return v < 0 ? -1 : v > 0; }
        int main() {
            char a[16], b[16];
            memset(a, 'x', 5);
            a[5] = 0;
            strcpy(b, a);
            printf("%s %zu %zu\n", b, strlen(b), strlen(""));
            char s[] = "abcdef";
            memmove(s + 1, s, 4);
            printf("%s\n", s);
            printf("%d %d %d %d\n", sign(strcmp("abc", "abd")), strcmp("same", "same"), sign(strcmp("b", "a")),
                   sign(strcmp("ab", "abc")));
            printf("%d %d %d\n", sign(strncmp("abcX", "abcY", 3)), sign(memcmp("aa", "ab", 2)), sign(strncmp("abcX", "abcY", 4)));
            struct R r1 = {1, 2.5, "hello"}, r2;
            memcpy(&r2, &r1, sizeof r1);
            printf("%d %.1f %s\n", r2.a, r2.b, r2.s);
            int nums[4];
            memset(nums, 0, sizeof nums);
            nums[2] = 9;
            int copy[4];
            __builtin_memcpy(copy, nums, sizeof nums);
            __builtin_memset(nums, 0xFF, sizeof nums);
            printf("%d %d %d\n", copy[2], copy[3], nums[0]);
            char cat[16] = "foo";
            strcat(cat, "bar");
            char n[8];
            strncpy(n, "xy", 5);
            printf("%s %s %d %d\n", cat, n, n[3], n[4]);
            return 0;
        })"),
              "xxxxx 5 0\naabcdf\n-1 0 1 -1\n0 -1 -1\n1 2.5 hello\n9 0 -1\nfoobar xy 0 0\n");
}

// Strings longer than 4,096 bytes: the string functions once read at most that much, so strlen returned 4,096 and
// strcpy copied 4,096 bytes of a longer string — wrong values, and no error. An unterminated string is read to its
// object's end and reported as the out-of-bounds read it is.
TEST(ExecSemantics, StringFunctionsOnLongStrings) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        int main() {
            char *s = malloc(10001), *d = malloc(20002);
            memset(s, 'a', 10000);
            s[10000] = 0;
            s[9000] = 'b';
            strcpy(d, s);
            strcat(d, s);
            printf("%zu %zu %d %c %c %d\n", strlen(s), strlen(d), strcmp(s, d) < 0, d[9000], d[19000], d[20000]);
            d[9000] = 'a';
            printf("%d %d\n", strcmp(s, d) > 0, strncmp(s, d, 9000));
            return 0;
        })"),
              "10000 20000 1 b b 0\n1 0\n");
    const auto r = skein::test::checkSource(R"(
        #include <stdlib.h>
        #include <string.h>
        int main() {
            char *s = malloc(8192);
            memset(s, 'a', 8192); // no NUL
            return (int)strlen(s);
        })");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, skein::report::ErrorKind::Memory);
    EXPECT_NE(r.errors[0].message.find("out-of-bounds"), std::string::npos) << r.errors[0].message;
}

TEST(ExecSemantics, HeapAllocation) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        #include <stdlib.h>
        struct Node { int v; struct Node *next; };
        int main() {
            int *p = malloc(4 * sizeof(int));
            for (int i = 0; i < 4; i++) p[i] = i;
            p = realloc(p, 8 * sizeof(int));
            for (int i = 4; i < 8; i++) p[i] = i;
            int s = 0;
            for (int i = 0; i < 8; i++) s += p[i];
            free(p);
            int *z = calloc(5, sizeof(int));
            int zs = 0;
            for (int i = 0; i < 5; i++) zs += z[i];
            free(z);
            int *q = realloc(NULL, sizeof(int));
            *q = 3;
            free(NULL);
            struct Node *head = NULL;
            for (int i = 1; i <= 5; i++) {
                struct Node *n = malloc(sizeof *n);
                n->v = i;
                n->next = head;
                head = n;
            }
            int ls = 0;
            while (head) { struct Node *n = head; ls = ls * 10 + n->v; head = n->next; free(n); }
            char *shrink = malloc(8);
            shrink[0] = 'k';
            shrink = realloc(shrink, 1);
            printf("%d %d %d %d %c\n", s, zs, *q, ls, shrink[0]);
            free(q);
            free(shrink);
            return 0;
        })"),
              "28 0 3 54321 k\n");
}

// An allocation Skein cannot make (over 256 MB) fails as a real one may: NULL, and a failed realloc leaves its object
// as it was. A calloc whose size product overflows fails too — it once wrapped around to a 0-byte object, and a
// realloc past the limit was cut to 32 bits and freed the object it was given.
TEST(ExecSemantics, AllocationsTooLargeReturnNull) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        int main() {
            char *p = malloc(((size_t)1 << 32) | 8);
            char *c = calloc((size_t)1 << 33, (size_t)1 << 31);
            char *q = malloc(16);
            q[0] = 7;
            char *r = realloc(q, SIZE_MAX - 1);
            printf("%d %d %d %d %d\n", p == 0, c == 0, r == 0, q[0], realloc(0, SIZE_MAX) == 0);
            free(q);
            return 0;
        })"),
              "1 1 1 7 1\n");
}

// A length past the rest of its object — a negative one passed as size_t, say — fails out of bounds, in every
// explorer. It once crashed the process (strncpy sized a buffer of (size_t)-1 bytes), hung every explorer at 4 GB
// (the event's footprint: a billion words; qpor at 100 MB: 5 GB and still going after a minute), or, cut to 32 bits,
// gave the event no footprint, and the race below went unseen.
TEST(ExecSemantics, HugeLengthsFailOutOfBounds) {
    const auto r = skein::test::checkSource(R"(
        #include <string.h>
        int main() { char d[8]; strncpy(d, "abc", (size_t)-1); return d[0]; })");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].kind, ErrorKind::Memory);
    EXPECT_NE(r.errors[0].message.find("out-of-bounds"), std::string::npos) << r.errors[0].message;
    for (const char* length : {"(size_t)1 << 33", "((size_t)1 << 32) - 8", "100000000"})
        for (const char* algorithm : {"dfs", "qpor", "vhb"}) {
            SCOPED_TRACE(std::string(algorithm) + " " + length);
            Options o;
            o.algorithm = algorithm;
            const auto t = skein::test::checkSource(std::string(R"(
                #include <pthread.h>
                #include <stdlib.h>
                #include <string.h>
                char *buf;
                int x;
                void *w(void *a) { memset(buf, 0, )") + length + R"(); return 0; }
                void *r(void *a) { x = buf[3]; return 0; }
                int main() {
                    pthread_t a, b;
                    buf = malloc(64);
                    pthread_create(&a, 0, w, 0);
                    pthread_create(&b, 0, r, 0);
                    pthread_join(a, 0);
                    pthread_join(b, 0);
                    return 0;
                })",
                                                    o);
            EXPECT_EQ(skein::test::errorKinds(t), (std::vector<std::string>{"data_race", "memory"}));
        }
}

TEST(ExecSemantics, PrintfFamilyIsCaptured) {
    auto r = checkSource(R"(
        #include <stdio.h>
        int main() {
            int n = printf("[%5d|%-3d|%03d]", 42, 7, 5);
            printf(" %x %X %o %c %s %% %ld %lu %lld %hhd %hd\n", 255, 255, 8, 'q', "str", -3L, 4UL, -5LL, 300, 70000);
            printf("%08.3f|%+d|%*d|%.2s\n", 3.14159, 5, 4, 9, "abcdef");
            puts("line");
            putchar('!');
            fprintf(stderr, "err%d", 1);
            printf("%s", (char *)0);
            printf("%d\n", n);
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(output(r), "[   42|7  |005] ff FF 10 q str % -3 4 -5 44 4464\n0003.142|+5|   9|ab\nline\n!err1(null)15\n");
}

TEST(ExecSemantics, ArgcArgvAreEmpty) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int main(int argc, char **argv) { printf("%d %d\n", argc, argv[0] == 0); return 0; })"),
              "0 1\n");
}

TEST(ExecSemantics, ExitEndsTheProgram) {
    auto r = checkSource(R"(
        #include <stdio.h>
        #include <stdlib.h>
        void leave(int c) { printf("bye %d\n", c); exit(c); }
        int main() {
            leave(3);
            printf("not reached\n");
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(output(r), "bye 3\n");
    EXPECT_EQ(r.stats.executions, 1u);
}

TEST(ExecSemantics, IntrinsicsAndOverflowBuiltins) {
    EXPECT_EQ(safeOutput(R"(
        #include <stdio.h>
        int main() {
            int r;
            int o1 = __builtin_add_overflow(2147483647, 1, &r);
            unsigned u;
            int o2 = __builtin_mul_overflow(65536u, 65536u, &u);
            int o3 = __builtin_sub_overflow(5, 3, &r);
            printf("%d %d %d %d %d %u\n", o1, o2, o3, r, __builtin_popcount(0xF0F0u), __builtin_bswap32(0x11223344u) == 0x44332211u);
            return 0;
        })"),
              "1 1 0 2 8 1\n");
}

TEST(ExecSemantics, AssumeAndAbortCutExecutions) {
    // A failed assume and abort() are not errors: the execution is dropped.
    auto r = checkSource(R"(
        #include <stdlib.h>
        #include <assert.h>
        extern _Bool __VERIFIER_nondet_bool(void);
        extern void __VERIFIER_assume(int);
        int main() {
            _Bool b = __VERIFIER_nondet_bool();
            __VERIFIER_assume(b);
            assert(b);
            if (__VERIFIER_nondet_bool()) abort();
            return 0;
        })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(r.stats.executions, 1u);
    EXPECT_EQ(r.stats.blocked, 2u); // b == 0 (assume), then abort()
}

TEST(ExecSemantics, NondetIsExploredAsAChoice) {
    // Each value of the domain is one execution; a sampled domain makes the verdict bounded.
    auto r = checkSource(R"(
        #include <stdio.h>
        extern int __VERIFIER_nondet_int(void);
        int main() { int x = __VERIFIER_nondet_int(); printf("%d", x); return 0; })");
    EXPECT_EQ(r.verdict, Verdict::Bounded);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(r.stats.executions, 2u);

    Options o;
    o.explore.exec.nondetDomain = {-3, 0, 7};
    auto r3 = checkSource(R"(
        #include <assert.h>
        extern int __VERIFIER_nondet_int(void);
        int main() { int x = __VERIFIER_nondet_int(); assert(x != 7); return 0; })",
                          o);
    EXPECT_EQ(r3.verdict, Verdict::Error);
    EXPECT_EQ(r3.stats.executions, 3u);
    ASSERT_EQ(r3.errors.size(), 1u);
    ASSERT_EQ(r3.errors[0].schedule.size(), 1u);
    EXPECT_EQ(r3.errors[0].schedule[0].choice, 2u); // the decision that replays x == 7

    // Unsigned and narrow types see the domain modulo their width.
    o.explore.exec.nondetDomain = {-1};
    auto r4 = checkSource(R"(
        #include <stdio.h>
        extern unsigned char __VERIFIER_nondet_uchar(void);
        extern unsigned __VERIFIER_nondet_uint(void);
        extern short __VERIFIER_nondet_short(void);
        int main() { printf("%u %u %d", __VERIFIER_nondet_uchar(), __VERIFIER_nondet_uint(), __VERIFIER_nondet_short()); return 0; })",
                          o);
    EXPECT_EQ(output(r4), "255 4294967295 -1");
}

TEST(ExecSemantics, NondetBoolIsExhaustive) {
    auto r = checkSource(R"(
        #include <assert.h>
        extern _Bool __VERIFIER_nondet_bool(void);
        int main() { int n = 0; for (int i = 0; i < 3; i++) n += __VERIFIER_nondet_bool(); assert(n <= 3); return 0; })");
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(r.stats.executions, 8u);
    EXPECT_TRUE(r.bounds.empty());
}

TEST(ExecSemantics, NondetOverAWholeDomainIsNotSampled) {
    // The spec: a sampled domain makes the verdict bounded "unless the type's whole domain was explored".
    Options o;
    o.explore.exec.nondetDomain.clear();
    for (int v = 0; v < 256; ++v) o.explore.exec.nondetDomain.push_back(v);
    auto r = checkSource(R"(
        #include <assert.h>
        extern unsigned char __VERIFIER_nondet_uchar(void);
        extern char __VERIFIER_nondet_char(void);
        int main() { unsigned char c = __VERIFIER_nondet_uchar(); assert(c <= 255); return 0; })",
                         o);
    EXPECT_EQ(r.verdict, Verdict::Safe);
    EXPECT_EQ(r.stats.executions, 256u);
    // An int drawn from the same 256 values is a sample.
    auto r2 = checkSource(R"(
        extern int __VERIFIER_nondet_int(void);
        int main() { int c = __VERIFIER_nondet_int(); return c > 1000; })",
                          o);
    EXPECT_EQ(r2.verdict, Verdict::Bounded);
}

} // namespace
