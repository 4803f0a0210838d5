// End-to-end tests of `skein lsp` (see LspTest.cpp): edits and what they trigger — comment-only edits that reuse
// or adopt a result, replay of the previous counterexample, supersession, cancellation, progress, the concurrency
// limit, the debounce, the result cache, header changes, several documents — and the soak test
// (SKEIN_LSP_SOAK=1).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "LspTestSupport.h"

namespace skein::test {
namespace {

TEST_F(Lsp, CommentOnlyEditReusesTheResultAndMovesTheDiagnostic) {
    client.initialize(json{{"debounceMs", 50}});
    std::string uri = uriOf("lost_update.c");
    client.open(uri, kLostUpdate);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto before = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "assertion");
    ASSERT_EQ(before.size(), 1u);
    EXPECT_EQ(before[0]["range"]["start"]["line"], 10);
    EXPECT_NE(before[0]["message"].get<std::string>().find("assertion `counter == 2` fails when"),
              std::string::npos)
        << before[0]["message"];

    client.changeRange(uri, 2, 0, 0, 0, 0, "/* a comment\n   over two lines */\n");
    // The first publication for version 2 (the token-level preview, before compiling) is already right.
    auto first = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
                   m["params"].value("version", 0) == 2;
        },
        30s);
    ASSERT_TRUE(first);
    auto previewed = withCode(first->message["params"]["diagnostics"], "assertion");
    ASSERT_EQ(previewed.size(), 1u);
    EXPECT_EQ(previewed[0]["range"]["start"]["line"], 12);
    size_t from = 0;
    auto done = client.waitStatus(uri, 2, "done", 30s, &from);
    ASSERT_TRUE(done);
    EXPECT_TRUE(done->message["params"]["reused"]);
    EXPECT_EQ(done->message["params"]["reusedFrom"], 1);
    // No exploration for version 2: the status never said "exploring".
    EXPECT_FALSE(client.waitStatus(uri, 2, "exploring", 0ms));
    auto after = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "assertion");
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0]["range"]["start"]["line"], 12);
    auto races = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "data_race");
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0]["range"]["start"]["line"], 5);
    EXPECT_NE(races[0]["message"].get<std::string>().find("line 6"), std::string::npos)
        << races[0]["message"];
}

// The race program below explores for seconds (dfs, bounded by the time limit): a comment edit made meanwhile
// must neither restart it nor wait for it to show the diagnostics at their new lines.

