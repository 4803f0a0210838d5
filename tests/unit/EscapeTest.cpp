// The escape analysis of locals (core/program/Escape.cpp, allocaEscapes): a local whose address no other
// thread can reach is the thread's own — its accesses are no events — and one whose address may reach another
// thread is shared, so that a race on it is found. Since the analysis follows an address into the parameters
// of the functions the program defines, both sides are checked through helpers: the ones that keep the local
// private, and each way a helper can hand the address on (a global, a thread's argument, its return value, a
// pointer stored in memory).
#include <gtest/gtest.h>

#include "tests/unit/ExecTestUtil.h"

using namespace skein::test;

namespace {

uint64_t eventsOf(const std::string& src) {
    const auto r = checkSource(src, withAlgorithm("dfs"));
    EXPECT_EQ(r.verdict, Verdict::Safe) << (r.errors.empty() ? std::string() : r.errors[0].message);
    return r.stats.events;
}

// Helpers that read and write through the pointer, compare it, advance it in a loop, recurse with it or pass
// it on to another such helper: the local stays private, and the program has the events of one with no helper
// at all.
TEST(Escape, HelpersThatOnlyUseThePointerKeepTheLocalPrivate) {
    const uint64_t none = eventsOf("int main() { return 0; }");
    EXPECT_EQ(eventsOf(R"(
        static void fill(int *a, int n) {
            for (int *p = a; p != a + n; ++p) *p = n;
        }
        static int sum(const int *a, int n) { return n == 0 ? 0 : a[n - 1] + sum(a, n - 1); }
        static int check(int *a, int n) {
            if (!a) return -1;
            fill(a, n);
            return sum(a, n);
        }
        int main() {
            int a[4];
            return check(a, 4) == 16 ? 0 : 1;
        })"),
              none);
}

// Each way out of a helper: the local is shared, and the other thread's access to it races with main's.
TEST(Escape, EveryWayAHelperHandsTheAddressOnIsFollowed) {
    const std::string src = R"(
        #include <pthread.h>
        int *global;
        struct Box { int *p; } box;
        void *reader(void *arg) {
            int *p = arg ? (int *)arg : global ? global : box.p;
            return (void *)(long)*p; // L:read
        }
        HELPER
        int main() {
            int local = 0;
            pthread_t t;
            CALL
            local = 1; // L:write
            pthread_join(t, 0);
            return 0;
        })";
    struct Way {
        const char* name;
        const char* helper;
        const char* call;
    } ways[] = {
        {"stored in a global", "void keep(int *p) { global = p; }",
         "keep(&local); pthread_create(&t, 0, reader, 0);"},
        {"stored in a struct", "void keep(int *p) { box.p = p; }",
         "keep(&local); pthread_create(&t, 0, reader, 0);"},
        {"a thread's argument", "void start(pthread_t *t, int *p) { pthread_create(t, 0, reader, p); }",
         "start(&t, &local);"},
        {"returned", "int *same(int *p) { return p; }",
         "global = same(&local); pthread_create(&t, 0, reader, 0);"},
        {"through a second helper", "void keep2(int *p) { global = p; } void keep(int *p) { keep2(p + 0); }",
         "keep(&local); pthread_create(&t, 0, reader, 0);"},
    };
    for (const Way& w : ways) {
        SCOPED_TRACE(w.name);
        const std::string program = substituted(substituted(src, "HELPER", w.helper), "CALL", w.call);
        for (const char* algo : {"dfs", "qpor"}) {
            SCOPED_TRACE(algo);
            expectRaceBetween(checkSource(program, withAlgorithm(algo)), program, "L:read", "L:write");
        }
    }
}

// What a malloc or calloc returns is the thread's own when nothing hands it on: a scratch buffer filled, summed and
// freed (by a helper too) costs no event, and its use after the free is still caught.
TEST(Escape, PrivateHeapObjectsAreNoEvents) {
    const uint64_t none = eventsOf("int main() { return 0; }");
    EXPECT_EQ(eventsOf(R"(
        #include <stdlib.h>
        static void release(int *p) { free(p); }
        int main() {
            int *a = malloc(8 * sizeof(int)), *z = calloc(4, sizeof(int)), s = 0;
            for (int i = 0; i < 8; ++i) a[i] = i;
            for (int i = 0; i < 8; ++i) s += a[i] + (i < 4 ? z[i] : 0);
            release(a);
            free(z);
            return s == 28 ? 0 : 1;
        })"),
              none);
    const std::string useAfterFree = R"(
        #include <stdlib.h>
        int main() {
            int *a = malloc(sizeof(int));
            free(a);
            return *a; // L:use
        })";
    expectError(checkSource(useAfterFree), ErrorKind::Memory, lineOf(useAfterFree, "L:use"));
}

// A heap object a thread hands on — through a global, as its exit value to the joiner — is shared: the threads
// that reach it race on it.
TEST(Escape, HeapObjectsHandedOnAreShared) {
    const std::string viaGlobal = R"(
        #include <pthread.h>
        #include <stdlib.h>
        int *shared;
        void *reader(void *arg) {
            return (void *)(long)*shared; // L:read
        }
        int main() {
            int *p = malloc(sizeof(int));
            shared = p;
            pthread_t t;
            pthread_create(&t, 0, reader, 0);
            *p = 1; // L:write
            pthread_join(t, 0);
            return 0;
        })";
    const std::string viaExit = R"(
        #include <pthread.h>
        #include <stdlib.h>
        int *got;
        void *maker(void *arg) {
            int *p = malloc(sizeof(int));
            *p = 0;
            pthread_exit(p);
        }
        void *writer(void *arg) {
            *got = 2; // L:write
            return arg;
        }
        int main() {
            pthread_t a, b;
            pthread_create(&a, 0, maker, 0);
            pthread_join(a, (void **)&got);
            pthread_create(&b, 0, writer, 0);
            int v = *got; // L:read
            pthread_join(b, 0);
            return v;
        })";
    for (const std::string* src : {&viaGlobal, &viaExit})
        for (const char* algo : {"dfs", "qpor"}) {
            SCOPED_TRACE(algo);
            expectRaceBetween(checkSource(*src, withAlgorithm(algo)), *src, "L:read", "L:write");
        }
}

} // namespace
