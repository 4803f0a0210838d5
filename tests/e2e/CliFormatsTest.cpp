// The real `skein` binary's output formats: --json (every documented field, docs/json-output.md), --sarif and --dot.
#include <set>
#include <string>

#include "CliSupport.h"

namespace {

using namespace skein_cli_test;
using nlohmann::json;

// ---- --json ----

void expectLocation(const json& l) {
    ASSERT_TRUE(l.is_object()) << l;
    EXPECT_TRUE(l["file"].is_string()) << l;
    EXPECT_TRUE(l["line"].is_number_unsigned()) << l;
    EXPECT_TRUE(l["column"].is_number_unsigned()) << l;
}

// Every documented field of docs/json-output.md, with its type.
void expectDocumentedShape(const json& j) {
    ASSERT_TRUE(j.is_object());
    EXPECT_TRUE(j["verdict"].is_string());
    EXPECT_TRUE(std::set<std::string>({"safe", "error", "bounded"}).count(j["verdict"].get<std::string>())) << j["verdict"];
    EXPECT_TRUE(j["algorithm"].is_string());
    EXPECT_TRUE(j["file"].is_string());
    EXPECT_TRUE(j["bounds"].is_array());
    EXPECT_TRUE(j["stopped_early"].is_boolean());
    EXPECT_TRUE(j["output"].is_array());
    const json& s = j["stats"];
    for (const char* k : {"executions", "blocked", "bounded", "ssb", "events", "instructions", "peak_rss_kb"})
        EXPECT_TRUE(s[k].is_number_unsigned()) << k << " in " << s;
    for (const char* k : {"elapsed_ms", "compile_ms"}) EXPECT_TRUE(s[k].is_number()) << k << " in " << s;
    if (j["algorithm"] == "dfs") {
        EXPECT_TRUE(s["mazurkiewicz_traces"].is_number_unsigned()) << s;
    }
    EXPECT_GT(s["peak_rss_kb"].get<uint64_t>(), 0u);
    ASSERT_TRUE(j["errors"].is_array());
    static const std::set<std::string> kinds = {"assertion", "data_race",      "deadlock",   "memory",
                                                "arithmetic", "pthread_misuse", "stack_overflow", "unsupported"};
    static const std::set<std::string> edgeKinds = {"po", "rf", "co", "sync", "race"};
    for (const json& e : j["errors"]) {
        EXPECT_TRUE(kinds.count(e["kind"].get<std::string>())) << e["kind"];
        EXPECT_TRUE(e["message"].is_string());
        expectLocation(e["location"]);
        EXPECT_TRUE(e["thread"].is_number_unsigned());
        EXPECT_GE(e["occurrences"].get<uint64_t>(), 1u);
        ASSERT_TRUE(e["trace"].is_array());
        ASSERT_FALSE(e["trace"].empty());
        uint64_t prev = 0;
        for (const json& st : e["trace"]) {
            EXPECT_GT(st["step"].get<uint64_t>(), prev) << "steps increase";
            prev = st["step"].get<uint64_t>();
            EXPECT_TRUE(st["thread"].is_number_unsigned());
            EXPECT_TRUE(st["operation"].is_string());
            expectLocation(st["location"]);
        }
        ASSERT_TRUE(e["graph"]["nodes"].is_array());
        ASSERT_TRUE(e["graph"]["edges"].is_array());
        std::set<uint64_t> ids;
        for (const json& n : e["graph"]["nodes"]) {
            ids.insert(n["id"].get<uint64_t>());
            EXPECT_TRUE(n["label"].is_string());
            EXPECT_TRUE(n["thread"].is_number_unsigned());
            expectLocation(n["location"]);
        }
        for (const json& g : e["graph"]["edges"]) {
            EXPECT_TRUE(edgeKinds.count(g["kind"].get<std::string>())) << g;
            EXPECT_TRUE(ids.count(g["from"].get<uint64_t>())) << "edge from an unknown node: " << g;
            EXPECT_TRUE(ids.count(g["to"].get<uint64_t>())) << "edge to an unknown node: " << g;
        }
        ASSERT_TRUE(e["schedule"].is_array());
        for (const json& d : e["schedule"]) EXPECT_TRUE(d.is_array() && d.size() == 2) << d;
    }
}

TEST_F(Cli, JsonSafe) {
    Outcome r = run("check --json " + write("safe.c", kSafeLocked));
    EXPECT_EQ(r.exitCode, 0);
    json j = parseJson(r);
    expectDocumentedShape(j);
    EXPECT_EQ(j["verdict"], "safe");
    EXPECT_EQ(j["algorithm"], "qpor"); // the default explorer
    EXPECT_TRUE(j["errors"].empty());
    EXPECT_GE(j["stats"]["executions"].get<uint64_t>(), 2u);
    EXPECT_GT(j["stats"]["events"].get<uint64_t>(), 0u);
    EXPECT_EQ(j["stopped_early"], false);
}

TEST_F(Cli, JsonDataRaceHasBothLocations) {
    std::string f = write("race.c", kRace);
    Outcome r = run("check --json " + f);
    EXPECT_EQ(r.exitCode, 1);
    json j = parseJson(r);
    expectDocumentedShape(j);
    EXPECT_EQ(j["verdict"], "error");
    EXPECT_EQ(j["file"], f);
    ASSERT_EQ(j["errors"].size(), 1u);
    const json& e = j["errors"][0];
    EXPECT_EQ(e["kind"], "data_race");
    ASSERT_TRUE(e.contains("other_location")) << e;
    ASSERT_TRUE(e.contains("other_thread")) << e;
    std::set<uint64_t> lines = {e["location"]["line"].get<uint64_t>(), e["other_location"]["line"].get<uint64_t>()};
    EXPECT_EQ(lines, (std::set<uint64_t>{3, 7}));
    EXPECT_NE(e["thread"], e["other_thread"]);
    EXPECT_GE(e["location"]["column"].get<uint64_t>(), 1u);
    EXPECT_GE(e["other_location"]["column"].get<uint64_t>(), 1u);
    bool raceEdge = false;
    for (const json& g : e["graph"]["edges"]) raceEdge |= g["kind"] == "race";
    EXPECT_TRUE(raceEdge) << e["graph"];
    // Both racing accesses are in the trace.
    int writesOfX = 0;
    for (const json& st : e["trace"]) writesOfX += st.value("operation", "") == "write" && st.value("variable", "") == "x";
    EXPECT_EQ(writesOfX, 2);
}

TEST_F(Cli, JsonAssertionTrace) {
    Outcome r = run("check --json --algo=dfs " + write("lost.c", kLostUpdate));
    EXPECT_EQ(r.exitCode, 1);
    json j = parseJson(r);
    expectDocumentedShape(j);
    ASSERT_EQ(j["errors"].size(), 1u);
    const json& e = j["errors"][0];
    EXPECT_EQ(e["kind"], "assertion");
    EXPECT_EQ(e["location"]["line"], 15);
    EXPECT_FALSE(e.contains("other_location"));
    // Three threads take part; the graph has an rf edge (main's final read of c) and sync edges (create/join).
    std::set<uint64_t> threads;
    for (const json& st : e["trace"]) threads.insert(st["thread"].get<uint64_t>());
    EXPECT_EQ(threads, (std::set<uint64_t>{0, 1, 2}));
    std::set<std::string> kinds;
    for (const json& g : e["graph"]["edges"]) kinds.insert(g["kind"].get<std::string>());
    EXPECT_TRUE(kinds.count("po") && kinds.count("rf") && kinds.count("sync")) << e["graph"];
    EXPECT_GE(j["stats"]["mazurkiewicz_traces"].get<uint64_t>(), 2u);
}

TEST_F(Cli, JsonCompileErrorHasDiagnostics) {
    std::string f = write("bad.c", "int main() {\n  int x = ;\n  return 0;\n}\n");
    Outcome r = run("check --json " + f);
    EXPECT_EQ(r.exitCode, 3);
    json j = parseJson(r);
    EXPECT_EQ(j["verdict"], "bad_input");
    EXPECT_EQ(j["file"], f);
    ASSERT_TRUE(j["diagnostics"].is_array());
    ASSERT_FALSE(j["diagnostics"].empty());
    const json& d = j["diagnostics"][0];
    EXPECT_EQ(d["severity"], "error");
    EXPECT_TRUE(d["message"].is_string());
    EXPECT_NE(d["location"]["file"].get<std::string>().find("bad.c"), std::string::npos);
    EXPECT_EQ(d["location"]["line"], 2);
    EXPECT_GE(d["location"]["column"].get<uint64_t>(), 1u);
}

TEST_F(Cli, JsonMissingHeaderHasDiagnostics) {
    Outcome r = run("check --json " + write("inc.c", "#include \"no_such_header.h\"\nint main() { return 0; }\n"));
    EXPECT_EQ(r.exitCode, 3);
    json j = parseJson(r);
    EXPECT_EQ(j["verdict"], "bad_input");
    ASSERT_FALSE(j["diagnostics"].empty());
    EXPECT_EQ(j["diagnostics"][0]["location"]["line"], 1);
    EXPECT_NE(j["diagnostics"][0]["message"].get<std::string>().find("no_such_header.h"), std::string::npos);
}

TEST_F(Cli, JsonProgramOutput) {
    Outcome r = run("check --json " + write("hello.c", "#include <stdio.h>\nint main() { printf(\"hello %d\\n\", 42); return 0; }\n"));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    json j = parseJson(r);
    ASSERT_EQ(j["output"].size(), 1u);
    EXPECT_EQ(j["output"][0]["text"], "hello 42\n");
    EXPECT_EQ(j["output"][0]["thread"], 0);
}

// ---- --sarif ----

TEST_F(Cli, SarifShape) {
    std::string f = write("lost.c", kLostUpdate), sarifPath = path("out.sarif");
    Outcome r = run("check --sarif " + sarifPath + " " + f);
    EXPECT_EQ(r.exitCode, 1);
    json s = json::parse(slurp(sarifPath));
    EXPECT_EQ(s["version"], "2.1.0");
    EXPECT_TRUE(s["$schema"].is_string());
    ASSERT_EQ(s["runs"].size(), 1u);
    const json& run0 = s["runs"][0];
    EXPECT_EQ(run0["tool"]["driver"]["name"], "skein");
    std::set<std::string> ruleIds;
    for (const json& rule : run0["tool"]["driver"]["rules"]) ruleIds.insert(rule["id"].get<std::string>());
    ASSERT_FALSE(run0["results"].empty());
    for (const json& res : run0["results"]) {
        EXPECT_TRUE(res["ruleId"].is_string());
        EXPECT_TRUE(ruleIds.count(res["ruleId"].get<std::string>())) << res["ruleId"];
        EXPECT_EQ(run0["tool"]["driver"]["rules"][res["ruleIndex"].get<size_t>()]["id"], res["ruleId"]);
        EXPECT_TRUE(res["message"]["text"].is_string());
        ASSERT_FALSE(res["locations"].empty());
        EXPECT_GE(res["locations"][0]["physicalLocation"]["region"]["startLine"].get<uint64_t>(), 1u);
        EXPECT_TRUE(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string());
        const json& flows = res["codeFlows"][0]["threadFlows"];
        ASSERT_TRUE(flows.is_array());
        // One threadFlow per thread of the trace: main (0) and the two workers.
        EXPECT_EQ(flows.size(), 3u) << flows;
        std::set<std::string> ids;
        for (const json& tf : flows) {
            ids.insert(tf["id"].get<std::string>());
            ASSERT_FALSE(tf["locations"].empty());
            for (const json& loc : tf["locations"]) {
                EXPECT_GE(loc["location"]["physicalLocation"]["region"]["startLine"].get<uint64_t>(), 1u);
                EXPECT_TRUE(loc["executionOrder"].is_number());
            }
        }
        EXPECT_EQ(ids.size(), flows.size()) << "threadFlow ids are distinct";
    }
    EXPECT_EQ(run0["results"][0]["ruleId"], "assertion");
    EXPECT_EQ(run0["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 15);
}

TEST_F(Cli, SarifRaceHasRelatedLocation) {
    std::string sarifPath = path("race.sarif");
    EXPECT_EQ(run("check --sarif=" + sarifPath + " " + write("race.c", kRace)).exitCode, 1);
    json s = json::parse(slurp(sarifPath));
    const json& res = s["runs"][0]["results"][0];
    EXPECT_EQ(res["ruleId"], "data_race");
    EXPECT_EQ(res["codeFlows"][0]["threadFlows"].size(), 2u);
    ASSERT_EQ(res["relatedLocations"].size(), 1u);
    std::set<uint64_t> lines = {res["locations"][0]["physicalLocation"]["region"]["startLine"].get<uint64_t>(),
                                res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"].get<uint64_t>()};
    EXPECT_EQ(lines, (std::set<uint64_t>{3, 7}));
}

TEST_F(Cli, SarifSafeHasNoResults) {
    std::string sarifPath = path("safe.sarif");
    EXPECT_EQ(run("check --sarif " + sarifPath + " " + write("safe.c", kSafeLocked)).exitCode, 0);
    json s = json::parse(slurp(sarifPath));
    EXPECT_EQ(s["version"], "2.1.0");
    EXPECT_TRUE(s["runs"][0]["results"].is_array());
    EXPECT_TRUE(s["runs"][0]["results"].empty());
}

TEST_F(Cli, UnwritableOutputIsThree) {
    EXPECT_EQ(run("check --sarif " + path("no/such/dir/x.sarif") + " " + write("race.c", kRace)).exitCode, 3);
    EXPECT_EQ(run("check --dot " + path("no/such/dir/x.dot") + " " + path("race.c")).exitCode, 3);
}

// ---- --dot ----

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
    return n;
}

TEST_F(Cli, DotRace) {
    std::string dotPath = path("race.dot");
    EXPECT_EQ(run("check --dot " + dotPath + " " + write("race.c", kRace)).exitCode, 1);
    std::string d = slurp(dotPath);
    EXPECT_EQ(d.rfind("digraph", 0), 0u) << d;
    EXPECT_EQ(count(d, "subgraph cluster_t"), 2u) << d;
    EXPECT_NE(d.find("subgraph cluster_t0"), std::string::npos) << d;
    EXPECT_NE(d.find("subgraph cluster_t1"), std::string::npos) << d;
    EXPECT_NE(d.find("label=race"), std::string::npos) << d;
    EXPECT_EQ(count(d, "{"), count(d, "}")) << "balanced braces\n" << d;
    // Every node an edge mentions is declared.
    std::regex edge(R"((n\d+) -> (n\d+))");
    for (auto it = std::sregex_iterator(d.begin(), d.end(), edge); it != std::sregex_iterator(); ++it) {
        EXPECT_NE(d.find((*it)[1].str() + " [label="), std::string::npos) << (*it)[0];
        EXPECT_NE(d.find((*it)[2].str() + " [label="), std::string::npos) << (*it)[0];
    }
}

TEST_F(Cli, DotThreeThreads) {
    std::string dotPath = path("lost.dot");
    EXPECT_EQ(run("check --dot=" + dotPath + " " + write("lost.c", kLostUpdate)).exitCode, 1);
    std::string d = slurp(dotPath);
    EXPECT_EQ(count(d, "subgraph cluster_t"), 3u) << d;
    EXPECT_EQ(count(d, "label=race"), 0u) << d;
    EXPECT_NE(d.find("label=rf"), std::string::npos) << d;
}

TEST_F(Cli, DotSafeIsAGraphWithoutCounterexample) {
    std::string dotPath = path("safe.dot");
    EXPECT_EQ(run("check --dot " + dotPath + " " + write("safe.c", kSafeLocked)).exitCode, 0);
    std::string d = slurp(dotPath);
    EXPECT_EQ(d.rfind("digraph", 0), 0u) << d;
    EXPECT_EQ(count(d, "cluster_t"), 0u) << d;
}

} // namespace