TEST_F(Lsp, CommentOnlyEditDuringAnExplorationLetsItFinishAndMovesItsDiagnostics) {
    client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 3}, {"debounceMs", 20}});
    std::string uri = uriOf("racy-long.c");
    std::string racy = kLong;
    racy.replace(racy.find("pthread_mutex_lock(&m); "), 24, "");
    client.open(uri, racy);
    auto raced = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
                   !withCode(m["params"]["diagnostics"], "data_race").empty();
        },
        30s);
    ASSERT_TRUE(raced);
    ASSERT_FALSE(client.waitStatus(uri, 1, "done", 0ms)) << "the exploration must still run for this test";
    const json race1 = withCode(raced->message["params"]["diagnostics"], "data_race")[0];
    // Both accesses are `counter++` (line 5) in two threads: the related information still names the other one.
    ASSERT_TRUE(race1.contains("relatedInformation")) << race1.dump(1);
    EXPECT_NE(race1["relatedInformation"][0]["message"].get<std::string>().find(
                  "of `counter`, unordered with this access"),
              std::string::npos)
        << race1.dump(1);
    const int line1 = race1["range"]["start"]["line"];
    const int related1 = race1["relatedInformation"][0]["location"]["range"]["start"]["line"];

    size_t from = client.count();
    client.changeRange(uri, 2, 0, 0, 0, 0, "// a comment\n/* and another\n   one */\n"); // +3 lines
    // The diagnostics found so far move at once, before the exploration ends.
    auto moved = client.waitFor(
        [&](const json& m) {
            return (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
                    m["params"].value("version", 0) == 2) ||
                   (m.value("method", "") == "skein/status" && m["params"]["uri"] == uri &&
                    m["params"]["state"] == "done");
        },
        30s, &from);
    ASSERT_TRUE(moved);
    ASSERT_EQ(moved->message["method"], "textDocument/publishDiagnostics") << moved->message.dump();
    auto movedRaces = withCode(moved->message["params"]["diagnostics"], "data_race");
    ASSERT_FALSE(movedRaces.empty());
    EXPECT_EQ(movedRaces[0]["range"]["start"]["line"], line1 + 3) << movedRaces[0].dump(1);
    EXPECT_EQ(movedRaces[0]["relatedInformation"][0]["location"]["range"]["start"]["line"], related1 + 3);

    // The exploration of version 1 goes on and its result is published for version 2.
    auto done = client.waitStatus(uri, 2, "done", 60s, &from);
    ASSERT_TRUE(done);
    EXPECT_FALSE(done->message["params"].value("reused", false));
    EXPECT_EQ(done->message["params"]["verdict"], "error") << done->message.dump();
    EXPECT_NE(done->message["params"]["message"].get<std::string>().find("checked version 1"),
              std::string::npos)
        << done->message.dump();
    std::set<std::string> states2;
    int explorations = 0;
    for (const Received& r : client.all()) {
        const json& m = r.message;
        if (m.value("method", "") != "skein/status" || m["params"]["uri"] != uri) continue;
        if (m["params"]["version"] == 2) states2.insert(m["params"]["state"].get<std::string>());
        EXPECT_NE(m["params"]["state"], "cancelled") << m.dump(); // nothing was restarted
        explorations += m["params"]["state"] == "compiling";
    }
    EXPECT_EQ(explorations, 1); // one compile, one exploration
    EXPECT_EQ(states2, (std::set<std::string>{"exploring", "done"}));
    auto pub = client.lastDiagnostics(uri);
    ASSERT_TRUE(pub);
    EXPECT_EQ((*pub)["version"], 2);
    auto races = withCode(diagnosticsOf(*pub), "data_race");
    ASSERT_FALSE(races.empty());
    EXPECT_EQ(races[0]["range"]["start"]["line"], line1 + 3);
    EXPECT_EQ(withCode(diagnosticsOf(*pub), "bounded").size(), 1u);
    // The counterexample's locations are the new text's, and so are the code lens and hovers.
    auto cex = client.response(client.request(
        "skein/counterexample", {{"textDocument", {{"uri", uri}}}, {"id", races[0]["data"]["counterexample"]}}));
    ASSERT_TRUE(cex);
    EXPECT_EQ((*cex)["result"]["version"], 2);
    EXPECT_EQ((*cex)["result"]["error"]["location"]["line"], line1 + 3 + 1); // 1-based
    auto lens = client.response(client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_TRUE(lens);
    ASSERT_FALSE((*lens)["result"].empty());
    EXPECT_EQ((*lens)["result"][0]["range"]["start"]["line"], 7 + 3); // `int main(void) {`
    // A later comment edit finds the finished result in the cache.
    client.changeRange(uri, 3, 0, 0, 0, 0, "\n");
    auto again = client.waitStatus(uri, 3, "done", 30s, &from);
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->message["params"]["reused"]);
    races = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "data_race");
    ASSERT_FALSE(races.empty());
    EXPECT_EQ(races[0]["range"]["start"]["line"], line1 + 4);
}

// A real edit after an adopted comment edit supersedes the adopting check like any other.

