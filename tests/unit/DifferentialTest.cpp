// Differential tests (issue 3): random small concurrent programs, every qpor mode against the dfs oracle.
// Same errors and final states; `optimal` explores exactly one execution per Mazurkiewicz trace with no
// sleep-set blocked run. SKEIN_DIFF_PROGRAMS=N runs N programs (default 1000; the long mode uses more);
// SKEIN_DIFF_SEED picks the first seed. A failure prints the program.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"

namespace {

struct Generator {
    std::mt19937 rng;
    int vars, mutexes, threads;
    std::ostringstream out;
    int line = 1;
    explicit Generator(uint32_t seed) : rng(seed) {
        vars = 1 + int(rng() % 3);
        mutexes = int(rng() % 4);
        threads = 2 + int(rng() % 2);
    }
    int pick(int n) { return int(rng() % uint32_t(n)); }
    void emit(const std::string& s) {
        out << s << "\n";
        ++line;
    }
    std::string var() { return "x" + std::to_string(pick(vars)); }
    void statement(int depth, int& locals) {
        switch (pick(depth > 1 ? 9 : 11)) {
        case 0: emit("  " + var() + " = " + std::to_string(pick(3)) + ";"); break;
        case 1: emit("  " + var() + " = " + var() + " + 1;"); break;
        case 2: emit("  int r" + std::to_string(locals++) + " = " + var() + ";"); break;
        case 3: emit("  atomic_fetch_add(&a" + std::to_string(pick(2)) + ", 1);"); break;
        case 4:
            if (locals) emit("  if (r" + std::to_string(pick(locals)) + " == " + std::to_string(pick(2)) + ") " +
                             var() + " = 2;");
            else emit("  " + var() + " = 1;");
            break;
        case 5: emit("  int r" + std::to_string(locals++) + " = atomic_load(&a" + std::to_string(pick(2)) + ");"); break;
        case 8: {
            // A nondeterministic value (the default domain {0,1}): outcomes of one action.
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + " = __VERIFIER_nondet_int(); if (" + r + ") " + var() + " = 1;");
            break;
        }
        case 7:
            // An SV-COMP atomic section: one action for qpor, uninterrupted for dfs. Sometimes with a nondet value
            // inside, on which the section's accesses depend (several runs: outcomes of the one action).
            if (int kind = pick(4); kind < 2) {
                emit("  __VERIFIER_atomic_begin(); " + var() + " = " + var() + " + 1; __VERIFIER_atomic_end();");
            } else if (kind == 2) {
                // What the section touches depends on the value it reads.
                emit("  __VERIFIER_atomic_begin(); if (" + var() + " == 1) " + var() + " = 2; else " + var() +
                     " = 3; __VERIFIER_atomic_end();");
            } else {
                std::string r = "r" + std::to_string(locals++);
                emit("  __VERIFIER_atomic_begin(); int " + r + " = __VERIFIER_nondet_int(); if (" + r + ") " + var() +
                     " = " + var() + " + 1; else " + var() + " = 2; __VERIFIER_atomic_end();");
            }
            break;
        case 6:
            // An assertion in a worker: it stops only that thread (ExecStatus).
            if (locals) emit("  assert(r" + std::to_string(pick(locals)) + " != " + std::to_string(1 + pick(2)) + ");");
            else emit("  assert(" + var() + " != 2);");
            break;
        default: {
            if (!mutexes) {
                emit("  " + var() + " = 3;");
                break;
            }
            std::string m = "m" + std::to_string(pick(mutexes));
            emit("  pthread_mutex_lock(&" + m + ");");
            int n = 1 + pick(2);
            for (int i = 0; i < n; ++i) statement(depth + 1, locals);
            emit("  pthread_mutex_unlock(&" + m + ");");
            break;
        }
        }
    }
    std::string program() {
        emit("#include <pthread.h>");
        emit("#include <stdatomic.h>");
        emit("#include <assert.h>");
        emit("void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);");
        for (int v = 0; v < vars; ++v) emit("int x" + std::to_string(v) + ";");
        emit("atomic_int a0, a1;");
        for (int m = 0; m < mutexes; ++m) emit("pthread_mutex_t m" + std::to_string(m) + " = PTHREAD_MUTEX_INITIALIZER;");
        for (int t = 0; t < threads; ++t) {
            emit("void *t" + std::to_string(t) + "(void *arg) {");
            int locals = 0, n = 1 + pick(3);
            for (int i = 0; i < n; ++i) statement(0, locals);
            emit("  return 0;");
            emit("}");
        }
        emit("int main() {");
        emit("  pthread_t h[" + std::to_string(threads) + "];");
        // Sometimes a create or a join happens inside an atomic section, with an access next to it.
        for (int t = 0; t < threads; ++t) {
            std::string create = "pthread_create(&h[" + std::to_string(t) + "], 0, t" + std::to_string(t) + ", 0);";
            if (pick(5)) emit("  " + create);
            else emit("  __VERIFIER_atomic_begin(); " + create + " " + var() + " = 1; __VERIFIER_atomic_end();");
        }
        // Sometimes main does not join the last worker: its return must not cut the worker short.
        int joins = pick(4) ? threads : threads - 1;
        for (int t = 0; t < joins; ++t) {
            std::string join = "pthread_join(h[" + std::to_string(t) + "], 0);";
            if (pick(5)) emit("  " + join);
            else emit("  __VERIFIER_atomic_begin(); " + join + " " + var() + " = " + var() + " + 1; __VERIFIER_atomic_end();");
        }
        if (pick(2)) emit("  assert(" + var() + " != " + std::to_string(1 + pick(3)) + ");");
        emit("  return 0;");
        emit("}");
        return out.str();
    }
};

