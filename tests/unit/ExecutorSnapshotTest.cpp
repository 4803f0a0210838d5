// Executor snapshots (Executor::clone + Executor::copyStateFrom), which the qpor explorer restores instead of
// replaying a prefix (core/explore/unfolding/DESIGN.md, "Replay"): an executor restored from a snapshot must
// go on exactly as the executor the snapshot was taken from — same events, same values, same final state —
// and must keep the canonical thread ids it learned after the snapshot.
#include <algorithm>

#include <gtest/gtest.h>

#include "core/Check.h"
#include "core/exec/Executor.h"

namespace {

using skein::exec::ExecStatus;
using skein::exec::Executor;
using skein::exec::ThreadState;

std::shared_ptr<const skein::program::Program> lower(const std::string& src) {
    skein::CheckRequest req;
    req.path = "snapshot.c";
    req.contents = src;
    auto p = skein::prepare(req);
    EXPECT_TRUE(p.has_value());
    return p ? p->program : nullptr;
}

// Runs to the end with a fixed rule (the lowest enabled thread, choice 0 — or the `pick`-th enabled thread at
// the first choice point), recording the executed events as (thread, kind, address, value).
struct Step {
    uint32_t tid;
    int kind;
    uint64_t addr, value;
    bool operator==(const Step&) const = default;
};
std::vector<Step> runToEnd(Executor& ex, size_t rotate) {
    std::vector<Step> out;
    for (size_t n = 0; n < 10000; ++n) {
        std::vector<uint32_t> enabled;
        for (uint32_t t = 0; t < ex.numThreads(); ++t)
            if (ex.enabled(t)) enabled.push_back(t);
        if (enabled.empty()) break;
        uint32_t t = enabled[(n + rotate) % enabled.size()];
        const auto& e = ex.step(t, 0);
        out.push_back({e.tid, int(e.kind), e.addr, e.value});
    }
    return out;
}

const char* kProgram = R"(
    #include <pthread.h>
    #include <stdlib.h>
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    int x, y;
    void *grandchild(void *a) { pthread_mutex_lock(&m); x += 10; pthread_mutex_unlock(&m); return 0; }
    void *child(void *a) {
        int *p = malloc(sizeof(int));
        *p = (int)(long)a;
        pthread_t g;
        pthread_create(&g, 0, grandchild, 0);
        pthread_mutex_lock(&m); x += *p; pthread_mutex_unlock(&m);
        pthread_join(g, 0);
        y = y + 1;
        free(p);
        return 0;
    }
    int main() {
        pthread_t a, b;
        pthread_create(&a, 0, child, (void *)1);
        pthread_create(&b, 0, child, (void *)2);
        pthread_join(a, 0);
        pthread_join(b, 0);
        return x + y;
    })";

TEST(ExecutorSnapshot, RestoredExecutorGoesOnLikeTheOriginal) {
    // As the explorer uses it: one executor steps; snapshots are its clones, restored into it (or refreshed
    // from it). Canonical ids are learned along that one lineage (copyStateFrom's precondition).
    auto prog = lower(kProgram);
    ASSERT_TRUE(prog);
    for (size_t cut = 0; cut < 12; ++cut)
        for (size_t rotate = 0; rotate < 3; ++rotate) {
            Executor ex(*prog, {});
            for (size_t n = 0; n < cut; ++n) { // the first `cut` steps, then a snapshot
                uint32_t t = 0;
                while (t < ex.numThreads() && !ex.enabled(t)) ++t;
                if (t == ex.numThreads()) break;
                ex.step(t, 0);
            }
            auto snapshot = ex.clone();
            const auto traceAtCut = ex.trace().size();
            std::vector<Step> original = runToEnd(ex, rotate);
            const uint64_t finalHash = ex.finalStateHash();
            const ExecStatus status = ex.status();
            ASSERT_FALSE(original.empty());

            // Restored into the executor it came from, after that executor ran to the end.
            ex.copyStateFrom(*snapshot);
            EXPECT_EQ(ex.trace().size(), traceAtCut);
            EXPECT_EQ(runToEnd(ex, rotate), original) << "cut " << cut << ", rotate " << rotate;
            EXPECT_EQ(ex.finalStateHash(), finalHash);
            EXPECT_EQ(ex.status(), status);

            // Another schedule in between changes nothing for the next restore.
            ex.copyStateFrom(*snapshot);
            runToEnd(ex, rotate + 1);
            ex.copyStateFrom(*snapshot);
            EXPECT_EQ(runToEnd(ex, rotate), original) << "cut " << cut << ", rotate " << rotate;

            // A snapshot refreshed from the executor (its buffers held a finished execution), then restored.
            auto refreshed = ex.clone();
            ex.copyStateFrom(*snapshot);
            refreshed->copyStateFrom(ex);
            runToEnd(ex, rotate + 2);
            ex.copyStateFrom(*refreshed);
            EXPECT_EQ(runToEnd(ex, rotate), original) << "cut " << cut << ", rotate " << rotate;
            EXPECT_EQ(ex.finalStateHash(), finalHash);
        }
}