TEST_F(Lsp, ARealEditAfterAnAdoptedCommentEditSupersedesTheCheck) {
    client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}, {"debounceMs", 20}});
    std::string uri = uriOf("racy-long.c");
    std::string racy = kLong;
    racy.replace(racy.find("pthread_mutex_lock(&m); "), 24, "");
    client.open(uri, racy);
    ASSERT_TRUE(client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
                   !m["params"]["diagnostics"].empty();
        },
        30s));
    size_t from = client.count();
    client.changeRange(uri, 2, 0, 0, 0, 0, "// only a comment\n");
    auto adopted = client.waitStatus(uri, 2, "exploring", 10s, &from);
    ASSERT_TRUE(adopted);
    EXPECT_EQ(adopted->message["params"]["message"].get<std::string>().rfind("comment/whitespace edit", 0), 0u)
        << adopted->message.dump();
    client.changeFull(uri, kRace, 3); // a real change
    auto superseded = client.waitStatus(uri, 2, "cancelled", 10s, &from);
    ASSERT_TRUE(superseded);
    EXPECT_EQ(superseded->message["params"]["message"], "superseded by version 3");
    auto done = client.waitStatus(uri, 3, "done", 30s, &from);
    ASSERT_TRUE(done);
    EXPECT_FALSE(client.waitStatus(uri, 2, "done", 0ms));
    auto pub = client.lastDiagnostics(uri);
    EXPECT_EQ((*pub)["version"], 3);
    auto races = withCode(diagnosticsOf(*pub), "data_race");
    ASSERT_EQ(races.size(), 1u) << pub->dump(1);
    std::set<int> lines = {races[0]["range"]["start"]["line"].get<int>(),
                           races[0]["relatedInformation"][0]["location"]["range"]["start"]["line"].get<int>()};
    EXPECT_EQ(lines, (std::set<int>{2, 6}));
}

TEST_F(Lsp, AfterARealEditThePreviousCounterexampleIsReplayedFirst) {
    client.initialize(json{{"debounceMs", 50}});
    std::string uri = uriOf("lost_update.c");
    client.open(uri, kLostUpdate);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    // A real change that keeps the bug: a third, unrelated global.
    std::string edited = std::string(kLostUpdate);
    edited.replace(edited.find("int counter;"), 12, "int counter; int unrelated = 7;");
    client.changeFull(uri, edited, 2);
    auto replay = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["version"] == 2 &&
                   m["params"]["state"] == "replaying" && m["params"].contains("message");
        },
        30s);
    ASSERT_TRUE(replay);
    EXPECT_EQ(replay->message["params"]["message"].get<std::string>().rfind("still fails", 0), 0u)
        << replay->message.dump();
    ASSERT_TRUE(client.waitStatus(uri, 2, "done"));
}

TEST_F(Lsp, ErrorsFoundByASupersededExplorationAreReplayedByTheNextCheck) {
    client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}, {"debounceMs", 20}});
    std::string uri = uriOf("racy-long.c");
    std::string racy = kLong;
    racy.replace(racy.find("pthread_mutex_lock(&m); "), 24, "");
    client.open(uri, racy);
    // The race shows up long before the exploration could end.
    ASSERT_TRUE(client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
                   !withCode(m["params"]["diagnostics"], "data_race").empty();
        },
        30s));
    client.changeFull(uri, racy + "int another_global = 1;\n", 2);
    auto replay = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["version"] == 2 &&
                   m["params"]["state"] == "replaying" && m["params"].contains("message");
        },
        30s);
    ASSERT_TRUE(replay);
    EXPECT_EQ(replay->message["params"]["message"].get<std::string>().rfind("still fails: data race", 0), 0u)
        << replay->message.dump();
}

