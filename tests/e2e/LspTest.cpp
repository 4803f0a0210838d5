// End-to-end tests of `skein lsp`: a fake client (tests/e2e/LspClient.h) drives the real binary over pipes.
// Every wait has a timeout; a hung server fails the test instead of hanging it. This file: the protocol and the
// diagnostics; LspEditTest.cpp: edits, incremental exploration, scheduling and the soak test.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "LspTestSupport.h"

namespace skein::test {
namespace {

TEST_F(Lsp, InitializeAnswersCapabilitiesAndShutdownExitsCleanly) {
    int id = client.request("initialize", {{"capabilities", json::object()}});
    auto r = client.response(id);
    ASSERT_TRUE(r);
    const json& caps = (*r)["result"]["capabilities"];
    EXPECT_EQ(caps["textDocumentSync"]["change"], 2);
    EXPECT_TRUE(caps["hoverProvider"]);
    EXPECT_TRUE(caps.contains("codeLensProvider"));
    EXPECT_FALSE(caps.contains("definitionProvider")); // only what is implemented
    int code = -1;
    ASSERT_TRUE(client.shutdownAndExit(&code));
    EXPECT_EQ(code, 0);
}

TEST_F(Lsp, RaceIsReportedAtOneAccessWithTheOtherAsRelatedInformation) {
    client.initialize();
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto pub = client.lastDiagnostics(uri);
    ASSERT_TRUE(pub);
    EXPECT_EQ((*pub)["version"], 1);
    auto races = withCode(diagnosticsOf(*pub), "data_race");
    ASSERT_EQ(races.size(), 1u) << pub->dump(1);
    const json& d = races[0];
    std::set<int> lines = {d["range"]["start"]["line"].get<int>(),
                           d["relatedInformation"][0]["location"]["range"]["start"]["line"].get<int>()};
    EXPECT_EQ(lines, (std::set<int>{2, 6})) << d.dump(1); // `x = 1;` in t, `x = 2;` in main (0-based)
    EXPECT_EQ(d["relatedInformation"][0]["location"]["uri"], uri);
    EXPECT_NE(d["message"].get<std::string>().find("data race on `x`"), std::string::npos);
    EXPECT_TRUE(d["data"]["counterexample"].is_string());
}

TEST_F(Lsp, FixingTheBugByAnEditClearsTheDiagnostic) {
    client.initialize(json{{"debounceMs", 50}});
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    ASSERT_FALSE(withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "data_race").empty());
    client.changeFull(uri, kRaceFixed, 2);
    auto done = client.waitStatus(uri, 2, "done");
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["verdict"], "safe");
    auto pub = client.lastDiagnostics(uri);
    EXPECT_EQ((*pub)["version"], 2);
    EXPECT_TRUE(diagnosticsOf(*pub).empty()) << pub->dump(1);
}

TEST_F(Lsp, IncrementalEditsAreAppliedInUtf16Coordinates) {
    client.initialize(json{{"debounceMs", 50}});
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    // Delete line 6 (`  x = 2;`) and re-insert it after the join (now line 6): the fix, as two incremental
    // edits.
    client.notify(
        "textDocument/didChange",
        {{"textDocument", {{"uri", uri}, {"version", 2}}},
         {"contentChanges",
          {{{"range", {{"start", {{"line", 6}, {"character", 0}}}, {"end", {{"line", 7}, {"character", 0}}}}},
            {"text", ""}},
           {{"range", {{"start", {{"line", 7}, {"character", 0}}}, {"end", {{"line", 7}, {"character", 0}}}}},
            {"text", "  x = 2; /* \xc3\xa9\xf0\x9f\x98\x80 */\n"}}}}});
    ASSERT_TRUE(client.waitStatus(uri, 2, "done"));
    EXPECT_TRUE(diagnosticsOf(*client.lastDiagnostics(uri)).empty());
    // A change whose range is outside the document is rejected (logged), and the server carries on.
    client.changeRange(uri, 3, 400, 0, 401, 0, "junk");
    ASSERT_TRUE(
        client.waitFor([](const json& m) { return m.value("method", "") == "window/logMessage"; }, 5s));
    int id = client.request("skein/statistics", {{"textDocument", {{"uri", uri}}}});
    auto r = client.response(id);
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)["result"]["version"], 2);
}

