/* Models of C library functions, written in C: linked into a checked program where it calls one and does not define
 * it (Frontend.cpp, linkLibcModels), then interpreted as the program's own code is. Their memory accesses are the
 * program's — a strchr of a shared string reads it, and may race — and an event they make is placed at the call
 * (this file has no debug locations: Executor::currentLoc). Their loops are not loops of the program: no unroll
 * bound, no spin-loop cut (the "skein-model" attribute, LowerInstr.cpp).
 *
 * Only what C code can do is here; what needs the executor (threads, locks, malloc, the string functions that copy,
 * printf) is a builtin (core/program/Builtins.def). No system header: this file compiles in a millisecond and means
 * the same whatever libc is installed. Everything is weak, so that a program's own definition wins; the behaviour is
 * glibc's in the C locale. */

typedef unsigned long size_t;
typedef int int32_t;

void *malloc(size_t);
void *memcpy(void *, const void *, size_t);
size_t strlen(const char *);
int *__errno_location(void);

#define MODEL __attribute__((weak))
#define ERANGE 34
#define EINVAL 22

/* ---- <ctype.h>: glibc's tables (its headers' isdigit etc. are macros that index them) ---- */

/* The C locale's classes, for parsing numbers below. */
#define IS_UP(c) ((c) >= 'A' && (c) <= 'Z')
#define IS_LO(c) ((c) >= 'a' && (c) <= 'z')
#define IS_DI(c) ((c) >= '0' && (c) <= '9')
#define IS_XD(c) (IS_DI(c) || ((c) >= 'a' && (c) <= 'f') || ((c) >= 'A' && (c) <= 'F'))
#define IS_SP(c) ((c) == ' ' || ((c) >= 9 && (c) <= 13))
/* glibc's tables in the C locale, indexed from -128 (a signed char) to 255: its classification bits (little-endian
 * <ctype.h>, _ISbit: upper 0x100, lower 0x200, alpha 0x400, digit 0x800, xdigit 0x1000, space 0x2000, print 0x4000,
 * graph 0x8000, blank 0x1, cntrl 0x2, punct 0x4, alnum 0x8) and its case mappings. Read-only: reading them is no
 * event. (Written out from glibc's own; tests/unit/LibcModelsTest.cpp checks each class against its definition.) */
static const unsigned short classTable[384] = {
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2003, 0x2002, 0x2002, 0x2002, 0x2002, 0x2, 0x2,
    0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2, 0x2,
    0x6001, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004,
    0xd808, 0xd808, 0xd808, 0xd808, 0xd808, 0xd808, 0xd808, 0xd808, 0xd808, 0xd808, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004,
    0xc004, 0xd508, 0xd508, 0xd508, 0xd508, 0xd508, 0xd508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508,
    0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc508, 0xc004, 0xc004, 0xc004, 0xc004, 0xc004,
    0xc004, 0xd608, 0xd608, 0xd608, 0xd608, 0xd608, 0xd608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608,
    0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc608, 0xc004, 0xc004, 0xc004, 0xc004, 0x2,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
    0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0,
};
static const int32_t upperTable[384] = {
    128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143,
    144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
    160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175,
    176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191,
    192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207,
    208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223,
    224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239,
    240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, -1,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
    48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79,
    80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,
    96, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79,
    80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 123, 124, 125, 126, 127,
    128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143,
    144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
    160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175,
    176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191,
    192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207,
    208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223,
    224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239,
    240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255,
};
static const int32_t lowerTable[384] = {
    128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143,
    144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
    160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175,
    176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191,
    192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207,
    208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223,
    224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239,
    240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, -1,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
    48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    64, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
    112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 91, 92, 93, 94, 95,
    96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
    112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127,
    128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143,
    144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
    160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175,
    176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191,
    192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207,
    208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223,
    224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239,
    240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255,
};
static const unsigned short *const classBase = classTable + 128;
static const int32_t *const upperBase = upperTable + 128;
static const int32_t *const lowerBase = lowerTable + 128;

MODEL const unsigned short **__ctype_b_loc(void) { return (const unsigned short **)&classBase; }
MODEL const int32_t **__ctype_toupper_loc(void) { return (const int32_t **)&upperBase; }
MODEL const int32_t **__ctype_tolower_loc(void) { return (const int32_t **)&lowerBase; }