TEST_F(Lsp, BurstOf200EditsPublishesOnlyTheLastVersion) {
    client.initialize(json{{"debounceMs", 300}});
    std::string uri = uriOf("burst.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    size_t mark = client.count();
    for (int v = 2; v <= 201; ++v)
        client.changeFull(uri,
                          std::string(v % 2 ? kRace : kRaceFixed) + "// edit " + std::to_string(v) + "\n", v);
    ASSERT_TRUE(client.waitStatus(uri, 201, "done", 60s));
    std::this_thread::sleep_for(200ms);
    for (const Received& r : client.all()) {
        const json& m = r.message;
        if (m.value("method", "") != "textDocument/publishDiagnostics") continue;
        int v = m["params"].value("version", 0);
        EXPECT_TRUE(v == 1 || v == 201) << "diagnostics published for intermediate version " << v;
    }
    auto pub = client.lastDiagnostics(uri);
    EXPECT_EQ((*pub)["version"], 201);
    EXPECT_EQ(withCode(diagnosticsOf(*pub), "data_race").size(), 1u); // 201 is odd: the racy text
    EXPECT_GT(client.count(), mark);
    int code = -1;
    ASSERT_TRUE(client.shutdownAndExit(&code));
    EXPECT_EQ(code, 0);
}

TEST_F(Lsp, CancelStopsTheExplorationPromptly) {
    client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}}, /*progress=*/true);
    std::string uri = uriOf("long.c");
    client.open(uri, kLong);
    ASSERT_TRUE(client.waitStatus(uri, 1, "exploring", 30s));
    ASSERT_TRUE(client.waitFor([](const json& m) { return m.value("method", "") == "$/progress"; }, 10s));
    // Progress reports stream the statistics; without an execution budget there is no estimate, so no
    // percentage.
    auto report = client.waitFor(
        [](const json& m) { return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == "report"; },
        10s);
    ASSERT_TRUE(report);
    EXPECT_NE(report->message["params"]["value"]["message"].get<std::string>().find(" executions, "),
              std::string::npos);
    EXPECT_FALSE(report->message["params"]["value"].contains("percentage")) << report->message.dump();
    auto streamed = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["uri"] == uri &&
                   m["params"]["state"] == "exploring" && m["params"].contains("stats");
        },
        10s);
    ASSERT_TRUE(streamed);
    EXPECT_GT(streamed->message["params"]["stats"]["executions"].get<int>(), 0);
    std::this_thread::sleep_for(300ms);
    auto sent = Clock::now();
    int id = client.request("workspace/executeCommand", {{"command", "skein.cancel"}, {"arguments", {uri}}});
    ASSERT_TRUE(client.response(id));
    auto cancelled = client.waitStatus(uri, 1, "cancelled", 10s);
    ASSERT_TRUE(cancelled);
    auto ms = std::chrono::duration<double, std::milli>(cancelled->at - sent).count();
    EXPECT_LT(ms, 1000) << "cancellation took " << ms << " ms"; // the target is 100 ms; generous under load
    EXPECT_EQ(cancelled->message["params"]["verdict"], "bounded");
    // The partial result says it is bounded.
    auto pub = client.lastDiagnostics(uri);
    ASSERT_TRUE(pub);
    EXPECT_FALSE(withCode(diagnosticsOf(*pub), "bounded").empty()) << pub->dump(1);
    // The progress UI's cancel button does the same (window/workDoneProgress/cancel on the progress token).
    size_t mark = client.count();
    client.request("workspace/executeCommand", {{"command", "skein.recheck"}, {"arguments", {uri}}});
    auto begin = client.waitFor(
        [](const json& m) {
            return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == "begin" &&
                   m["params"]["value"]["cancellable"] == true;
        },
        30s, &mark);
    ASSERT_TRUE(begin);
    std::this_thread::sleep_for(100ms);
    client.notify("window/workDoneProgress/cancel", {{"token", begin->message["params"]["token"]}});
    ASSERT_TRUE(client.waitStatus(uri, 1, "cancelled", 10s, &mark));
    // A new version supersedes the running exploration too.
    size_t from = client.count();
    client.request("workspace/executeCommand", {{"command", "skein.recheck"}, {"arguments", {uri}}});
    ASSERT_TRUE(client.waitStatus(uri, 1, "exploring", 30s, &from));
    client.changeFull(uri, std::string(kLong) + "int v2;\n", 2);
    auto superseded = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["version"] == 1 &&
                   m["params"]["state"] == "cancelled" &&
                   m["params"].value("message", "").find("superseded") == 0;
        },
        10s, &from);
    EXPECT_TRUE(superseded);
}

