// The real `skein` binary over a pipe: exit codes, bad input, clang flags, the text output, large input and the
// fallback to dfs (the --json, --sarif and --dot formats: CliFormatsTest.cpp). Every test writes its own small C
// programs into a fresh temporary directory (mkdtemp) so that it does not depend on examples/.
#include <set>
#include <string>

#include "CliSupport.h"

namespace {

using namespace skein_cli_test;

// ---- exit codes ----

TEST_F(Cli, SafeExhaustiveIsZero) {
    Outcome r = run("check " + write("safe.c", kSafeLocked));
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

TEST_F(Cli, DataRaceIsOne) {
    Outcome r = run("check " + write("race.c", kRace));
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
}

TEST_F(Cli, AssertionFailureIsOne) {
    Outcome r = run("check " + write("lost.c", kLostUpdate));
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
}

// The text report's trace table keeps its columns apart when a file name or a variable is longer than the
// default column: each step's location is followed by spaces, then the operation.
TEST_F(Cli, TextTraceColumnsStayApartForLongNames) {
    Outcome r = run("check " + write("a_rather_long_file_name_for_the_table.c", kRace));
    ASSERT_EQ(r.exitCode, 1) << r.out << r.err;
    std::istringstream lines(r.out);
    std::string line;
    int steps = 0;
    const std::regex step(R"(^    \d+ +\d+ +a_rather_long_file_name_for_the_table\.c:\d+ {2,}\S)");
    while (std::getline(lines, line))
        if (line.find("a_rather_long_file_name_for_the_table.c:") != std::string::npos && line.rfind("    ", 0) == 0 &&
            line.find(" at ") == std::string::npos) {
            EXPECT_TRUE(std::regex_search(line, step)) << line;
            ++steps;
        }
    EXPECT_GT(steps, 2) << r.out;
}

TEST_F(Cli, DeadlockIsOne) {
    Outcome r = run("check --json " + write("abba.c", kDeadlock));
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    json j = parseJson(r);
    ASSERT_FALSE(j["errors"].empty());
    EXPECT_EQ(j["errors"][0]["kind"], "deadlock");
}

TEST_F(Cli, LoopUnrollBoundIsTwo) {
    std::string f = write("loop.c", kLoop);
    EXPECT_EQ(run("check " + f).exitCode, 0); // no bound: exhaustive
    Outcome r = run("check --unroll=2 --json " + f);
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    json j = parseJson(r);
    EXPECT_EQ(j["verdict"], "bounded");
    EXPECT_FALSE(j["bounds"].empty());
    EXPECT_GE(j["stats"]["bounded"].get<uint64_t>(), 1u);
}

TEST_F(Cli, ExecutionBudgetIsTwo) {
    std::string f = write("safe.c", kSafeLocked);
    Outcome r = run("check --max-executions=1 --json " + f);
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    json j = parseJson(r);
    EXPECT_EQ(j["verdict"], "bounded");
    EXPECT_EQ(j["stats"]["executions"], 1);
    EXPECT_EQ(j["stopped_early"], true);
}

// A benchmark option (--warm-runs, --timed-runs) must not change what is reported: `repeated` is the same exploration
// as `single` — counts, errors and their occurrences.
void expectSameExploration(const json& repeated, const json& single, const std::string& algo) {
    for (const char* k : {"executions", "blocked", "events", "instructions"})
        EXPECT_EQ(repeated["stats"][k], single["stats"][k]) << algo << " " << k;
    ASSERT_EQ(repeated["errors"].size(), single["errors"].size()) << algo;
    for (size_t i = 0; i < single["errors"].size(); ++i) {
        EXPECT_EQ(repeated["errors"][i]["message"], single["errors"][i]["message"]) << algo;
        EXPECT_EQ(repeated["errors"][i]["occurrences"], single["errors"][i]["occurrences"]) << algo;
    }
}

TEST_F(Cli, WarmRunsReportTheSameResultAndSayHowManyRan) {
    // --warm-runs explores first and discards those runs: the reported run is the same exploration, errors and
    // counters included, and stats.warm_runs says how many came before it (absent without the option).
    std::string f = write("lost.c", kLostUpdate);
    for (const char* algo : {"dfs", "qpor", "vhb"}) {
        json cold = parseJson(run(std::string("check --json --algo=") + algo + " " + f));
        Outcome r = run(std::string("check --json --warm-runs=3 --algo=") + algo + " " + f);
        EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
        json warm = parseJson(r);
        EXPECT_FALSE(cold["stats"].contains("warm_runs")) << algo;
        EXPECT_EQ(warm["stats"]["warm_runs"], 3) << algo;
        expectSameExploration(warm, cold, algo);
    }
}

TEST_F(Cli, TimedRunsReportTheMedianOfTheSameExploration) {
    // --timed-runs=N times N explorations and reports the median elapsed time; the result (counts, errors) is that
    // of the same exploration as a single run, and stats.timed_runs says how many were timed.
    std::string f = write("lost.c", kLostUpdate);
    for (const char* algo : {"dfs", "qpor"}) {
        json single = parseJson(run(std::string("check --json --algo=") + algo + " " + f));
        Outcome r = run(std::string("check --json --warm-runs=2 --timed-runs=5 --algo=") + algo + " " + f);
        EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
        json timed = parseJson(r);
        EXPECT_FALSE(single["stats"].contains("timed_runs")) << algo;
        EXPECT_EQ(timed["stats"]["timed_runs"], 5) << algo;
        EXPECT_EQ(timed["stats"]["warm_runs"], 2) << algo;
        EXPECT_GT(timed["stats"]["elapsed_ms"].get<double>(), 0) << algo;
        expectSameExploration(timed, single, algo);
    }
    EXPECT_EQ(run("check --timed-runs=0 x.c").exitCode, 3);
    EXPECT_EQ(run("check --timed-runs=100001 x.c").exitCode, 3);
}

TEST_F(Cli, TimedAgainstTimesTheOtherExplorerInTheSameProcess) {
    // --timed-against=ALGO times as many of ALGO's explorations, in turns with the checked explorer's: the result is
    // still the checked explorer's own exploration, and stats.timed_against holds ALGO's median, its executions and
    // the median ratio over the pairs of blocks.
    std::string f = write("lost.c", kLostUpdate);
    json single = parseJson(run("check --json --algo=qpor " + f));
    json dfs = parseJson(run("check --json --algo=dfs " + f));
    Outcome r = run("check --json --algo=qpor --timed-against=dfs --warm-runs=1 --timed-runs=25 " + f);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    json timed = parseJson(r);
    expectSameExploration(timed, single, "qpor");
    ASSERT_TRUE(timed["stats"].contains("timed_against")) << r.out;
    const json& a = timed["stats"]["timed_against"];
    EXPECT_EQ(a["algorithm"], "dfs");
    EXPECT_EQ(a["timed_runs"], 24); // the checked explorer's 25 include its reported run, timed alone
    const json& d = dfs["stats"];
    EXPECT_EQ(a["runs"], d["executions"].get<uint64_t>() + d["blocked"].get<uint64_t>() + d["bounded"].get<uint64_t>());
    EXPECT_GT(a["elapsed_ms"].get<double>(), 0);
    EXPECT_GT(a["block_ratio"].get<double>(), 0);
    EXPECT_EQ(timed["stats"]["timed_runs"], 25);
    // Without it, no such field; without --timed-runs, or with an unknown explorer, a bad input.
    EXPECT_FALSE(single["stats"].contains("timed_against"));
    Outcome alone = run("check --timed-against=dfs " + f);
    EXPECT_EQ(alone.exitCode, 3);
    EXPECT_NE(alone.err.find("--timed-against needs --timed-runs=N with N > 1"), std::string::npos) << alone.err;
    Outcome unknown = run("check --timed-against=bfs --timed-runs=3 " + f);
    EXPECT_EQ(unknown.exitCode, 3);
    EXPECT_NE(unknown.err.find("unknown algorithm `bfs` in --timed-against=bfs"), std::string::npos) << unknown.err;
}

TEST_F(Cli, ErrorFoundWithinBudgetIsStillOne) {
    // An error outranks the bound: the verdict is "error" even though the budget stopped the exploration.
    Outcome r = run("check --max-executions=1 " + write("race.c", kRace));
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
}

// ---- bad input: exit code 3 ----

TEST(CliBadInput, UnknownOption) {
    Outcome r = run("check --frobnicate x.c");
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("--frobnicate"), std::string::npos) << r.err;
}
TEST(CliBadInput, MissingFile) {
    Outcome r = run("check /nonexistent/file.c");
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("/nonexistent/file.c"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}
TEST(CliBadInput, BadOptionValues) {
    EXPECT_EQ(run("check --max-executions=abc x.c").exitCode, 3);
    EXPECT_EQ(run("check --unroll=-1 x.c").exitCode, 3);
    EXPECT_EQ(run("check --nondet=3..1 x.c").exitCode, 3);
    EXPECT_EQ(run("check --algo=no-such-explorer x.c").exitCode, 3);
    EXPECT_EQ(run("check --sarif").exitCode, 3);
    EXPECT_EQ(run("check --warm-runs=100001 x.c").exitCode, 3);
    EXPECT_EQ(run("check --warm-runs=-1 x.c").exitCode, 3);
    EXPECT_EQ(run("check a.c b.c").exitCode, 3);
    const Outcome r = run("check --qpor-resources=bytes x.c");
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("expected segments or words"), std::string::npos) << r.err;
}
TEST(CliBadInput, NoCommandOrUnknownCommand) {
    EXPECT_EQ(run("").exitCode, 3);
    EXPECT_EQ(run("frobnicate").exitCode, 3);
    EXPECT_EQ(run("check").exitCode, 3); // no input file
}
TEST(CliHelp, HelpAndVersionAreZero) {
    Outcome h = run("check --help");
    EXPECT_EQ(h.exitCode, 0);
    EXPECT_NE(h.out.find("exit codes"), std::string::npos);
    EXPECT_EQ(run("help").exitCode, 0);
    EXPECT_EQ(run("--version").exitCode, 0);
}

TEST_F(Cli, SyntaxErrorIsThreeWithLocation) {
    std::string f = write("syntax.c", "int main() {\n  int x = ;\n  return 0;\n}\n");
    Outcome r = run("check " + f);
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("syntax.c:2:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
}

TEST_F(Cli, NoMainIsThree) {
    Outcome r = run("check " + write("nomain.c", "int foo(void) { return 0; }\n"));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("main"), std::string::npos) << r.err;
}

TEST_F(Cli, EmptyFileIsThree) {
    Outcome r = run("check " + write("empty.c", ""));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_FALSE(r.err.empty());
}

TEST_F(Cli, InlineAsmIsUnsupported) {
    std::string f = write("asm.c", "int main() {\n  int x = 1;\n  __asm__ volatile(\"nop\");\n  return x - 1;\n}\n");
    Outcome r = run("check " + f);
    EXPECT_EQ(r.exitCode, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("unsupported:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("asm.c:3"), std::string::npos) << r.err;
}

TEST_F(Cli, UnknownExternalFunctionIsUnsupported) {
    std::string f = write("ext.c", "int ext(int);\nint main() {\n  return ext(3);\n}\n");
    Outcome r = run("check " + f);
    EXPECT_EQ(r.exitCode, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("unsupported:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ext.c:3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ext"), std::string::npos) << r.err;
    // --json: still exit 3, and the error is there with kind "unsupported" and a location.
    Outcome j = run("check --json " + f);
    EXPECT_EQ(j.exitCode, 3);
    json doc = parseJson(j);
    ASSERT_FALSE(doc["errors"].empty());
    EXPECT_EQ(doc["errors"][0]["kind"], "unsupported");
    EXPECT_EQ(doc["errors"][0]["location"]["line"], 3);
    EXPECT_EQ(doc["errors"][0]["message"].get<std::string>().rfind("unsupported:", 0), 0u);
}

// ---- clang flags ----

TEST_F(Cli, DefineFlagsReachClang) {
    std::string f = write("needs_n.c", kNeedsN);
    EXPECT_EQ(run("check -DN=4 " + f).exitCode, 1);
    EXPECT_EQ(run("check -DN=3 " + f).exitCode, 0);
    EXPECT_EQ(run("check " + f + " -DN=4").exitCode, 1);        // after the file
    EXPECT_EQ(run("check -D N=4 " + f).exitCode, 1);            // separate value
    EXPECT_EQ(run("check " + f + " -- -DN=4").exitCode, 1);     // after --
    EXPECT_EQ(run("check -DN=4 -UN -DN=2 " + f).exitCode, 0);   // in order
    Outcome undefined = run("check " + f);                          // N undefined: compile error
    EXPECT_EQ(undefined.exitCode, 3);
    EXPECT_NE(undefined.err.find("needs_n.c:3"), std::string::npos) << undefined.err;
}

TEST_F(Cli, IncludeFlagReachesClang) {
    write("inc/config.h", "#define LIMIT 4\n");
    std::string f = write("uses_inc.c", "#include \"config.h\"\n#include <assert.h>\nint main() { assert(LIMIT != 4); return 0; }\n");
    EXPECT_EQ(run("check -I" + path("inc") + " " + f).exitCode, 1);
    EXPECT_EQ(run("check " + f).exitCode, 3);
}

// ---- text output ----

TEST_F(Cli, TextHasVerdictAndOneTraceLinePerEvent) {
    std::string f = write("lost.c", kLostUpdate);
    Outcome t = run("check " + f);
    Outcome j = run("check --json " + f);
    ASSERT_EQ(t.exitCode, 1);
    json doc = parseJson(j);
    EXPECT_NE(t.out.find("verdict: ERROR"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("[assertion]"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("lost.c:15"), std::string::npos) << t.out;
    // The trace table: a header line, then one line per step, up to the blank line.
    std::istringstream in(t.out);
    std::vector<std::string> steps;
    bool inTrace = false;
    for (std::string line; std::getline(in, line);) {
        if (line.find("step") != std::string::npos && line.find("operation") != std::string::npos) {
            inTrace = true;
            continue;
        }
        if (inTrace && line.empty()) break;
        if (inTrace) steps.push_back(line);
    }
    const json& trace = doc["errors"][0]["trace"];
    ASSERT_EQ(steps.size(), trace.size()) << t.out;
    std::regex stepLine(R"(^\s+(\d+)\s+(\d+)\s+lost\.c:(\d+)\s+(\w+).*)");
    for (size_t i = 0; i < steps.size(); ++i) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(steps[i], m, stepLine)) << steps[i];
        EXPECT_EQ(std::stoull(m[1]), trace[i]["step"].get<uint64_t>());
        EXPECT_EQ(std::stoull(m[2]), trace[i]["thread"].get<uint64_t>());
        EXPECT_EQ(std::stoull(m[3]), trace[i]["location"]["line"].get<uint64_t>());
        EXPECT_EQ(m[4].str(), trace[i]["operation"].get<std::string>());
    }
    EXPECT_NE(t.out.find("statistics:"), std::string::npos);
}

TEST_F(Cli, TextVerdictLines) {
    EXPECT_NE(run("check " + write("safe.c", kSafeLocked)).out.find("verdict: SAFE"), std::string::npos);
    Outcome b = run("check --unroll=2 " + write("loop.c", kLoop));
    EXPECT_NE(b.out.find("verdict: BOUNDED"), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("--unroll"), std::string::npos) << b.out;
    Outcome r = run("check " + write("race.c", kRace));
    EXPECT_NE(r.out.find("verdict: ERROR"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[data_race]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("other access at"), std::string::npos) << r.out;
}

// Known bug (reported): a negative int is shown as its zero-extended 32-bit pattern (x = -1 reads as 4294967295)
// in the text trace, the JSON trace and the SARIF messages. Enable once values are sign-extended per their type.
TEST_F(Cli, NegativeValuesAreSigned) {
    std::string f = write("neg.c", R"(#include <pthread.h>
#include <assert.h>
int x;
void *t(void *a) { x = -1; return 0; }
int main() {
  pthread_t a;
  pthread_create(&a, 0, t, 0);
  pthread_join(a, 0);
  assert(x == 0);
  return 0;
}
)");
    json j = parseJson(run("check --json " + f));
    bool sawMinusOne = false;
    for (const json& st : j["errors"][0]["trace"])
        if (st.contains("value")) sawMinusOne |= st["value"].is_number_integer() && st["value"].get<int64_t>() == -1;
    EXPECT_TRUE(sawMinusOne) << j["errors"][0]["trace"];
}

// ---- large input ----

TEST_F(Cli, TenMegabyteCommentIsHandled) {
    std::string text = "/*\n";
    std::string line(99, 'x');
    line += '\n';
    text.reserve(10'100'000);
    for (int i = 0; i < 100'000; ++i) text += line;
    text += "*/\n#include <assert.h>\nint main() { int a = 2; assert(a == 2); return 0; }\n";
    ASSERT_GE(text.size(), 10'000'000u);
    Outcome r = run("check " + write("big_comment.c", text));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_LT(r.ms, 30'000);
}

TEST_F(Cli, TenMegabyteArrayInitialiserIsHandled) {
    std::string text = "#include <assert.h>\nstatic const int tbl[] = {\n";
    size_t n = 0;
    while (text.size() < 10u * 1024 * 1024) {
        text += std::to_string(n % 1000) + (n % 16 == 15 ? ",\n" : ", ");
        ++n;
    }
    text += "};\nint main() {\n  assert(tbl[1] == 1);\n  assert(tbl[" + std::to_string(n - 1) + "] == " +
            std::to_string((n - 1) % 1000) + ");\n  assert(sizeof(tbl) / sizeof(tbl[0]) == " + std::to_string(n) +
            ");\n  return 0;\n}\n";
    Outcome r = run("check --json " + write("big_array.c", text));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_LT(r.ms, 60'000);
    json j = parseJson(r);
    EXPECT_EQ(j["verdict"], "safe");
}

} // namespace

namespace {

// qpor is the default; on a program it cannot explore it falls back to dfs and says so; chosen explicitly, it
// reports its limit as an inconclusive result instead.
TEST_F(Cli, DefaultExplorerFallsBackToDfsWithANote) {
    // An SV-COMP atomic section with more runs than qpor takes as outcomes of one action (100 x 100 nondet values).
    std::string f = write("many_runs.c", R"(#include <pthread.h>
int __VERIFIER_nondet_int(void);
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int x;
void *t(void *a) {
    __VERIFIER_atomic_begin(); x = __VERIFIER_nondet_int() + __VERIFIER_nondet_int(); __VERIFIER_atomic_end();
    return 0;
}
int main() {
    pthread_t a;
    pthread_create(&a, 0, t, 0);
    pthread_join(a, 0);
    return 0;
}
)");
    json j = parseJson(run("check --json --no-race-detection --nondet=0..99 " + f));
    EXPECT_EQ(j["algorithm"], "dfs");
    ASSERT_EQ(j["notes"].size(), 1u);
    EXPECT_NE(j["notes"][0].get<std::string>().find("dfs was used instead"), std::string::npos);
    EXPECT_EQ(j["verdict"], "bounded"); // the nondet domain {0,1} samples int
    Outcome explicitQpor = run("check --json --algo=qpor --no-race-detection --nondet=0..99 " + f);
    EXPECT_EQ(explicitQpor.exitCode, 2);
    EXPECT_EQ(parseJson(explicitQpor)["verdict"], "bounded");
}

} // namespace