static int inRange(int c) { return c >= -128 && c <= 255; }
MODEL int toupper(int c) { return inRange(c) ? upperBase[c] : c; }
MODEL int tolower(int c) { return inRange(c) ? lowerBase[c] : c; }
#define CLASSIFIER(name, bit)                                                                                         \
    MODEL int name(int c) { return inRange(c) ? (classBase[c] & (bit)) != 0 : 0; }
CLASSIFIER(isupper, 0x100)
CLASSIFIER(islower, 0x200)
CLASSIFIER(isalpha, 0x400)
CLASSIFIER(isdigit, 0x800)
CLASSIFIER(isxdigit, 0x1000)
CLASSIFIER(isspace, 0x2000)
CLASSIFIER(isprint, 0x4000)
CLASSIFIER(isgraph, 0x8000)
CLASSIFIER(isblank, 0x1)
CLASSIFIER(iscntrl, 0x2)
CLASSIFIER(ispunct, 0x4)
CLASSIFIER(isalnum, 0x8)

/* ---- <stdlib.h>: integers ---- */

MODEL int abs(int x) { return x < 0 ? -x : x; }
MODEL long labs(long x) { return x < 0 ? -x : x; }
MODEL long long llabs(long long x) { return x < 0 ? -x : x; }

/* strtol and its kin: leading space, a sign, a base prefix (0x for 16, 0 for 8 when base is 0), digits. Out of range:
 * the limit and ERANGE; no digits: 0, with *end at the start; a base out of range: 0 and EINVAL. */
static unsigned long long parse(const char *s, char **end, int base, int *negative, int *overflow,
                                unsigned long long limit) {
    const char *p = s;
    unsigned long long value = 0;
    int any = 0;
    *negative = *overflow = 0;
    if (base < 0 || base == 1 || base > 36) {
        *__errno_location() = EINVAL;
        if (end) *end = (char *)s;
        return 0;
    }
    while (IS_SP(*p)) p++;
    if (*p == '+' || *p == '-') *negative = *p++ == '-';
    if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && IS_XD(p[2])) {
        p += 2;
        base = 16;
    } else if (base == 0) {
        base = *p == '0' ? 8 : 10;
    }
    for (;; p++) {
        int d = IS_DI(*p) ? *p - '0' : IS_LO(*p) ? *p - 'a' + 10 : IS_UP(*p) ? *p - 'A' + 10 : 99;
        if (d >= base) break;
        any = 1;
        if (value > (limit - (unsigned long long)d) / (unsigned long long)base) *overflow = 1;
        else value = value * (unsigned long long)base + (unsigned long long)d;
    }
    if (end) *end = (char *)(any ? p : s);
    return value;
}

#define SIGNED_PARSER(name, type, max)                                                                                \
    MODEL type name(const char *s, char **end, int base) {                                                            \
        int negative, overflow;                                                                                       \
        unsigned long long v = parse(s, end, base, &negative, &overflow, (unsigned long long)(max) + 1);              \
        if (overflow || v > (unsigned long long)(max) + negative) {                                                   \
            *__errno_location() = ERANGE;                                                                             \
            return negative ? -(max)-1 : (max);                                                                       \
        }                                                                                                             \
        return negative ? (type)(0 - v) : (type)v;                                                                    \
    }
#define UNSIGNED_PARSER(name, type, max)                                                                              \
    MODEL type name(const char *s, char **end, int base) {                                                            \
        int negative, overflow;                                                                                       \
        unsigned long long v = parse(s, end, base, &negative, &overflow, (unsigned long long)(max));                  \
        if (overflow) {                                                                                               \
            *__errno_location() = ERANGE;                                                                             \
            return (max);                                                                                             \
        }                                                                                                             \
        return negative ? (type)(0 - v) : (type)v;                                                                    \
    }