TEST(LspProgress, WaitsForTheClientToAcceptTheTokenAndHonoursARefusal) {
    LspClient client(SKEIN_BINARY);
    client.autoAcceptProgress_ = false;
    client.initialize(json::object(), /*progress=*/true);
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    auto create = client.waitFor(
        [](const json& m) { return m.value("method", "") == "window/workDoneProgress/create"; }, 30s);
    ASSERT_TRUE(create);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto progressed = [&] {
        return client.waitFor([](const json& m) { return m.value("method", "") == "$/progress"; }, 0ms)
            .has_value();
    };
    EXPECT_FALSE(progressed()); // not before the token is accepted
    client.respond(create->message["id"], nullptr);
    auto begin = client.waitFor([](const json& m) { return m.value("method", "") == "$/progress"; }, 5s);
    ASSERT_TRUE(begin);
    EXPECT_EQ(begin->message["params"]["value"]["kind"], "begin");
    ASSERT_TRUE(client.waitFor(
        [](const json& m) {
            return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == "end";
        },
        5s));
    // A refused token: nothing is sent for it.
    size_t from = client.count();
    client.changeFull(uri, kRaceFixed, 2);
    auto create2 = client.waitFor(
        [](const json& m) { return m.value("method", "") == "window/workDoneProgress/create"; }, 30s, &from);
    ASSERT_TRUE(create2);
    ASSERT_TRUE(client.waitStatus(uri, 2, "done"));
    client.sendRaw(json{
        {"jsonrpc", "2.0"}, {"id", create2->message["id"]}, {"error", {{"code", -32603}, {"message", "no"}}}}
                       .dump());
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "$/progress" &&
                   m["params"]["token"] == create2->message["params"]["token"];
        },
        0ms));
}

TEST_F(Lsp, SettingsFilterErrorKindsAndUndoIsAnsweredFromTheCache) {
    client.initialize(json{{"debounceMs", 20}});
    std::string uri = uriOf("lost_update.c");
    client.open(uri, kLostUpdate);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    client.notify("workspace/didChangeConfiguration",
                  {{"settings", {{"skein", {{"reportKinds", {"assertion"}}}}}}});
    ASSERT_TRUE(client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["state"] == "done" &&
                   m["params"]["errors"] == 1;
        },
        30s));
    auto pub = client.lastDiagnostics(uri);
    EXPECT_TRUE(withCode(diagnosticsOf(*pub), "data_race").empty());
    EXPECT_EQ(withCode(diagnosticsOf(*pub), "assertion").size(), 1u);
    // A real change, then undo: the undo is answered from the cache.
    std::string edited = kLostUpdate;
    edited.replace(edited.find("counter == 2"), 12, "counter >= 1");
    client.changeFull(uri, edited, 2);
    ASSERT_TRUE(client.waitStatus(uri, 2, "done"));
    client.changeFull(uri, kLostUpdate, 3);
    auto undo = client.waitStatus(uri, 3, "done");
    ASSERT_TRUE(undo);
    EXPECT_TRUE(undo->message["params"]["reused"]);
}

TEST_F(Lsp, ExecutionBudgetGivesABoundedPartialResult) {
    client.initialize(json{{"algorithm", "dfs"}, {"maxExecutions", 50}}, /*progress=*/true);
    std::string uri = uriOf("long.c");
    client.open(uri, kLong);
    auto done = client.waitStatus(uri, 1, "done");
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["verdict"], "bounded");
    EXPECT_NE(done->message["params"]["message"].get<std::string>().find("execution budget"),
              std::string::npos);
    auto bounded = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "bounded");
    ASSERT_EQ(bounded.size(), 1u);
    EXPECT_EQ(bounded[0]["severity"], 3);
    auto lens = client.response(client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}));
    EXPECT_NE((*lens)["result"][0]["command"]["title"].get<std::string>().find("(bounded)"),
              std::string::npos);
}

// With an execution budget, progress has an estimate: the share of the budget used.