TEST(ExecutorSnapshot, CanonicalThreadIdsLearnedAfterTheSnapshotAreKept) {
    auto prog = lower(kProgram);
    ASSERT_TRUE(prog);
    Executor ex(*prog, {});
    auto initial = ex.clone(); // before any thread exists: knows no canonical id
    // Main creates b's thread first this time: ids are assigned in creation order of (parent, k) pairs.
    runToEnd(ex, 1);
    const size_t threads = ex.numThreads();
    ASSERT_GE(threads, 5u);                             // main, two children, two grandchildren
    std::vector<std::pair<uint32_t, uint64_t>> creates; // (creator, created id) as first seen
    for (const auto& e : ex.trace())
        if (e.kind == skein::model::EventKind::ThreadCreate) creates.push_back({e.tid, e.value});
    // Restoring the initial snapshot must not forget the ids: a second run names every thread as the first
    // did.
    ex.copyStateFrom(*initial);
    runToEnd(ex, 2);
    std::vector<std::pair<uint32_t, uint64_t>> again;
    for (const auto& e : ex.trace())
        if (e.kind == skein::model::EventKind::ThreadCreate) again.push_back({e.tid, e.value});
    std::sort(creates.begin(), creates.end());
    std::sort(again.begin(), again.end());
    EXPECT_EQ(again, creates);
    EXPECT_EQ(ex.numThreads(), threads);
}

// Executor::mutexInput, the state a mutex operation answers from (qpor keys a section's cached runs by it,
// core/explore/unfolding/DESIGN.md "Learning a section's runs cheaply"): equal in two states exactly when a lock,
// trylock or unlock behaves the same — free against held, and a recursive mutex against a normal one (its type, in
// the mutex's own bytes) even when both are free.
TEST(ExecutorSnapshot, MutexInputTellsWhatAMutexOperationAnswersFrom) {
    auto prog = lower(R"(
    #define _GNU_SOURCE
    #include <pthread.h>
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    void *child(void *a) {
        pthread_mutex_lock(&m);
        pthread_mutex_lock(&r);
        pthread_mutex_unlock(&r);
        pthread_mutex_unlock(&m);
        return 0;
    }
    int main(void) { pthread_t t; pthread_create(&t, 0, child, 0); pthread_join(t, 0); return 0; }
    )");
    ASSERT_TRUE(prog);
    Executor ex(*prog, {});
    ex.step(0, 0); // main's create
    ASSERT_EQ(ex.numThreads(), 2u);
    const auto& lockM = ex.thread(1).pending;
    ASSERT_EQ(lockM.kind, skein::model::EventKind::Lock);
    const uint64_t m = lockM.addr;
    const auto freeM = ex.mutexInput(m);
    ASSERT_TRUE(freeM.has_value());
    ex.step(1, 0); // lock(m)
    const auto heldM = ex.mutexInput(m);
    ASSERT_TRUE(heldM.has_value());
    EXPECT_NE(*heldM, *freeM);
    const auto& lockR = ex.thread(1).pending;
    ASSERT_EQ(lockR.kind, skein::model::EventKind::Lock);
    const uint64_t r = lockR.addr;
    const auto freeR = ex.mutexInput(r);
    ASSERT_TRUE(freeR.has_value());
    EXPECT_NE(*freeR, *freeM); // both free: the type tells them apart
    auto before = ex.clone();
    ex.step(1, 0); // lock(r)
    EXPECT_NE(ex.mutexInput(r), freeR);
    EXPECT_EQ(before->mutexInput(r), freeR); // a copy keeps its own state
    ex.step(1, 0); // unlock(r)
    EXPECT_EQ(ex.mutexInput(r), freeR);
    ex.step(1, 0); // unlock(m)
    EXPECT_EQ(ex.mutexInput(m), freeM);
}