SIGNED_PARSER(strtol, long, 0x7fffffffffffffffL)
SIGNED_PARSER(strtoll, long long, 0x7fffffffffffffffLL)
UNSIGNED_PARSER(strtoul, unsigned long, 0xffffffffffffffffUL)
UNSIGNED_PARSER(strtoull, unsigned long long, 0xffffffffffffffffULL)
MODEL int atoi(const char *s) { return (int)strtol(s, 0, 10); }
MODEL long atol(const char *s) { return strtol(s, 0, 10); }
MODEL long long atoll(const char *s) { return strtoll(s, 0, 10); }

/* Sorting and searching: an insertion sort (stable; the order of equal elements is not specified by C). */
MODEL void qsort(void *base, size_t n, size_t size, int (*less)(const void *, const void *)) {
    char *a = base;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && less(a + (j - 1) * size, a + j * size) > 0; j--)
            for (size_t k = 0; k < size; k++) {
                char t = a[(j - 1) * size + k];
                a[(j - 1) * size + k] = a[j * size + k];
                a[j * size + k] = t;
            }
}

MODEL void *bsearch(const void *key, const void *base, size_t n, size_t size,
                    int (*compare)(const void *, const void *)) {
    const char *a = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compare(key, a + mid * size);
        if (c == 0) return (void *)(a + mid * size);
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return 0;
}

/* ---- <string.h>: the searching functions (the copying ones are builtins) ---- */

MODEL char *strchr(const char *s, int c) {
    for (;; s++) {
        if (*s == (char)c) return (char *)s;
        if (!*s) return 0;
    }
}

MODEL char *strrchr(const char *s, int c) {
    const char *last = 0;
    for (;; s++) {
        if (*s == (char)c) last = s;
        if (!*s) return (char *)last;
    }
}

MODEL void *memchr(const void *s, int c, size_t n) {
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        if (p[i] == (unsigned char)c) return (void *)(p + i);
    return 0;
}

MODEL size_t strnlen(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}

MODEL char *strstr(const char *haystack, const char *needle) {
    for (;; haystack++) {
        size_t i = 0;
        while (needle[i] && haystack[i] == needle[i]) i++;
        if (!needle[i]) return (char *)haystack;
        if (!*haystack) return 0;
    }
}

MODEL size_t strspn(const char *s, const char *accept) {
    size_t n = 0;
    for (; s[n]; n++) {
        const char *a = accept;
        while (*a && *a != s[n]) a++;
        if (!*a) break;
    }
    return n;
}

MODEL size_t strcspn(const char *s, const char *reject) {
    size_t n = 0;
    for (; s[n]; n++) {
        const char *r = reject;
        while (*r && *r != s[n]) r++;
        if (*r) break;
    }
    return n;
}

MODEL char *strpbrk(const char *s, const char *accept) {
    s += strcspn(s, accept);
    return *s ? (char *)s : 0;
}

MODEL char *strndup(const char *s, size_t max) {
    size_t n = strnlen(s, max);
    char *copy = malloc(n + 1);
    if (!copy) return 0;
    memcpy(copy, s, n);
    copy[n] = 0;
    return copy;
}

MODEL char *strdup(const char *s) { return strndup(s, (size_t)-1); }

MODEL char *index(const char *s, int c) { return strchr(s, c); }
MODEL char *rindex(const char *s, int c) { return strrchr(s, c); }

MODEL void *memrchr(const void *s, int c, size_t n) {
    const unsigned char *p = s;
    while (n--)
        if (p[n] == (unsigned char)c) return (void *)(p + n);
    return 0;
}

MODEL char *stpcpy(char *dst, const char *src) {
    size_t n = strlen(src);
    memcpy(dst, src, n + 1);
    return dst + n;
}

MODEL void *memccpy(void *dst, const void *src, int c, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++)
        if ((d[i] = s[i]) == (unsigned char)c) return d + i + 1;
    return 0;
}

MODEL char *strncat(char *dst, const char *src, size_t n) {
    char *end = dst + strlen(dst);
    size_t k = strnlen(src, n);
    memcpy(end, src, k);
    end[k] = 0;
    return dst;
}

static int lowerOf(int c) { return IS_UP(c) ? c + 32 : c; }

MODEL int strncasecmp(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int x = lowerOf((unsigned char)a[i]), y = lowerOf((unsigned char)b[i]);
        if (x != y || !x) return x - y;
    }
    return 0;
}