TEST_F(Lsp, ProgressCarriesAPercentageOfTheExecutionBudget) {
    constexpr int kBudget = 100000;
    client.initialize(json{{"algorithm", "dfs"}, {"maxExecutions", kBudget}, {"timeLimitSeconds", 0}},
                      /*progress=*/true);
    std::string uri = uriOf("long.c");
    client.open(uri, kLong);
    auto isProgress = [](const char* kind) {
        return [kind](const json& m) {
            return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == kind;
        };
    };
    auto begin = client.waitFor(isProgress("begin"), 30s);
    ASSERT_TRUE(begin);
    EXPECT_EQ(begin->message["params"]["value"]["percentage"], 0);
    EXPECT_EQ(begin->message["params"]["value"]["title"], "Skein: exploring long.c");
    // Reports: "N executions, S SSB, B blocked, T s" and the share of the budget those executions used.
    size_t from = 0;
    for (int i = 0; i < 2; ++i) {
        auto report = client.waitFor(isProgress("report"), 30s, &from);
        ASSERT_TRUE(report);
        const json& v = report->message["params"]["value"];
        ASSERT_TRUE(v.contains("percentage")) << v.dump();
        std::string msg = v["message"];
        unsigned long execs = 0, ssb = 0, blocked = 0;
        ASSERT_EQ(std::sscanf(msg.c_str(), "%lu executions, %lu SSB, %lu blocked", &execs, &ssb, &blocked), 3)
            << msg;
        EXPECT_GT(execs, 0u);
        EXPECT_EQ(v["percentage"].get<unsigned long>(), std::min(100ul, (execs + blocked) * 100 / kBudget)) << msg;
    }
    client.request("workspace/executeCommand", {{"command", "skein.cancel"}, {"arguments", {uri}}});
    auto end = client.waitFor(isProgress("end"), 10s);
    ASSERT_TRUE(end);
    EXPECT_EQ(end->message["params"]["value"]["message"], "cancelled");
}

// Each document has its own queue; at most maxConcurrentExplorations checks run at once.

TEST_F(Lsp, AtMostMaxConcurrentExplorationsRunAtOnce) {
    client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}, {"maxConcurrentExplorations", 1}});
    std::string longUri = uriOf("long.c"), raceUri = uriOf("race.c"), otherUri = uriOf("other.c");
    client.open(longUri, kLong);
    ASSERT_TRUE(client.waitStatus(longUri, 1, "exploring", 30s));
    client.open(raceUri, kRace);
    ASSERT_TRUE(client.waitStatus(raceUri, 1, "queued", 10s));
    std::this_thread::sleep_for(500ms);
    // The one slot is taken: race.c waits (it would take milliseconds).
    auto stats = client.response(client.request("skein/statistics", {{"textDocument", {{"uri", raceUri}}}}));
    ASSERT_TRUE(stats);
    EXPECT_EQ((*stats)["result"]["state"], "queued");
    EXPECT_FALSE(client.waitStatus(raceUri, 1, "compiling", 0ms));
    // Freeing the slot lets it run.
    client.request("workspace/executeCommand", {{"command", "skein.cancel"}, {"arguments", {longUri}}});
    auto done = client.waitStatus(raceUri, 1, "done", 30s);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["verdict"], "error");
    // Two slots: a long exploration no longer holds up another document.
    client.notify("workspace/didChangeConfiguration", {{"settings", {{"skein", {{"maxConcurrentExplorations", 2}}}}}});
    size_t from = client.count();
    client.request("workspace/executeCommand", {{"command", "skein.recheck"}, {"arguments", {longUri}}});
    ASSERT_TRUE(client.waitStatus(longUri, 1, "exploring", 30s, &from));
    client.open(otherUri, kRaceFixed);
    auto other = client.waitStatus(otherUri, 1, "done", 30s);
    ASSERT_TRUE(other);
    EXPECT_EQ(other->message["params"]["verdict"], "safe");
    auto longState = client.response(client.request("skein/statistics", {{"textDocument", {{"uri", longUri}}}}));
    ASSERT_TRUE(longState);
    EXPECT_EQ((*longState)["result"]["state"], "exploring");
}

// debounceMs delays the check after an edit (and a newer edit restarts the wait).