TEST_F(Lsp, AssertionMessageNamesTheWriteThatCameTooLate) {
    client.initialize();
    std::string uri = uriOf("early.c");
    client.open(uri, R"(#include <assert.h>
#include <pthread.h>
int x;
void *writer(void *a) { x = 2; return 0; }
void *checker(void *a) { assert(x == 2); return 0; }
int main(void) {
  pthread_t w, c;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&c, 0, checker, 0);
  pthread_join(w, 0);
  pthread_join(c, 0);
  return 0;
}
)");
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto a = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "assertion");
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0]["message"],
              "assertion `x == 2` fails when thread 2 reads `x` = 0 at line 5 before thread 1's "
              "write at line 4");
    EXPECT_EQ(a[0]["relatedInformation"][0]["location"]["range"]["start"]["line"], 3);
}

TEST_F(Lsp, MalformedMessagesAndUnknownMethodsGetErrorsAndTheServerCarriesOn) {
    // Before initialize.
    int early = client.request("textDocument/codeLens", {{"textDocument", {{"uri", uriOf("a.c")}}}});
    auto r0 = client.response(early);
    ASSERT_TRUE(r0);
    EXPECT_EQ((*r0)["error"]["code"], -32002);
    client.initialize();
    client.sendRaw("{this is not json");
    auto parse = client.waitFor([](const json& m) { return m.contains("error") && m["id"].is_null(); }, 5s);
    ASSERT_TRUE(parse);
    EXPECT_EQ(parse->message["error"]["code"], -32700);
    client.sendRaw(R"({"jsonrpc":"2.0","id":78,"method":"x","params":)" + std::string(200000, '[') +
                   std::string(200000, ']') + "}"); // would overflow a recursive parser's stack
    ASSERT_TRUE(client.waitFor(
        [](const json& m) {
            return m.contains("error") && m["id"].is_null() &&
                   m["error"]["message"].get<std::string>().find("nests deeper") != std::string::npos;
        },
        5s));
    client.writeAll("X-Garbage: 1\r\n\r\n");           // a header without Content-Length
    client.sendRaw(R"({"jsonrpc":"2.0","method":5})"); // wrongly typed fields
    client.sendRaw(R"({"jsonrpc":7,"id":76,"method":"x"})");
    client.sendRaw(R"({"jsonrpc":"1.0","id":77,"method":"x"})"); // not JSON-RPC 2.0
    auto bad = client.response(77);
    ASSERT_TRUE(bad);
    EXPECT_EQ((*bad)["error"]["code"], -32600);
    auto unknown = client.response(client.request("skein/noSuchMethod", json::object()));
    ASSERT_TRUE(unknown);
    EXPECT_EQ((*unknown)["error"]["code"], -32601);
    auto noDoc =
        client.response(client.request("textDocument/codeLens", {{"textDocument", {{"uri", uriOf("x.c")}}}}));
    ASSERT_TRUE(noDoc);
    EXPECT_EQ((*noDoc)["error"]["code"], -32602);
    auto badParams = client.response(client.request("textDocument/hover", {{"textDocument", 5}}));
    ASSERT_TRUE(badParams);
    EXPECT_EQ((*badParams)["error"]["code"], -32602);
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto noCex = client.response(
        client.request("skein/counterexample", {{"textDocument", {{"uri", uri}}}, {"id", "no-such-id"}}));
    ASSERT_TRUE(noCex);
    EXPECT_EQ((*noCex)["error"]["code"], -32602);
    auto badCmd = client.response(
        client.request("workspace/executeCommand", {{"command", "skein.fly"}, {"arguments", {uri}}}));
    ASSERT_TRUE(badCmd);
    EXPECT_TRUE(badCmd->contains("error"));
    // Still serving.
    auto stats = client.response(client.request("skein/statistics", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_TRUE(stats);
    EXPECT_EQ((*stats)["result"]["state"], "done");
    int code = -1;
    ASSERT_TRUE(client.shutdownAndExit(&code));
    EXPECT_EQ(code, 0);
}

TEST_F(Lsp, CompileErrorsComeFromClangAtTheirLine) {
    client.initialize();
    std::string uri = uriOf("broken.c");
    client.open(uri, "int main(void) {\n  return y;\n}\n");
    auto failed = client.waitStatus(uri, 1, "failed");
    ASSERT_TRUE(failed);
    auto compile = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "compile");
    ASSERT_FALSE(compile.empty());
    EXPECT_EQ(compile[0]["range"]["start"]["line"], 1);
    EXPECT_NE(compile[0]["message"].get<std::string>().find("undeclared identifier"), std::string::npos);
}

TEST_F(Lsp, DeadlockIsReportedAtTheBlockedLockCalls) {
    client.initialize();
    std::string uri = uriOf("abba.c");
    client.open(uri, readFile(std::string(SKEIN_SOURCE_DIR) + "/examples/abba_deadlock.c"));
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto dl = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "deadlock");
    ASSERT_EQ(dl.size(), 1u);
    std::set<int> blocked = {dl[0]["range"]["start"]["line"].get<int>()};
    for (const json& r : dl[0]["relatedInformation"])
        if (r["message"].get<std::string>().find("waits for mutex") != std::string::npos)
            blocked.insert(r["location"]["range"]["start"]["line"].get<int>());
    // The second lock of each thread (examples/abba_deadlock.c: lines 28 and 42, 1-based).
    EXPECT_EQ(blocked, (std::set<int>{27, 41})) << dl[0].dump(1);
}