MODEL int strcasecmp(const char *a, const char *b) { return strncasecmp(a, b, (size_t)-1); }

/* strtok keeps its place in a static: one for the whole process, as glibc's — two threads tokenising at once race
 * on it (a data race Skein reports, as it is a real one). strtok_r keeps it where the caller says. */
MODEL char *strtok_r(char *s, const char *delim, char **save) {
    if (!s) s = *save;
    s += strspn(s, delim);
    if (!*s) {
        *save = s;
        return 0;
    }
    char *end = s + strcspn(s, delim);
    if (*end) *end++ = 0;
    *save = end;
    return s;
}

static char *strtok_saved_position;
MODEL char *strtok(char *s, const char *delim) { return strtok_r(s, delim, &strtok_saved_position); }

MODEL int ffs(int x) {
    for (int i = 0; i < 32; i++)
        if (x & (1 << i)) return i + 1;
    return 0;
}
MODEL int ffsl(long x) {
    for (int i = 0; i < 64; i++)
        if (x & (1L << i)) return i + 1;
    return 0;
}

/* ---- the environment: empty (a checked program's runs must not depend on the machine it is checked on) ---- */

MODEL char *getenv(const char *name) {
    (void)name;
    return 0;
}

/* ---- the printf family on va_lists and strings (<stdio.h>) ----
 * Built on __skein_vformat (Builtins.cpp), printf's formatting of a va_list's arguments into this file's private
 * buffer; the copy into the caller's buffer is a memcpy, so writing a shared buffer is an event and writing past the
 * end of one is an error. The formatting reads its %s strings outside any event, so each is read first by an event
 * (readStrings): printing a string another thread writes is a race, and one without a NUL is read past its end. A
 * result over 4,095 characters stops the check with "unsupported" rather than being cut short. */
typedef __builtin_va_list va_list;
typedef struct _IO_FILE FILE;
int __skein_vformat(char *tmp, size_t tmpSize, size_t n, const char *fmt, va_list ap);
int __skein_format_string(const char *fmt, va_list ap, int k, const char **s, int *precision);
int __skein_read_string_n(const char *s, int precision);
int printf(const char *, ...);
int fprintf(FILE *, const char *, ...);

/* Each %s string of fmt, read as printf reads it: to its NUL, or as many characters as the precision says. */
static void readStrings(const char *fmt, va_list ap) {
    const char *s;
    int precision;
    for (int k = 0; __skein_format_string(fmt, ap, k, &s, &precision); k++) __skein_read_string_n(s, precision);
}

MODEL int vsnprintf(char *s, size_t n, const char *fmt, va_list ap) {
    char tmp[4096];
    readStrings(fmt, ap);
    int len = __skein_vformat(tmp, sizeof tmp, n, fmt, ap);
    if (n > 0) memcpy(s, tmp, ((size_t)len < n - 1 ? (size_t)len : n - 1) + 1);
    return len;
}
MODEL int vsprintf(char *s, const char *fmt, va_list ap) { return vsnprintf(s, (size_t)-1, fmt, ap); }
MODEL int snprintf(char *s, size_t n, const char *fmt, ...) {
    va_list ap;
    __builtin_va_start(ap, fmt);
    int len = vsnprintf(s, n, fmt, ap);
    __builtin_va_end(ap);
    return len;
}
MODEL int sprintf(char *s, const char *fmt, ...) {
    va_list ap;
    __builtin_va_start(ap, fmt);
    int len = vsnprintf(s, (size_t)-1, fmt, ap);
    __builtin_va_end(ap);
    return len;
}
MODEL int vprintf(const char *fmt, va_list ap) {
    char tmp[4096];
    readStrings(fmt, ap);
    int len = __skein_vformat(tmp, sizeof tmp, (size_t)-1, fmt, ap);
    printf("%s", tmp);
    return len;
}
MODEL int vfprintf(FILE *stream, const char *fmt, va_list ap) {
    char tmp[4096];
    readStrings(fmt, ap);
    int len = __skein_vformat(tmp, sizeof tmp, (size_t)-1, fmt, ap);
    fprintf(stream, "%s", tmp);
    return len;
}