TEST_F(Lsp, TheDebounceIsConfigurable) {
    client.initialize(json{{"debounceMs", 600000}});
    std::string uri = uriOf("race.c");
    client.open(uri, kRace); // an open is checked at once
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    client.changeFull(uri, kRaceFixed, 2);
    ASSERT_TRUE(client.waitStatus(uri, 2, "queued", 10s));
    std::this_thread::sleep_for(1000ms); // more than the default debounce
    auto stats = client.response(client.request("skein/statistics", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_TRUE(stats);
    EXPECT_EQ((*stats)["result"]["state"], "queued");
    EXPECT_EQ((*stats)["result"]["version"], 2);
    client.notify("workspace/didChangeConfiguration", {{"settings", {{"skein", {{"debounceMs", 10}}}}}});
    client.changeFull(uri, kRaceFixed + std::string("int y;\n"), 3);
    auto done = client.waitStatus(uri, 3, "done", 30s);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["verdict"], "safe");
    EXPECT_FALSE(client.waitStatus(uri, 2, "done", 0ms));
}

// Documents are compiled from the editor's text in memory: nothing appears next to the user's file.

TEST_F(Lsp, AResultReusedFromAnotherDocumentIsShownInThisOne) {
    client.initialize();
    client.open(uriOf("one.c"), kRace);
    ASSERT_TRUE(client.waitStatus(uriOf("one.c"), 1, "done"));
    client.open(uriOf("two.c"), std::string("// the same program\n") + kRace);
    auto done = client.waitStatus(uriOf("two.c"), 1, "done");
    ASSERT_TRUE(done);
    EXPECT_TRUE(done->message["params"]["reused"]);
    auto races = withCode(diagnosticsOf(*client.lastDiagnostics(uriOf("two.c"))), "data_race");
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0]["relatedInformation"][0]["location"]["uri"], uriOf("two.c"));
    std::set<int> lines = {
        races[0]["range"]["start"]["line"].get<int>(),
        races[0]["relatedInformation"][0]["location"]["range"]["start"]["line"].get<int>()};
    EXPECT_EQ(lines, (std::set<int>{3, 7})) << races[0].dump(1);
}

TEST_F(Lsp, AChangedHeaderOnDiskRechecksTheDocumentsThatIncludeIt) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("skein-lsp-header-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "config.h") << "#define FIXED 0\n";
    std::string text = R"(#include <pthread.h>
#include "config.h"
int x;
void *t(void *a) { x = 1; return 0; }
int main() {
  pthread_t a;
  pthread_create(&a, 0, t, 0);
#if FIXED
  pthread_join(a, 0);
  x = 2;
#else
  x = 2;
  pthread_join(a, 0);
#endif
  return 0;
}
)";
    int id = client.request(
        "initialize",
        {{"capabilities", {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}}}});
    ASSERT_TRUE(client.response(id));
    client.notify("initialized", json::object());
    auto reg = client.waitFor(
        [](const json& m) { return m.value("method", "") == "client/registerCapability"; }, 5s);
    ASSERT_TRUE(reg);
    EXPECT_EQ(reg->message["params"]["registrations"][0]["method"], "workspace/didChangeWatchedFiles");
    client.respond(reg->message["id"], nullptr);
    std::string uri = "file://" + (dir / "main.c").string();
    client.open(uri, text);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    EXPECT_EQ(withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "data_race").size(), 1u);
    std::ofstream(dir / "config.h") << "#define FIXED 1\n";
    size_t from = client.count();
    client.notify("workspace/didChangeWatchedFiles",
                  {{"changes", {{{"uri", "file://" + (dir / "config.h").string()}, {"type", 2}}}}});
    auto done = client.waitStatus(uri, 1, "done", 30s, &from);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["verdict"], "safe");
    EXPECT_TRUE(diagnosticsOf(*client.lastDiagnostics(uri)).empty());
    fs::remove_all(dir);
}

TEST_F(Lsp, SeveralDocumentsAreCheckedIndependently) {
    client.initialize(json{{"maxConcurrentExplorations", 2}});
    client.open(uriOf("a.c"), kRace);
    client.open(uriOf("b.c"), kRaceFixed);
    client.open(uriOf("c.c"), kLostUpdate);
    ASSERT_TRUE(client.waitStatus(uriOf("a.c"), 1, "done"));
    ASSERT_TRUE(client.waitStatus(uriOf("b.c"), 1, "done"));
    ASSERT_TRUE(client.waitStatus(uriOf("c.c"), 1, "done"));
    EXPECT_EQ(withCode(diagnosticsOf(*client.lastDiagnostics(uriOf("a.c"))), "data_race").size(), 1u);
    EXPECT_TRUE(diagnosticsOf(*client.lastDiagnostics(uriOf("b.c"))).empty());
    EXPECT_EQ(withCode(diagnosticsOf(*client.lastDiagnostics(uriOf("c.c"))), "assertion").size(), 1u);
}