TEST_F(Lsp, SpinLockDeadlockNamesTheOtherSpinningThread) {
    // Spin locks taken in opposite orders (tests/corpus/spin_deadlock.c): both threads spin for good at the exchange
    // of lock() (line 58, 1-based); the diagnostic is thread 1's, and thread 2's spin is its related information.
    client.initialize();
    std::string uri = uriOf("spin_deadlock.c");
    client.open(uri, readFile(std::string(SKEIN_SOURCE_DIR) + "/tests/corpus/spin_deadlock.c"));
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto dl = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "deadlock");
    ASSERT_EQ(dl.size(), 1u);
    EXPECT_EQ(dl[0]["range"]["start"]["line"], 57);
    bool otherSpins = false;
    for (const json& r : dl[0]["relatedInformation"])
        otherSpins |= r["message"].get<std::string>().find("spins forever at line 58 on `a`") != std::string::npos &&
                      r["location"]["range"]["start"]["line"] == 57;
    EXPECT_TRUE(otherSpins) << dl[0].dump(1);
}

TEST_F(Lsp, DeadlockAfterALateInitialisationPointsAtIt) {
    // tests/corpus/threads/late_sem_init.c: the worker's post (line 25, 1-based) comes before main's sem_init (line
    // 36), which sets the count back to 0; main's wait (line 38) blocks for good. The diagnostic is at the wait, and
    // the initialisation that lost the unit is its related information.
    client.initialize();
    std::string uri = uriOf("late_sem_init.c");
    client.open(uri, readFile(std::string(SKEIN_SOURCE_DIR) + "/tests/corpus/threads/late_sem_init.c"));
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto dl = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "deadlock");
    ASSERT_EQ(dl.size(), 1u);
    EXPECT_EQ(dl[0]["range"]["start"]["line"], 37);
    bool init = false;
    for (const json& r : dl[0]["relatedInformation"])
        init |= r["message"].get<std::string>().find("initialises `ready` here, after thread 1's sem_post") !=
                    std::string::npos &&
                r["location"]["range"]["start"]["line"] == 35;
    EXPECT_TRUE(init) << dl[0].dump(1);
}

TEST_F(Lsp, SemaphoreDeadlockNamesTheOtherWaiter) {
    // Each thread waits on a semaphore only the other would post (explored by the default explorer, qpor, since
    // the twenty-fourth session). The diagnostic is at one wait (0-based line 5 or 14), and the other wait is its
    // related information, with the semaphore and its count.
    const std::string src = "#include <pthread.h>\n"
                            "#include <semaphore.h>\n"
                            "sem_t a, b;\n"
                            "void *t1(void *x) {\n"
                            "    (void)x;\n"
                            "    sem_wait(&a);\n"
                            "    sem_post(&b);\n"
                            "    return 0;\n"
                            "}\n"
                            "int main(void) {\n"
                            "    sem_init(&a, 0, 0);\n"
                            "    sem_init(&b, 0, 0);\n"
                            "    pthread_t t;\n"
                            "    pthread_create(&t, 0, t1, 0);\n"
                            "    sem_wait(&b);\n"
                            "    sem_post(&a);\n"
                            "    pthread_join(t, 0);\n"
                            "    return 0;\n"
                            "}\n";
    client.initialize();
    std::string uri = uriOf("sem_deadlock.c");
    client.open(uri, src);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto dl = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "deadlock");
    ASSERT_EQ(dl.size(), 1u);
    const int line = dl[0]["range"]["start"]["line"];
    EXPECT_TRUE(line == 5 || line == 14) << dl[0].dump(1);
    const std::string other =
        line == 5 ? "waits on semaphore `b` (its count is 0)" : "waits on semaphore `a` (its count is 0)";
    bool named = false;
    for (const json& r : dl[0]["relatedInformation"])
        named |= r["message"].get<std::string>().find(other) != std::string::npos &&
                 r["location"]["range"]["start"]["line"] == (line == 5 ? 14 : 5);
    EXPECT_TRUE(named) << dl[0].dump(1);
}