/* ---- <stdlib.h>: floating-point numbers ----
 * The number's characters are read here (events, as strtol's), up to the first that cannot belong to one — a
 * superset of what a number may hold: digits, signs, '.', exponents, hex digits, "inf(inity)", "nan(...)" — into a
 * private copy that the host's strtod converts exactly (__skein_strtod). A number over 127 such characters is
 * refused as unsupported rather than cut. */
double __skein_strtod(const char *copy, int *result, int isFloat);
void __skein_unsupported(const char *what);

static int numberChar(int c) {
    return IS_XD(c) || c == '+' || c == '-' || c == '.' || c == 'x' || c == 'X' || c == 'p' || c == 'P' ||
           c == 'i' || c == 'I' || c == 'n' || c == 'N' || c == 't' || c == 'T' || c == 'y' || c == 'Y' ||
           c == '(' || c == ')' || c == '_';
}

/* At most `width` characters (0: no limit) of s, after leading space. */
static double parseDouble(const char *s, char **end, int isFloat, size_t width) {
    const char *p = s;
    while (IS_SP(*p)) p++;
    char copy[128];
    size_t n = 0;
    while (n < sizeof copy - 1 && (!width || n < width) && numberChar(p[n])) {
        copy[n] = p[n];
        n++;
    }
    if (n == sizeof copy - 1 && (!width || n < width) && numberChar(p[n]))
        __skein_unsupported("a floating-point number of more than 127 characters");
    copy[n] = 0;
    int result[2];
    double v = __skein_strtod(copy, result, isFloat);
    if (end) *end = (char *)(result[0] ? p + result[0] : s);
    if (result[1]) *__errno_location() = ERANGE;
    return v;
}
MODEL double strtod(const char *s, char **end) { return parseDouble(s, end, 0, 0); }
MODEL float strtof(const char *s, char **end) { return (float)parseDouble(s, end, 1, 0); }
MODEL double atof(const char *s) { return parseDouble(s, 0, 0, 0); }

/* ---- sscanf and vsscanf ----
 * glibc's rules in the C locale: white space in the format matches any (or none) in the input; %d %i %u %o %x %X %p
 * (through strtoll/strtoull, at most the field width's characters), %f %e %g %a and capitals (through strtod or
 * strtof), %s, %c, %[set], %n, %%; the hh, h, l, ll, j, z, t and q lengths; * suppresses the assignment. Returns the
 * assignments made, or EOF when the input ends before the first conversion. The input's characters are read here,
 * so reading a shared string is events (and may race); the assignments are stores through the caller's pointers.
 * %Lf (long double) is refused as unsupported. */
#define EOF (-1)
long long strtoll(const char *, char **, int);
unsigned long long strtoull(const char *, char **, int);

static void storeInteger(void *to, int length, unsigned long long v) {
    switch (length) {
    case -2: *(char *)to = (char)v; break;
    case -1: *(short *)to = (short)v; break;
    case 0: *(int *)to = (int)v; break;
    default: *(long long *)to = (long long)v; break;
    }
}

/* Whether c is in the scanset f[0..] (after '[' and any '^'); *after is set past its ']'. */
static int inScanset(const char *f, int c, const char **after) {
    int found = 0;
    const char *q = f;
    if (*q == ']') found |= c == ']', q++;
    for (; *q && *q != ']'; q++) {
        if (q[1] == '-' && q[2] && q[2] != ']') {
            found |= (unsigned char)c >= (unsigned char)q[0] && (unsigned char)c <= (unsigned char)q[2];
            q += 2;
        } else {
            found |= c == *q;
        }
    }
    *after = *q ? q : q - 1;
    return found;
}

/* The characters a conversion stores, gathered privately and copied into the caller's buffer a block at a time: a
 * shared buffer is written by a few events (memcpy's), not one per character. */
struct Sink {
    char *to; /* null: the assignment is suppressed */
    size_t done, held;
    char block[128];
};
static void sinkFlush(struct Sink *s) {
    if (s->to && s->held) memcpy(s->to + s->done, s->block, s->held);
    s->done += s->held;
    s->held = 0;
}
static void sinkPut(struct Sink *s, char c) {
    if (!s->to) return;
    s->block[s->held++] = c;
    if (s->held == sizeof s->block) sinkFlush(s);
}

