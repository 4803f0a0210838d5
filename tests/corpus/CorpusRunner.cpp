// Runs every `expect:` line of the corpus (tests/corpus/README.md) as one test.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "server/cli/Commands.h"

namespace fs = std::filesystem;

namespace {

struct Expectation {
    fs::path file;
    int line = 0;
    std::vector<std::string> args;
    std::map<std::string, std::string> keys;
};

std::vector<std::string> words(const std::string& s) {
    std::istringstream is(s);
    std::vector<std::string> out;
    for (std::string w; is >> w;) out.push_back(w);
    return out;
}

std::vector<Expectation> collect() {
    std::vector<Expectation> all;
    std::vector<fs::path> files;
    for (const char* dir : {"examples", "tests/corpus"}) {
        fs::path root = fs::path(SKEIN_SOURCE_DIR) / dir;
        if (!fs::exists(root)) continue;
        for (auto& entry : fs::recursive_directory_iterator(root))
            if (entry.path().extension() == ".c") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
        std::ifstream in(f);
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            auto at = line.find("expect:");
            if (at == std::string::npos) continue;
            std::string rest = line.substr(at + 7);
            auto arrow = rest.find("=>");
            if (arrow == std::string::npos) continue;
            Expectation e;
            e.file = f;
            e.line = n;
            e.args = words(rest.substr(0, arrow));
            std::string kv = rest.substr(arrow + 2);
            if (auto fx = kv.find("fixme="); fx != std::string::npos) {
                e.keys["fixme"] = kv.substr(fx + 6);
                kv = kv.substr(0, fx);
            }
            for (const std::string& w : words(kv)) {
                auto eq = w.find('=');
                if (eq != std::string::npos) e.keys[w.substr(0, eq)] = w.substr(eq + 1);
            }
            all.push_back(std::move(e));
        }
    }
    return all;
}

class CorpusTest : public testing::Test {
public:
    explicit CorpusTest(Expectation e) : e_(std::move(e)) {}
    void TestBody() override {
        skein::cli::CheckArgs parsed;
        // A line without --algo states the dfs oracle's counts (the CLI's default is qpor).
        std::vector<std::string> args;
        bool algo = false;
        for (const std::string& a : e_.args) algo = algo || a.rfind("--algo=", 0) == 0;
        if (!algo) args.push_back("--algo=dfs");
        args.insert(args.end(), e_.args.begin(), e_.args.end());
        args.push_back(e_.file.string());
        auto err = skein::cli::parseCheckArgs(args, parsed);
        ASSERT_FALSE(err) << *err;
        auto result = skein::check(parsed.request);
        if (!result) {
            std::string diags;
            for (auto& d : result.error().diagnostics) diags += d.message + "\n";
            FAIL() << "did not compile: " << diags;
        }
        const skein::report::CheckResult& r = *result;
        std::string where = e_.file.filename().string() + ":" + std::to_string(e_.line);
        if (e_.keys.count("fixme")) std::cerr << "FIXME " << where << ": " << e_.keys["fixme"] << "\n";
        auto num = [&](const char* key, uint64_t actual) {
            if (auto it = e_.keys.find(key); it != e_.keys.end()) {
                EXPECT_EQ(std::to_string(actual), it->second) << where << ": " << key;
            }
        };
        if (auto it = e_.keys.find("verdict"); it != e_.keys.end()) {
            EXPECT_EQ(std::string(skein::report::verdictName(r.verdict)), it->second) << where;
        }
        num("executions", r.stats.executions);
        num("blocked", r.stats.blocked);
        num("bounded", r.stats.bounded);
        num("ssb", r.stats.ssb);
        if (r.stats.mazurkiewiczTraces) num("traces", *r.stats.mazurkiewiczTraces);
        else if (e_.keys.count("traces")) ADD_FAILURE() << where << ": the explorer does not count traces";
        if (r.stats.finalStates) num("final_states", *r.stats.finalStates);
        if (auto it = e_.keys.find("errors"); it != e_.keys.end()) {
            std::vector<std::string> expected, actual;
            if (it->second != "none") {
                std::stringstream ss(it->second);
                for (std::string item; std::getline(ss, item, ',');) expected.push_back(item);
            }
            for (auto& x : expected) {
                bool withLine = x.find('@') != std::string::npos;
                bool found = false;
                for (auto& e : r.errors) {
                    std::string k(skein::report::errorKindName(e.kind));
                    if (withLine) k += "@" + std::to_string(e.location.line);
                    if (k == x) found = true;
                    if (withLine && e.otherLocation && std::string(skein::report::errorKindName(e.kind)) + "@" + std::to_string(e.otherLocation->line) == x) found = true;
                }
                EXPECT_TRUE(found) << where << ": expected error " << x;
            }
            std::set<std::string> kinds;
            for (auto& e : r.errors) kinds.insert(std::string(skein::report::errorKindName(e.kind)));
            std::set<std::string> expectedKinds;
            for (auto& x : expected) expectedKinds.insert(x.substr(0, x.find('@')));
            EXPECT_EQ(kinds, expectedKinds) << where << ": error kinds";
        }
    }

private:
    Expectation e_;
};