TEST_F(Lsp, CounterexampleRequestReturnsTheSameDataAsCheckJson) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("skein-lsp-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::path file = dir / "race.c";
    std::ofstream(file) << kRace;
    client.initialize();
    std::string uri = "file://" + file.string();
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto races = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "data_race");
    ASSERT_EQ(races.size(), 1u);
    std::string id = races[0]["data"]["counterexample"];
    auto r = client.response(
        client.request("skein/counterexample", {{"textDocument", {{"uri", uri}}}, {"id", id}}));
    ASSERT_TRUE(r);
    const json& err = (*r)["result"]["error"];
    EXPECT_FALSE(err["trace"].empty());
    EXPECT_FALSE(err["graph"]["nodes"].empty());
    EXPECT_FALSE(err["schedule"].empty());

    std::string cmd = std::string(SKEIN_BINARY) + " check --json " + file.string() + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_TRUE(p);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
    json cli = json::parse(out, nullptr, false);
    ASSERT_FALSE(cli.is_discarded());
    bool matched = false;
    for (const json& e : cli["errors"])
        if (e["kind"] == "data_race") {
            EXPECT_EQ(e["trace"], err["trace"]);
            EXPECT_EQ(e["graph"], err["graph"]);
            EXPECT_EQ(e["schedule"], err["schedule"]);
            EXPECT_EQ(e["message"], err["message"]);
            matched = true;
        }
    EXPECT_TRUE(matched);
    fs::remove_all(dir);
}

TEST_F(Lsp, CodeLensHoverStatisticsAndCommands) {
    client.initialize(json{{"debounceMs", 50}});
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto lens = client.response(client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_TRUE(lens);
    ASSERT_FALSE((*lens)["result"].empty());
    const json& l = (*lens)["result"][0];
    EXPECT_EQ(l["range"]["start"]["line"], 3); // main
    EXPECT_NE(l["command"]["title"].get<std::string>().find("data race on `x`"), std::string::npos)
        << l.dump();
    EXPECT_EQ(l["command"]["command"], "skein.showTrace");
    auto trace = client.response(
        client.request("workspace/executeCommand",
                       {{"command", "skein.showTrace"}, {"arguments", l["command"]["arguments"]}}));
    ASSERT_TRUE(trace);
    EXPECT_EQ((*trace)["result"]["error"]["kind"], "data_race");

    auto hover = client.response(
        client.request("textDocument/hover",
                       {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 6}, {"character", 2}}}}));
    ASSERT_TRUE(hover);
    std::string md = (*hover)["result"]["contents"]["value"];
    EXPECT_NE(md.find("- thread 0 (main): writes at line 7\n"), std::string::npos) << md;
    EXPECT_NE(md.find("- thread 1: writes at line 3\n"), std::string::npos) << md;
    EXPECT_NE(md.find("**Race:** data race on `x`"), std::string::npos) << md;
    EXPECT_EQ((*hover)["result"]["range"]["start"]["character"], 2); // the identifier `x`
    EXPECT_EQ((*hover)["result"]["range"]["end"]["character"], 3);
    auto noHover = client.response(
        client.request("textDocument/hover",
                       {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 4}, {"character", 3}}}}));
    ASSERT_TRUE(noHover);
    EXPECT_TRUE((*noHover)["result"].is_null());

    auto stats = client.response(client.request("skein/statistics", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_TRUE(stats);
    EXPECT_GT((*stats)["result"]["stats"]["executions"].get<int>(), 0);

    client.request("workspace/executeCommand",
                   {{"command", "skein.setAlgorithm"}, {"arguments", {uri, "dfs"}}});
    auto dfs = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["state"] == "done" &&
                   m["params"].value("algorithm", "") == "dfs";
        },
        30s);
    ASSERT_TRUE(dfs);
    EXPECT_FALSE(dfs->message["params"]["reused"]); // other options: a different cache key

    client.changeFull(uri, kRaceFixed, 2);
    auto fixed = client.waitStatus(uri, 2, "done");
    ASSERT_TRUE(fixed);
    lens = client.response(client.request("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_EQ((*lens)["result"].size(), 1u);
    EXPECT_EQ((*lens)["result"][0]["command"]["title"],
              "Skein: " + std::to_string(fixed->message["params"]["stats"]["executions"].get<int>()) +
                  " executions, no errors");
    // A shared variable without a race says so.
    hover = client.response(
        client.request("textDocument/hover",
                       {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 7}, {"character", 2}}}}));
    ASSERT_TRUE(hover);
    md = (*hover)["result"]["contents"]["value"];
    EXPECT_NE(md.find("No data race on it in any explored execution."), std::string::npos) << md;
}