MODEL int vsscanf(const char *s, const char *fmt, va_list ap) {
    const char *p = s;
    int assigned = 0, converted = 0;
    for (const char *f = fmt; *f; f++) {
        if (IS_SP(*f)) {
            while (IS_SP(*p)) p++;
            continue;
        }
        if (*f != '%' || f[1] == '%') {
            if (*f == '%') {
                f++;
                while (IS_SP(*p)) p++;
            }
            if (!*p) return converted ? assigned : EOF;
            if (*p != *f) return assigned;
            p++;
            continue;
        }
        f++;
        int suppress = *f == '*';
        if (suppress) f++;
        size_t width = 0;
        while (IS_DI(*f)) width = width * 10 + (size_t)(*f++ - '0');
        int length = 0; /* -2 hh, -1 h, 0, 1 l, 2 ll/j/z/t/q, 3 L */
        for (;; f++) {
            if (*f == 'h') length = length == -1 ? -2 : -1;
            else if (*f == 'l') length = length == 1 ? 2 : 1;
            else if (*f == 'j' || *f == 'z' || *f == 't' || *f == 'q') length = 2;
            else if (*f == 'L') length = 3;
            else break;
        }
        const char conv = *f;
        if (!conv) break;
        if (conv == 'n') {
            if (!suppress) storeInteger(__builtin_va_arg(ap, void *), length, (unsigned long long)(p - s));
            continue;
        }
        if (conv != 'c' && conv != '[')
            while (IS_SP(*p)) p++;
        if (!*p) return converted ? assigned : EOF;
        char field[128];
        const char *from = p;
        if (width && width < sizeof field && conv != 's' && conv != 'c' && conv != '[') {
            size_t k = 0; /* the number's field: at most `width` characters */
            for (; k < width && p[k]; k++) field[k] = p[k];
            field[k] = 0;
            from = field;
        }
        char *end;
        switch (conv) {
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X':
        case 'p': {
            const int base = conv == 'd' || conv == 'u' ? 10 : conv == 'i' ? 0 : conv == 'o' ? 8 : 16;
            unsigned long long v = conv == 'd' || conv == 'i' ? (unsigned long long)strtoll(from, &end, base)
                                                               : strtoull(from, &end, base);
            if (end == from) return assigned;
            p += end - from;
            if (!suppress) {
                if (conv == 'p') *__builtin_va_arg(ap, void **) = (void *)v;
                else storeInteger(__builtin_va_arg(ap, void *), length, v);
                assigned++;
            }
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            if (length == 3) __skein_unsupported("sscanf of a long double (%Lf)");
            double v = parseDouble(from, &end, length == 0, 0);
            if (end == from) return assigned;
            p += end - from;
            if (!suppress) {
                if (length == 0) *__builtin_va_arg(ap, float *) = (float)v;
                else *__builtin_va_arg(ap, double *) = v;
                assigned++;
            }
            break;
        }
        case 's': {
            struct Sink out = {suppress ? 0 : __builtin_va_arg(ap, char *), 0, 0, {0}};
            for (size_t k = 0; *p && !IS_SP(*p) && (!width || k < width); k++, p++) sinkPut(&out, *p);
            sinkPut(&out, 0);
            sinkFlush(&out);
            if (out.to) assigned++;
            break;
        }
        case 'c': {
            struct Sink out = {suppress ? 0 : __builtin_va_arg(ap, char *), 0, 0, {0}};
            const size_t n = width ? width : 1;
            for (size_t k = 0; k < n; k++, p++) {
                if (!*p) {
                    sinkFlush(&out);
                    return converted ? assigned : EOF;
                }
                sinkPut(&out, *p);
            }
            sinkFlush(&out);
            if (out.to) assigned++;
            break;
        }
        case '[': {
            const int negated = f[1] == '^';
            const char *set = f + 1 + negated, *after = set;
            struct Sink out = {suppress ? 0 : __builtin_va_arg(ap, char *), 0, 0, {0}};
            size_t k = 0;
            for (; *p && (!width || k < width) && inScanset(set, *p, &after) != negated; k++, p++) sinkPut(&out, *p);
            inScanset(set, 0, &after);
            f = after;
            if (k == 0) return assigned;
            sinkPut(&out, 0);
            sinkFlush(&out);
            if (out.to) assigned++;
            break;
        }
        default: return assigned; /* an unknown conversion: a matching failure */
        }
        converted++;
    }
    return assigned;
}

