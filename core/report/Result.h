#pragma once
// What a check produces, as plain C++ data (DESIGN.md "core/report"). The server converts these to JSON,
// SARIF, DOT or LSP at its edge; nothing in core knows those formats.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skein::report {

struct SourceLocation {
    std::string file;
    uint32_t line = 0;   // 1-based; 0 = unknown
    uint32_t column = 0; // 1-based; 0 = unknown
    std::string function;
};

enum class Verdict { Safe, Error, Bounded };
std::string_view verdictName(Verdict v);

// The closed set of error kinds. Wire names are the strings of the --json output (docs/json-output.md).
enum class ErrorKind {
    Assertion,     // assert(), reach_error(), __VERIFIER_error()
    DataRace,      // two unordered conflicting accesses, at least one non-atomic
    Deadlock,      // every live thread blocked
    Memory,        // out of bounds, null, freed or dangling pointer, double/invalid free
    Arithmetic,    // division by zero
    PthreadMisuse, // unlock of a mutex not held, invalid join, ...
    StackOverflow, // call depth beyond the bound
    Unsupported,   // the program used a construct the executor does not model (the check is inconclusive)
};
std::string_view errorKindName(ErrorKind k);

// One line of a counterexample: a visible event (or the failing operation itself, last).
struct TraceStep {
    uint32_t step = 0;
    uint32_t thread = 0;
    SourceLocation location;
    std::string operation; // "read", "write", "lock", ...
    std::string variable;  // "x", "flag[1]", "heap#0.1[2]"; empty when not a memory/sync object
    std::optional<int64_t> value; // read/written value, sign-extended from the access size
    std::string detail;    // e.g. "creates thread 2", "assertion `c == 2` fails"
};

enum class EdgeKind { ProgramOrder, ReadsFrom, Coherence, Sync, Race };
std::string_view edgeKindName(EdgeKind k);

// A node is a view of one trace step: its location is trace[id].location, kept once (the JSON output repeats it in
// the node: docs/json-output.md). A counterexample is built once per distinct error, which on a small exploration is
// a good part of the run, and the copy was an eighth of building one (bench/README.md).
struct GraphNode {
    uint32_t id = 0;   // = index of the step in the trace
    uint32_t thread = 0;
    std::string label; // "W x = 1"
};
struct GraphEdge {
    uint32_t from = 0, to = 0;
    EdgeKind kind = EdgeKind::ProgramOrder;
};
// The counterexample's partial order (DESIGN.md "Counterexample").
struct PartialOrder {
    std::vector<GraphNode> nodes;
    std::vector<GraphEdge> edges;
};

// A decision that replays the execution exactly: run `thread`'s next event, taking `choice` where the event
// has several outcomes (a nondet value, which waiter a signal wakes).
struct Decision {
    uint32_t thread = 0;
    uint32_t choice = 0;
};

struct ErrorReport {
    ErrorKind kind = ErrorKind::Assertion;
    std::string message;
    SourceLocation location;
    uint32_t thread = 0;
    std::optional<SourceLocation> otherLocation; // data race: the other access
    std::optional<uint32_t> otherThread;
    std::vector<TraceStep> trace;
    PartialOrder graph;
    std::vector<Decision> schedule;
    uint64_t occurrences = 1; // executions in which this error (kind + location) was seen
};

struct Stats {
    uint64_t executions = 0;   // complete executions (ran to the end or stopped at an error)
    uint64_t blocked = 0;      // no thread enabled: deadlock, failed assume, blocked atomic section
    uint64_t bounded = 0;      // cut by a bound (loop unroll, steps per thread, threads)
    uint64_t ssb = 0;          // sleep-set blocked (explorers with sleep sets)
    uint64_t events = 0;       // visible events executed over the whole run
    uint64_t instructions = 0; // interpreted IR instructions over the whole run
    std::optional<uint64_t> mazurkiewiczTraces; // dfs only
    std::optional<uint64_t> finalStates;        // distinct final-state hashes (dfs)
    std::map<std::string, double> extra;        // per-algorithm counters and phase times
    double elapsedMs = 0;
    double compileMs = 0;
    // Explorations of the same program run (and discarded) in this process before the one reported, so that
    // elapsedMs is measured with warm caches (`skein check --warm-runs=N`, for benchmarks of sub-millisecond runs).
    uint32_t warmRuns = 0;
    // When > 1 (`skein check --timed-runs=N`): elapsedMs is the median of this many timed explorations, the rest of
    // the result the last one's.
    uint32_t timedRuns = 0;
    // `skein check --timed-runs=N --timed-against=ALGO`: the other explorer's median over the explorations timed in
    // turns with these (CheckRequest::timedAgainst), the median over the pairs of blocks of its block's median over
    // this explorer's, and how many executions it ran (complete, blocked, bounded).
    struct TimedAgainst {
        std::string algorithm;
        double elapsedMs = 0;
        double blockRatio = 0;
        uint64_t runs = 0;
        uint32_t timedRuns = 0;
    };
    std::optional<TimedAgainst> timedAgainst;
    uint64_t peakRssKb = 0;
};

// Why the verdict is Bounded, when it is.
struct BoundHit {
    std::string what; // "loop unroll bound 5 at foo.c:12", "nondet domain", "time budget"
};

struct Output {
    uint32_t thread = 0;
    std::string text;
};

struct CheckResult {
    Verdict verdict = Verdict::Safe;
    std::string algorithm;
    std::string file;
    Stats stats;
    std::vector<ErrorReport> errors;
    std::vector<BoundHit> bounds;
    std::vector<Output> output; // printf output of the first complete execution, in order
    bool stoppedEarly = false;  // --stop-on-first, the error limit, the execution or time budget
    // Set by an explorer that cannot handle this program (a limit of the algorithm, not of the program); the
    // result is then not a verdict. check() falls back to dfs when the algorithm was not chosen explicitly.
    std::optional<std::string> explorerLimit;
    std::vector<std::string> notes; // e.g. which explorer was used instead, and why
};

// Diagnostics of a file that did not compile (or could not be lowered).
enum class Severity { Error, Warning, Note };
std::string_view severityName(Severity s);
struct Diagnostic {
    SourceLocation location;
    Severity severity = Severity::Error;
    std::string message;
};

// The verdict the stats and errors imply (errors first, then bounds).
Verdict computeVerdict(const CheckResult& r);
std::string formatLocation(const SourceLocation& l); // "file:line:col"

} // namespace skein::report