TEST_F(Lsp, ReopeningADocumentWhileItsOldCheckRunsNeverShowsTheOldResult) {
    client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}});
    std::string uri = uriOf("reopen.c");
    client.open(uri, kLong);
    ASSERT_TRUE(client.waitStatus(uri, 1, "exploring", 30s));
    client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
    size_t from = client.count();
    client.open(uri, kRace); // the same uri and version number, another text
    auto done = client.waitStatus(uri, 1, "done", 30s, &from);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["verdict"], "error");
    std::this_thread::sleep_for(100ms);
    auto pub = client.lastDiagnostics(uri);
    EXPECT_EQ(withCode(diagnosticsOf(*pub), "data_race").size(), 1u);
    EXPECT_TRUE(withCode(diagnosticsOf(*pub), "bounded").empty()) << pub->dump(1);
}

// Soak: 5,000 edits across 3 documents; the server's memory stays under a bound. Not in the default run:
// SKEIN_LSP_SOAK=1 ctest --test-dir build -R LspSoak

TEST(LspSoak, FiveThousandEditsAcrossThreeDocumentsInBoundedMemory) {
    if (!std::getenv("SKEIN_LSP_SOAK")) GTEST_SKIP() << "set SKEIN_LSP_SOAK=1 to run";
    LspClient client(SKEIN_BINARY);
    client.initialize(json{{"debounceMs", 5}, {"maxConcurrentExplorations", 2}});
    std::vector<std::string> uris = {uriOf("a.c"), uriOf("b.c"), uriOf("c.c")};
    const char* texts[] = {kRace, kRaceFixed, kLostUpdate};
    for (size_t i = 0; i < uris.size(); ++i) client.open(uris[i], texts[i]);
    long peakRss = 0, firstRss = 0;
    std::vector<int> versions(uris.size(), 1);
    for (int e = 0; e < 5000; ++e) {
        size_t d = size_t(e) % 3;
        int version = ++versions[d];
        // Real changes (a different constant each time: a new fingerprint, cache churn) and comment edits.
        std::string text = std::string(texts[(size_t(e) / 3 + d) % 3]);
        if (e % 2)
            text += "int soak_" + std::to_string(e % 97) + " = " + std::to_string(e) + ";\n";
        else
            text += "// comment " + std::to_string(e) + "\n";
        client.changeFull(uris[d], text, version);
        if (e % 10 == 9) std::this_thread::sleep_for(15ms); // let checks start (and be superseded mid-way)
        if (e % 100 == 99) { // and let some finish: results cached, counterexample ids, adopted comment edits
            for (size_t k = 0; k < uris.size(); ++k)
                ASSERT_TRUE(client.waitStatus(uris[k], versions[k], "done", 60s)) << uris[k];
        }
        if (e % 50 == 49) {
            long rss = client.rssKb();
            if (e == 499) firstRss = rss;
            peakRss = std::max(peakRss, rss);
        }
    }
    for (size_t d = 0; d < uris.size(); ++d)
        ASSERT_TRUE(client.waitStatus(uris[d], versions[d], "done", 120s)) << uris[d];
    long hwm = client.rssKb("VmHWM:");
    size_t done = 0;
    for (const Received& r : client.all())
        done += r.message.value("method", "") == "skein/status" && r.message["params"]["state"] == "done";
    std::printf("soak: RSS after 500 edits %ld kB, peak sampled %ld kB, VmHWM %ld kB, %zu messages, %zu "
                "checks done\n",
                firstRss, peakRss, hwm, client.count(), done);
    EXPECT_LT(hwm, 400 * 1024) << "peak RSS over 400 MB";
    EXPECT_LT(peakRss - firstRss, 64 * 1024) << "RSS grew by more than 64 MB after the first 500 edits";
    int code = -1;
    ASSERT_TRUE(client.shutdownAndExit(&code));
    EXPECT_EQ(code, 0);
}

} // namespace
} // namespace skein::test
