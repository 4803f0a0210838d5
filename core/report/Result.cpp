#include "core/report/Result.h"

namespace skein::report {

std::string_view verdictName(Verdict v) {
    switch (v) {
    case Verdict::Safe: return "safe";
    case Verdict::Error: return "error";
    case Verdict::Bounded: return "bounded";
    }
    return "?";
}

std::string_view errorKindName(ErrorKind k) {
    switch (k) {
    case ErrorKind::Assertion: return "assertion";
    case ErrorKind::DataRace: return "data_race";
    case ErrorKind::Deadlock: return "deadlock";
    case ErrorKind::Memory: return "memory";
    case ErrorKind::Arithmetic: return "arithmetic";
    case ErrorKind::PthreadMisuse: return "pthread_misuse";
    case ErrorKind::StackOverflow: return "stack_overflow";
    case ErrorKind::Unsupported: return "unsupported";
    }
    return "?";
}

std::string_view edgeKindName(EdgeKind k) {
    switch (k) {
    case EdgeKind::ProgramOrder: return "po";
    case EdgeKind::ReadsFrom: return "rf";
    case EdgeKind::Coherence: return "co";
    case EdgeKind::Sync: return "sync";
    case EdgeKind::Race: return "race";
    }
    return "?";
}

std::string_view severityName(Severity s) {
    switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    }
    return "?";
}

Verdict computeVerdict(const CheckResult& r) {
    // An unsupported construct makes the check inconclusive, not a finding about the program.
    for (const ErrorReport& e : r.errors)
        if (e.kind != ErrorKind::Unsupported) return Verdict::Error;
    if (!r.errors.empty()) return Verdict::Bounded;
    if (!r.bounds.empty() || r.stoppedEarly) return Verdict::Bounded;
    return Verdict::Safe;
}

std::string formatLocation(const SourceLocation& l) {
    std::string s = l.file.empty() ? "<unknown>" : l.file;
    if (l.line) s += ":" + std::to_string(l.line);
    if (l.column) s += ":" + std::to_string(l.column);
    return s;
}

} // namespace skein::report