/* sscanf under its name and the one glibc's <stdio.h> gives it in C99 mode and later. */
#define SSCANF(name)                                                                                                  \
    MODEL int name(const char *s, const char *fmt, ...) {                                                             \
        va_list ap;                                                                                                   \
        __builtin_va_start(ap, fmt);                                                                                  \
        int n = vsscanf(s, fmt, ap);                                                                                  \
        __builtin_va_end(ap);                                                                                         \
        return n;                                                                                                     \
    }
SSCANF(sscanf)
SSCANF(__isoc99_sscanf)
MODEL int __isoc99_vsscanf(const char *s, const char *fmt, va_list ap) { return vsscanf(s, fmt, ap); }

/* ---- output through streams and descriptors, errors, the process ----
 * Output to any stream or to descriptors 1 and 2 is captured as printf's is (Skein's checked program has no files:
 * another descriptor answers EBADF). strerror writes an unknown number's message into one buffer of the process,
 * as glibc's does: two threads calling it at once race on it. getpid answers 1 and clock 0 (time stands still, as
 * for clock_gettime). */
#define EBADF 9
MODEL int fputs(const char *s, FILE *stream) { return fprintf(stream, "%s", s) >= 0 ? 1 : EOF; }
MODEL int fputc(int c, FILE *stream) {
    fprintf(stream, "%c", c);
    return (unsigned char)c;
}
MODEL int putc(int c, FILE *stream) { return fputc(c, stream); }
MODEL int _IO_putc(int c, FILE *stream) { return fputc(c, stream); }
MODEL size_t fwrite(const void *data, size_t size, size_t n, FILE *stream) {
    fprintf(stream, "%.*s", (int)(size * n), (const char *)data);
    return n;
}
MODEL long write(int fd, const void *data, size_t n) {
    if (fd != 1 && fd != 2) {
        *__errno_location() = EBADF;
        return -1;
    }
    printf("%.*s", (int)n, (const char *)data);
    return (long)n;
}

static const char *const errorMessages[] = {
    [0] = "Success", [1] = "Operation not permitted", [2] = "No such file or directory", [3] = "No such process",
    [4] = "Interrupted system call", [5] = "Input/output error", [9] = "Bad file descriptor",
    [11] = "Resource temporarily unavailable", [12] = "Cannot allocate memory", [13] = "Permission denied",
    [16] = "Device or resource busy", [17] = "File exists", [22] = "Invalid argument",
    [28] = "No space left on device", [34] = "Numerical result out of range", [35] = "Resource deadlock avoided",
    [75] = "Value too large for defined data type", [110] = "Connection timed out"};
static char unknownError[32];
MODEL char *strerror(int e) {
    if (e >= 0 && e < (int)(sizeof errorMessages / sizeof *errorMessages) && errorMessages[e])
        return (char *)errorMessages[e];
    snprintf(unknownError, sizeof unknownError, "Unknown error %d", e);
    return unknownError;
}
MODEL void perror(const char *s) {
    const char *message = strerror(*__errno_location());
    if (s && *s) fprintf(0, "%s: %s\n", s, message);
    else fprintf(0, "%s\n", message);
}
MODEL int getpid(void) { return 1; }
MODEL long clock(void) { return 0; }

/* ---- aligned allocation: every object of Skein's memory starts at an address aligned to anything ---- */
MODEL void *aligned_alloc(size_t alignment, size_t n) { return (void)alignment, malloc(n); }
MODEL void *memalign(size_t alignment, size_t n) { return (void)alignment, malloc(n); }
MODEL int posix_memalign(void **out, size_t alignment, size_t n) {
    void *p = malloc(n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return (void)alignment, 0;
}
void *memset(void *, int, size_t);
MODEL void bzero(void *p, size_t n) { memset(p, 0, n); }
