#include "server/lsp/Diagnostics.h"

#include <algorithm>
#include <filesystem>

namespace skein::lsp {
namespace {

using report::ErrorKind;
using report::TraceStep;

bool isRead(const TraceStep& s) {
    return (s.operation == "read" || s.operation == "rmw") && !s.variable.empty();
}
bool isWrite(const TraceStep& s) {
    return (s.operation == "write" || s.operation == "rmw" || s.operation == "copy" ||
            s.operation == "free") &&
           !s.variable.empty();
}

std::string lineOf(const TraceStep& s) {
    return "line " + std::to_string(s.location.line);
}
std::string threadName(uint32_t t) {
    return t == 0 ? "the main thread" : "thread " + std::to_string(t);
}
std::string threadPossessive(uint32_t t) {
    return t == 0 ? "the main thread's" : "thread " + std::to_string(t) + "'s";
}

// The trace index of the write a read got its value from (the partial order's rf edge), or -1.
int sourceWrite(const report::ErrorReport& e, size_t readIndex) {
    for (const report::GraphEdge& edge : e.graph.edges)
        if (edge.kind == report::EdgeKind::ReadsFrom && edge.to == readIndex) return int(edge.from);
    return -1;
}

// What an assertion's failure hinges on: the last shared read of the failing thread, where its value came
// from, and, when that value's writer had itself read the variable stale, the write it overlooked (a lost
// update).
struct AssertionStory {
    int read = -1, source = -1, staleRead = -1, missedWrite = -1, laterWrite = -1;
    // A write of another thread that the read came too early for, known from the program's facts rather than
    // the trace (the counterexample ends at the failure, before that write).
    std::optional<VariableAccess> tooLate;
};

AssertionStory assertionStory(const report::ErrorReport& e, const VariableFacts* facts) {
    AssertionStory s;
    const auto& tr = e.trace;
    size_t end = tr.empty() ? 0 : tr.size() - 1; // the last step is the failing operation
    for (size_t i = end; i-- > 0;)
        if (tr[i].thread == e.thread && isRead(tr[i])) {
            s.read = int(i);
            break;
        }
    if (s.read < 0) return s;
    const std::string var = tr[size_t(s.read)].variable;
    s.source = sourceWrite(e, size_t(s.read));
    if (s.source < 0 || tr[size_t(s.source)].thread == e.thread) {
        // Read the initial value (or its own write): another thread's write came too late.
        for (size_t i = size_t(s.read) + 1; i < tr.size(); ++i)
            if (tr[i].thread != e.thread && isWrite(tr[i]) && tr[i].variable == var) {
                s.laterWrite = int(i);
                break;
            }
        // A scalar that kept its initial value: which other thread writes it.
        if (s.laterWrite < 0 && s.source < 0 && facts && var.find('[') == std::string::npos)
            if (auto it = facts->find(var); it != facts->end())
                for (const VariableAccess& a : it->second)
                    if (a.write && a.thread != e.thread && a.line) {
                        s.tooLate = a;
                        break;
                    }
        return s;
    }
    // The writer's own earlier read of the variable, and a write by a third thread between that read and the
    // source write: the writer computed from a stale value.
    const uint32_t writer = tr[size_t(s.source)].thread;
    for (int i = s.source; i-- > 0;)
        if (tr[size_t(i)].thread == writer && isRead(tr[size_t(i)]) && tr[size_t(i)].variable == var) {
            s.staleRead = i;
            break;
        }
    if (s.staleRead >= 0)
        for (int i = s.staleRead + 1; i < s.source; ++i)
            if (tr[size_t(i)].thread != writer && isWrite(tr[size_t(i)]) && tr[size_t(i)].variable == var) {
                s.missedWrite = i;
                break;
            }
    return s;
}

// The free() step of the object a memory error names (`...` in its message), or -1.
int freeStep(const report::ErrorReport& e) {
    auto open = e.message.find('`'), close = e.message.rfind('`');
    if (open == std::string::npos || close <= open) return -1;
    std::string object = e.message.substr(open + 1, close - open - 1);
    for (size_t i = e.trace.size(); i-- > 0;)
        if (e.trace[i].operation == "free" && e.trace[i].variable == object) return int(i);
    return -1;
}

std::string valueText(const TraceStep& s) {
    return s.value ? " = " + std::to_string(*s.value) : "";
}

std::string assertionHead(const report::ErrorReport& e) {
    const std::string& m = e.message;
    if (m.rfind("assertion `", 0) == 0) {
        auto close = m.rfind('`');
        if (close != std::string::npos && close > 10) return m.substr(0, close + 1) + " fails";
    }
    if (m.find("reach_error") != std::string::npos) return "reach_error() is reached";
    if (m.find("__VERIFIER_assert") != std::string::npos) return "__VERIFIER_assert fails";
    return m;
}

Location locationOf(const report::SourceLocation& l, const DocumentView& doc) {
    if (inDocument(l, doc)) return {doc.uri, doc.lines.statementRange(l.line, l.column)};
    return {pathToUri(resolvePath(l.file)), Range{{l.line ? l.line - 1 : 0, l.column ? l.column - 1 : 0},
                                                  {l.line ? l.line - 1 : 0, l.column ? l.column : 1}}};
}

std::string withFile(const std::string& msg, const report::SourceLocation& l, const DocumentView& doc) {
    if (l.file.empty() || inDocument(l, doc)) return msg;
    return l.file + ":" + std::to_string(l.line) + ": " + msg;
}

} // namespace

std::string resolvePath(const std::string& file) {
    // Debug info names a file relative to the compilation directory, the server's working directory.
    std::filesystem::path p(file);
    if (p.is_relative()) {
        std::error_code ec;
        auto cwd = std::filesystem::current_path(ec);
        if (!ec) p = cwd / p;
    }
    return p.lexically_normal().string();
}

bool inDocument(const report::SourceLocation& l, const DocumentView& doc) {
    if (l.file.empty()) return false;
    if (l.file == doc.path) return true;
    return resolvePath(l.file) == std::filesystem::path(doc.path).lexically_normal().string();
}

bool kindReported(const Settings& s, report::ErrorKind k) {
    if (s.reportKinds.empty()) return true;
    return std::find(s.reportKinds.begin(), s.reportKinds.end(), std::string(report::errorKindName(k))) !=
           s.reportKinds.end();
}

std::string explainError(const report::ErrorReport& e, const VariableFacts* facts) {
    switch (e.kind) {
    case ErrorKind::Assertion: {
        std::string head = assertionHead(e);
        AssertionStory s = assertionStory(e, facts);
        const auto& tr = e.trace;
        if (s.read < 0) return head + " in " + threadName(e.thread);
        const TraceStep& r = tr[size_t(s.read)];
        if (s.missedWrite >= 0) {
            const TraceStep& stale = tr[size_t(s.staleRead)];
            const TraceStep& missed = tr[size_t(s.missedWrite)];
            return head + " when " + threadName(stale.thread) + " reads `" + r.variable + "` at " +
                   lineOf(stale) + " before " + threadPossessive(missed.thread) + " write at " +
                   lineOf(missed) + ", so that write is lost (" + threadName(e.thread) + " then reads `" +
                   r.variable + "`" + valueText(r) + ")";
        }
        if (s.laterWrite >= 0) {
            const TraceStep& w = tr[size_t(s.laterWrite)];
            return head + " when " + threadName(e.thread) + " reads `" + r.variable + "`" + valueText(r) +
                   " at " + lineOf(r) + " before " + threadPossessive(w.thread) + " write at " + lineOf(w);
        }
        if (s.tooLate)
            return head + " when " + threadName(e.thread) + " reads `" + r.variable + "`" + valueText(r) +
                   " at " + lineOf(r) + " before " + threadPossessive(s.tooLate->thread) + " write at line " +
                   std::to_string(s.tooLate->line);
        if (s.source >= 0) {
            const TraceStep& w = tr[size_t(s.source)];
            return head + " when " + threadName(e.thread) + " reads `" + r.variable + "`" + valueText(r) +
                   ", written by " + threadName(w.thread) + " at " + lineOf(w);
        }
        return head + " when " + threadName(e.thread) + " reads `" + r.variable + "`" + valueText(r) +
               " at " + lineOf(r);
    }
    case ErrorKind::Memory: {
        // "use after free (`heap@29#1`)": say who freed it, and where.
        std::string m = e.message + " in " + threadName(e.thread);
        if (int f = freeStep(e); f >= 0)
            m += ", after " + threadName(e.trace[size_t(f)].thread) + " freed it at " +
                 lineOf(e.trace[size_t(f)]);
        return m;
    }
    case ErrorKind::DataRace:
    case ErrorKind::Deadlock:
    default: {
        std::string m = e.message;
        if (e.kind != ErrorKind::DataRace && e.kind != ErrorKind::Deadlock && e.thread != 0)
            m += " (in " + threadName(e.thread) + ")";
        return m;
    }
    }
}

Diagnostic errorDiagnostic(const report::ErrorReport& e, const std::string& id, const DocumentView& doc,
                           bool replayed) {
    Diagnostic d;
    d.code = std::string(report::errorKindName(e.kind));
    d.severity = e.kind == ErrorKind::Unsupported ? DiagnosticSeverity::Warning : DiagnosticSeverity::Error;
    d.message = explainError(e, doc.facts);
    if (replayed) d.message += " [replaying the previous counterexample; exploring…]";
    // Where: the error's location when it is in this document, else the last trace step that is.
    report::SourceLocation at = e.location;
    if (!inDocument(at, doc)) {
        for (auto it = e.trace.rbegin(); it != e.trace.rend(); ++it)
            if (inDocument(it->location, doc) && it->location.line) {
                at = it->location;
                break;
            }
        if (!inDocument(at, doc)) at = {doc.path, 1, 0, ""};
        d.message = withFile(d.message, e.location, doc);
    }
    d.range = doc.lines.statementRange(at.line, at.column);
    // `evenHere`: also when it is the diagnostic's own place (a race between two threads running the same
    // statement: the other access is another thread's, at the same line).
    auto related = [&](const report::SourceLocation& l, std::string msg, bool evenHere = false) {
        if (l.line == 0) return;
        Location where = locationOf(l, doc);
        if (!evenHere && where.uri == doc.uri && where.range.start == d.range.start)
            return; // the diagnostic's own place
        d.relatedInformation.push_back({std::move(where), std::move(msg)});
    };
    switch (e.kind) {
    case ErrorKind::DataRace:
        if (e.otherLocation) {
            std::string var;
            for (const TraceStep& s : e.trace)
                if (!s.variable.empty() && s.detail == "racing access") var = s.variable;
            std::string what = "the other access";
            for (const TraceStep& s : e.trace)
                if (s.detail == "racing access" && s.thread == e.otherThread.value_or(~0u))
                    what = threadPossessive(s.thread) + " " +
                           (s.operation == "free" ? "free"
                            : isWrite(s)          ? "write"
                                                  : "read") +
                           (var.empty() ? "" : " of `" + var + "`");
            related(*e.otherLocation, what + ", unordered with this access", /*evenHere=*/true);
        }
        break;
    case ErrorKind::Deadlock:
        for (const TraceStep& s : e.trace)
            // (A thread that spins for good on a failed attempt or a read is blocked too: TraceBuilder.cpp.)
            if ((s.operation == "blocked" || s.operation == "spins") &&
                !(s.location.line == e.location.line && s.thread == e.thread &&
                                              s.location.file == e.location.file))
                // (Even at the diagnostic's own statement: another thread blocked or spinning in one helper.)
                related(s.location, threadName(s.thread) + " " + s.detail, /*evenHere=*/true);
        for (const TraceStep& s : e.trace)
            if ((s.operation == "lock" || s.operation == "sem_wait") && !s.variable.empty()) {
                // The acquisitions that the blocked threads wait for (a semaphore's units too).
                bool awaited = false;
                for (const TraceStep& b : e.trace)
                    if (b.operation == "blocked" && b.variable == s.variable && b.thread != s.thread)
                        awaited = true;
                if (awaited)
                    related(s.location, threadName(s.thread) + " takes " +
                                            (s.operation == "lock" ? "" : "a unit of ") + "`" + s.variable + "` here");
            }
        // An initialisation of a blocked thread's object after another thread's operation on it (a late sem_init
        // that loses a post's unit, a barrier_init that forgets an arrival): the step that undid it.
        for (size_t i = 0; i < e.trace.size(); ++i) {
            const TraceStep& s = e.trace[i];
            const std::string_view op = s.operation;
            if (op.size() < 5 || op.substr(op.size() - 5) != "_init" || s.variable.empty()) continue;
            bool awaited = false;
            for (const TraceStep& b : e.trace)
                awaited = awaited || (b.operation == "blocked" && b.variable == s.variable);
            const TraceStep* before = nullptr; // the last other thread's operation on it before the initialisation
            for (size_t j = 0; j < i; ++j)
                if (e.trace[j].thread != s.thread && e.trace[j].variable == s.variable) before = &e.trace[j];
            if (awaited && before)
                related(s.location, threadName(s.thread) + " initialises `" + s.variable + "` here, after " +
                                        threadPossessive(before->thread) + " " + before->operation +
                                        " on it, which it undoes");
        }
        break;
    case ErrorKind::Assertion: {
        AssertionStory s = assertionStory(e, doc.facts);
        const auto& tr = e.trace;
        if (s.tooLate)
            related({doc.path, s.tooLate->line, 0, ""},
                    threadPossessive(s.tooLate->thread) + " write, which comes too late");
        if (s.read >= 0) related(tr[size_t(s.read)].location, "the read the assertion depends on");
        if (s.source >= 0) related(tr[size_t(s.source)].location, "the write it reads from");
        if (s.staleRead >= 0) related(tr[size_t(s.staleRead)].location, "this read sees a stale value");
        if (s.missedWrite >= 0) related(tr[size_t(s.missedWrite)].location, "the write that is lost");
        if (s.laterWrite >= 0) related(tr[size_t(s.laterWrite)].location, "the write that comes too late");
        break;
    }
    case ErrorKind::Memory:
        if (int f = freeStep(e); f >= 0) related(e.trace[size_t(f)].location, "freed here");
        break;
    default:
        break;
    }
    json data = {{"counterexample", id},
                 {"kind", report::errorKindName(e.kind)},
                 {"thread", e.thread},
                 {"occurrences", e.occurrences},
                 {"replayed", replayed}};
    d.data = std::move(data);
    return d;
}

std::vector<Diagnostic> compileDiagnostics(const std::vector<report::Diagnostic>& diags,
                                           const DocumentView& doc) {
    std::vector<Diagnostic> out;
    for (const report::Diagnostic& in : diags) {
        Diagnostic d;
        d.code = "compile";
        d.source = "skein (clang)";
        d.severity = in.severity == report::Severity::Error     ? DiagnosticSeverity::Error
                     : in.severity == report::Severity::Warning ? DiagnosticSeverity::Warning
                                                                : DiagnosticSeverity::Information;
        d.message = withFile(in.message, in.location, doc);
        if (inDocument(in.location, doc) || in.location.file.empty())
            d.range = doc.lines.statementRange(in.location.line ? in.location.line : 1, in.location.column);
        else
            d.range = doc.lines.statementRange(1, 0);
        out.push_back(std::move(d));
    }
    return out;
}

Diagnostic boundedDiagnostic(const report::CheckResult& r, uint32_t line1, const DocumentView& doc) {
    Diagnostic d;
    d.code = "bounded";
    d.severity = DiagnosticSeverity::Information;
    std::string why;
    for (const report::BoundHit& b : r.bounds) why += (why.empty() ? "" : "; ") + b.what;
    d.message = "the exploration was not exhaustive (" +
                (why.empty() ? std::string("a bound was hit") : why) +
                "): " + std::to_string(r.stats.executions) + " executions explored" +
                (r.errors.empty() ? ", no error among them" : "") + "; other behaviours were not checked";
    d.range = doc.lines.statementRange(line1 ? line1 : 1, 0);
    return d;
}

} // namespace skein::lsp