// Issue 4: "vhb explores no more classes than qpor --alt=optimal on every program of the corpus". For each line
// that runs qpor (optimal, the default alternative), vhb at the same options: no explorer limit, and no more
// classes than qpor's executions.
class VhbAgainstQporTest : public testing::Test {
public:
    explicit VhbAgainstQporTest(Expectation e) : e_(std::move(e)) {}
    void TestBody() override {
        auto run = [&](const std::string& algo) {
            std::vector<std::string> args{"--algo=" + algo};
            for (const std::string& a : e_.args)
                if (a.rfind("--algo=", 0) != 0) args.push_back(a);
            args.push_back(e_.file.string());
            skein::cli::CheckArgs parsed;
            auto err = skein::cli::parseCheckArgs(args, parsed);
            EXPECT_FALSE(err) << *err;
            return skein::check(parsed.request);
        };
        auto q = run("qpor");
        auto v = run("vhb");
        ASSERT_TRUE(q && v);
        const std::string where = e_.file.filename().string() + ":" + std::to_string(e_.line);
        // A program qpor hands over to dfs (its line says so: verdict=bounded) is no comparison: two threads joining
        // one thread stop both explorers (Executor::twoJoiners), and so does a semaphore, reader-writer lock or
        // barrier that qpor does not model (initialised late, a barrier met by more threads than its size:
        // Executor::syncUse). vhb models none of the three, nor pthread_once: there vhb may stop.
        if (q->explorerLimit) {
            EXPECT_TRUE(q->explorerLimit->find("join the same thread") != std::string::npos ||
                        q->explorerLimit->find("semaphore") != std::string::npos ||
                        q->explorerLimit->find("barrier met by more threads") != std::string::npos)
                << where << ": " << *q->explorerLimit;
            return;
        }
        // ... nor a mutex initialised, or a mutex or condition variable destroyed, while other threads may use it
        // (Events.def, SyncInit, SyncDestroy).
        if (v->explorerLimit && (v->explorerLimit->find("semaphores") != std::string::npos ||
                                 v->explorerLimit->find("once other threads exist") != std::string::npos))
            return;
        EXPECT_FALSE(v->explorerLimit) << where << ": " << v->explorerLimit.value_or("");
        EXPECT_LE(v->stats.executions, q->stats.executions) << where;
    }

private:
    Expectation e_;
};

// The escape analysis of locals (core/program/Escape.cpp) changes nothing observable: for each line that runs qpor
// with the optimal alternatives, the same check with every local whose address is taken shared (its accesses
// events) finds the same verdict, the same errors at the same places, as many executions and final states. A local
// the analysis wrongly kept private would show: another thread's access to it races, or reads another value.
class EscapeAnalysisTest : public testing::Test {
public:
    explicit EscapeAnalysisTest(Expectation e) : e_(std::move(e)) {}
    void TestBody() override {
        auto run = [&](bool analysis) {
            std::vector<std::string> args = e_.args;
            args.push_back(e_.file.string());
            skein::cli::CheckArgs parsed;
            auto err = skein::cli::parseCheckArgs(args, parsed);
            EXPECT_FALSE(err) << *err;
            parsed.request.escapeAnalysis = analysis;
            return skein::check(parsed.request);
        };
        auto with = run(true), without = run(false);
        ASSERT_TRUE(with && without);
        const std::string where = e_.file.filename().string() + ":" + std::to_string(e_.line);
        // The reference cannot run every program: a builtin that refuses shared memory (clock_gettime's result,
        // Builtins.cpp) refuses a local the reference makes shared. No comparison then.
        for (const auto& e : without->errors)
            if (e.kind == skein::report::ErrorKind::Unsupported &&
                e.message.find("into shared memory") != std::string::npos)
                return;
        auto errors = [](const skein::report::CheckResult& r) {
            std::multiset<std::string> out;
            for (const auto& e : r.errors)
                out.insert(std::string(skein::report::errorKindName(e.kind)) + "@" + std::to_string(e.location.line) +
                           (e.otherLocation ? "/" + std::to_string(e.otherLocation->line) : ""));
            return out;
        };
        EXPECT_EQ(with->verdict, without->verdict) << where;
        EXPECT_EQ(errors(*with), errors(*without)) << where;
        EXPECT_EQ(with->stats.executions, without->stats.executions) << where;
        EXPECT_EQ(with->stats.blocked, without->stats.blocked) << where;
        EXPECT_EQ(with->stats.finalStates, without->stats.finalStates) << where;
        EXPECT_LE(with->stats.events, without->stats.events) << where;
    }

private:
    Expectation e_;
};

bool runsQporOptimal(const Expectation& e) {
    bool qpor = false;
    for (const std::string& a : e.args) {
        if (a == "--algo=qpor") qpor = true;
        if (a.rfind("--alt=", 0) == 0 && a != "--alt=optimal") return false;
    }
    return qpor;
}

} // namespace

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    for (Expectation& e : collect()) {
        std::string name = e.file.stem().string() + "_L" + std::to_string(e.line);
        std::string suite = e.file.parent_path().filename().string();
        testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, e.file.string().c_str(), e.line,
                              [e]() -> testing::Test* { return new CorpusTest(e); });
        if (runsQporOptimal(e))
            testing::RegisterTest("vhb_vs_qpor", (suite + "_" + name).c_str(), nullptr, nullptr,
                                  e.file.string().c_str(), e.line,
                                  [e]() -> testing::Test* { return new VhbAgainstQporTest(e); });
        if (runsQporOptimal(e))
            testing::RegisterTest("escape_analysis", (suite + "_" + name).c_str(), nullptr, nullptr,
                                  e.file.string().c_str(), e.line,
                                  [e]() -> testing::Test* { return new EscapeAnalysisTest(e); });
    }
    return RUN_ALL_TESTS();
}
