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

} // namespace