std::set<std::string> errorSet(const skein::report::CheckResult& r) {
    std::set<std::string> s;
    for (auto& e : r.errors) {
        std::string k = std::string(skein::report::errorKindName(e.kind)) + "@" + std::to_string(e.location.line);
        if (e.otherLocation) {
            auto a = e.location.line, b = e.otherLocation->line;
            k = "race@" + std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b));
        }
        s.insert(k);
    }
    return s;
}

TEST(Differential, QporModesAgreeWithDfsOnRandomPrograms) {
    int programs = 1000;
    if (const char* n = std::getenv("SKEIN_DIFF_PROGRAMS")) programs = std::atoi(n);
    uint32_t seed0 = 1;
    if (const char* s = std::getenv("SKEIN_DIFF_SEED")) seed0 = uint32_t(std::atoi(s));
    int checked = 0;
    std::map<std::string, uint64_t> ssb, traces, limited, widenedPrograms;
    for (int i = 0; i < programs; ++i) {
        uint32_t seed = seed0 + uint32_t(i);
        std::string src = Generator(seed).program();
        auto compiled = skein::frontend::compile({"random.c", src, {}});
        ASSERT_TRUE(compiled) << src;
        auto prog = skein::program::lower(*compiled);
        ASSERT_TRUE(prog) << src;
        skein::explore::ExploreOptions o;
        o.maxExecutions = 20000;
        auto dfs = skein::explore::findExplorer("dfs")->run(*prog, o, nullptr);
        if (dfs.stoppedEarly) continue; // too big for the oracle
        ++checked;
        for (const char* mode : {"optimal", "k1", "k2", "sdpor"}) {
            o.alt = mode;
            // Half of the programs prune U at every return of Explore (Alg. 1, line 13): pruning must lose no
            // configuration. (By default qpor prunes only when U is large, which these programs never are.)
            o.qporPruneThreshold = seed % 2 ? 0 : 4096;
            auto q = skein::explore::findExplorer("qpor")->run(*prog, o, nullptr);
            if (q.explorerLimit) {
                // A construct qpor hands over to dfs (check() then falls back): thread creation, join or a
                // condition wait inside an atomic section (the generator makes none). Counted, not compared.
                EXPECT_NE(q.explorerLimit->find("atomic section"), std::string::npos) << *q.explorerLimit << "\n" << src;
                ++limited[mode];
                continue;
            }
            ssb[mode] += q.stats.ssb;
            traces[mode] += q.stats.executions + q.stats.blocked;
            SCOPED_TRACE(std::string("seed ") + std::to_string(seed) + " --alt=" + mode + "\n" + src);
            ASSERT_EQ(errorSet(q), errorSet(dfs));
            ASSERT_EQ(q.stats.finalStates, dfs.stats.finalStates);
            // A section whose accesses depend on what it reads is one action with the union of its runs' accesses
            // (a coarser independence than dfs's): then at least one execution per Mazurkiewicz trace.
            bool widened = q.stats.extra.count("sections_widened") && q.stats.extra.at("sections_widened") > 0;
            if (widened) ++widenedPrograms[mode];
            if (widened) ASSERT_GE(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
            // Every maximal configuration is explored exactly once; redundancy shows only as SSBs.
            else ASSERT_EQ(q.stats.executions + q.stats.blocked, *dfs.stats.mazurkiewiczTraces);
            if (std::string(mode) == "optimal") ASSERT_EQ(q.stats.ssb, 0u);
        }
    }
    for (auto& [mode, n] : ssb)
        std::printf("differential: %d programs checked; --alt=%s: %llu maximal configurations, %llu SSB, %llu handed "
                    "to dfs, %llu with widened sections\n",
                    checked, mode.c_str(), (unsigned long long)traces[mode], (unsigned long long)n,
                    (unsigned long long)limited[mode], (unsigned long long)widenedPrograms[mode]);
    EXPECT_GT(checked, programs / 2) << "most random programs must be small enough for the oracle";
    EXPECT_LT(limited["optimal"], uint64_t(checked) / 4) << "most programs must be explored by qpor itself";
}

} // namespace