// Executor::joinState, what a join answers from besides the joined thread's return value (qpor keys the runs of a
// section that waits in a join by it): a thread still running, one that ended (joinable), one joined already, and a
// thread id that names no thread — four different numbers.
TEST(ExecutorSnapshot, JoinStateTellsWhetherAJoinWaits) {
    auto prog = lower(R"(
    #include <pthread.h>
    int x;
    void *child(void *a) { x = 1; return 0; }
    int main(void) { pthread_t t; pthread_create(&t, 0, child, 0); pthread_join(t, 0); x = 2; return 0; }
    )");
    ASSERT_TRUE(prog);
    Executor ex(*prog, {});
    ex.step(0, 0); // main's create
    ASSERT_EQ(ex.numThreads(), 2u);
    ASSERT_EQ(ex.thread(0).pending.kind, skein::model::EventKind::ThreadJoin);
    EXPECT_FALSE(ex.enabled(0)); // the child has not ended: main waits
    const uint64_t running = ex.joinState(1);
    ex.step(1, 0); // x = 1, and the child ends
    const uint64_t ended = ex.joinState(1);
    EXPECT_TRUE(ex.enabled(0));
    EXPECT_NE(ended, running);
    ex.step(0, 0); // the join
    const uint64_t joined = ex.joinState(1);
    EXPECT_NE(joined, ended);
    EXPECT_NE(joined, running);
    const uint64_t none = ex.joinState(7);
    EXPECT_NE(none, running);
    EXPECT_NE(none, ended);
    EXPECT_NE(none, joined);
}

// objectState is what a free() answers from: it tells an object that does not exist, one alive and one freed apart,
// and two live objects of different sizes (a free of either succeeds, but frees as many bytes as the object has).
TEST(ExecutorSnapshot, ObjectStateTellsWhetherAFreeSucceeds) {
    auto prog = lower(R"(
    #include <stdlib.h>
    int *p, *q;
    int main(void) { p = malloc(4); q = malloc(8); free(p); return 0; }
    )");
    ASSERT_TRUE(prog);
    Executor ex(*prog, {});
    ASSERT_EQ(ex.thread(0).pending.kind, skein::model::EventKind::Write); // p's store: its value is p
    const uint32_t pid = skein::program::pointerObject(ex.thread(0).pending.value);
    const uint64_t alive = ex.objectState(pid);
    ex.step(0, 0);
    ASSERT_EQ(ex.thread(0).pending.kind, skein::model::EventKind::Write); // q's store
    EXPECT_NE(ex.objectState(skein::program::pointerObject(ex.thread(0).pending.value)), alive); // 8 bytes, not 4
    for (int i = 0; i < 4 && ex.thread(0).pending.kind != skein::model::EventKind::Free; ++i)
        ex.step(0, 0); // (p's read)
    ASSERT_EQ(ex.thread(0).pending.kind, skein::model::EventKind::Free);
    ex.step(0, 0); // the free
    const uint64_t freed = ex.objectState(pid);
    EXPECT_NE(freed, alive);
    const uint64_t none = ex.objectState(pid + 5);
    EXPECT_NE(none, alive);
    EXPECT_NE(none, freed);
}

} // namespace