TEST_F(Lsp, UndefinedBehaviourIsReportedAtItsLine) {
    client.initialize();
    std::string uri = uriOf("uaf.c");
    client.open(uri, readFile(std::string(SKEIN_SOURCE_DIR) + "/examples/use_after_free.c"));
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    auto mem = withCode(diagnosticsOf(*client.lastDiagnostics(uri)), "memory");
    ASSERT_EQ(mem.size(), 1u);
    EXPECT_EQ(mem[0]["range"]["start"]["line"], 24); // `buf[0] = 42;` (examples/use_after_free.c:25)
    EXPECT_NE(mem[0]["message"].get<std::string>().find("after the main thread freed it at line 37"),
              std::string::npos)
        << mem[0]["message"];
    EXPECT_EQ(mem[0]["relatedInformation"][0]["location"]["range"]["start"]["line"], 36);
}

TEST_F(Lsp, ConfigurationIsPulledWhenTheClientSupportsIt) {
    client.initialize(json::object(), false, /*configuration=*/true);
    auto ask =
        client.waitFor([](const json& m) { return m.value("method", "") == "workspace/configuration"; }, 5s);
    ASSERT_TRUE(ask);
    EXPECT_EQ(ask->message["params"]["items"][0]["section"], "skein");
    client.respond(ask->message["id"], json::array({{{"reportKinds", {"assertion"}}, {"algorithm", "dfs"}}}));
    std::string uri = uriOf("race.c");
    std::this_thread::sleep_for(100ms); // the response is handled on the message loop, before didOpen
    client.open(uri, kRace);
    auto done = client.waitStatus(uri, 1, "done");
    ASSERT_TRUE(done);
    EXPECT_EQ(done->message["params"]["algorithm"], "dfs");
    EXPECT_EQ(done->message["params"]["errors"], 0); // the race is filtered out by reportKinds
    EXPECT_TRUE(diagnosticsOf(*client.lastDiagnostics(uri)).empty());
    // didChangeConfiguration makes the server ask again.
    size_t from = client.count();
    client.notify("workspace/didChangeConfiguration", {{"settings", nullptr}});
    auto again = client.waitFor(
        [](const json& m) { return m.value("method", "") == "workspace/configuration"; }, 5s, &from);
    ASSERT_TRUE(again);
    client.respond(again->message["id"], json::array({json::object()}));
}

TEST_F(Lsp, SaveWithNewTextRechecksAndCloseClearsDiagnostics) {
    client.initialize();
    std::string uri = uriOf("race.c");
    client.open(uri, kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    client.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}, {"text", kRaceFixed}});
    auto done = client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "skein/status" && m["params"]["state"] == "done" &&
                   m["params"]["verdict"] == "safe";
        },
        30s);
    ASSERT_TRUE(done);
    client.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
    ASSERT_TRUE(client.waitFor(
        [&](const json& m) {
            return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
                   m["params"]["diagnostics"].empty() && !m["params"].contains("version");
        },
        5s));
    auto gone = client.response(client.request("skein/statistics", {{"textDocument", {{"uri", uri}}}}));
    ASSERT_TRUE(gone);
    EXPECT_EQ((*gone)["error"]["code"], -32602);
}

TEST_F(Lsp, NothingIsWrittenNextToTheUsersFiles) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("skein-lsp-nowrite-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "race.c") << kRace;
    std::ofstream(dir / "config.h") << "#define N 1\n";
    client.initialize(json{{"debounceMs", 10}});
    std::string uri = "file://" + (dir / "race.c").string();
    client.open(uri, std::string("#include \"config.h\"\n") + kRace);
    ASSERT_TRUE(client.waitStatus(uri, 1, "done"));
    client.changeFull(uri, std::string("#include \"config.h\"\n") + kRaceFixed, 2);
    ASSERT_TRUE(client.waitStatus(uri, 2, "done"));
    client.changeFull(uri, "int main(void) { return z; }\n", 3); // a compile error
    ASSERT_TRUE(client.waitStatus(uri, 3, "failed"));
    int code = -1;
    ASSERT_TRUE(client.shutdownAndExit(&code));
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    EXPECT_EQ(names, (std::set<std::string>{"config.h", "race.c"}));
    EXPECT_EQ(readFile((dir / "race.c").string()), kRace); // the unsaved edits stay in the editor
    fs::remove_all(dir);
}

} // namespace
} // namespace skein::test
