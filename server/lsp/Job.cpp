// One check of one document version (Engine::runJob, on a Scheduler worker): compile → reuse a cached result
// of the same fingerprint → replay the previous counterexamples → explore. Every step that publishes first
// checks, under the engine's lock, that the document still wants this generation checked (Engine::current),
// and publishes with the lock held, so a stale result can never overwrite a newer one.
#include <cstdio>

#include "core/program/Fingerprint.h"
#include "server/lsp/Diagnostics.h"
#include "server/lsp/Engine.h"
#include "server/lsp/Text.h"
#include "server/lsp/Tokens.h"

namespace skein::lsp {
namespace {

constexpr size_t kMaxReplayed = 8; // previous counterexamples replayed before exploring

CheckRequest makeRequest(const Settings& s, const std::string& path, const std::string& text,
                         const std::atomic<bool>& cancelled) {
    CheckRequest req;
    req.path = path;
    req.contents = text;
    req.clangFlags = s.clangFlags;
    req.algorithm = s.algorithm;
    req.fallbackToDfs = s.algorithm == "qpor";
    explore::ExploreOptions& o = req.options;
    o.exec.unroll = s.unroll;
    o.exec.maxStepsPerThread = s.maxSteps;
    o.exec.maxEventsPerThread = s.maxEvents;
    o.exec.maxThreads = s.maxThreads;
    o.exec.nondetDomain = s.nondet;
    o.maxExecutions = s.maxExecutions;
    o.timeLimitSeconds = s.timeLimitSeconds;
    o.maxErrors = s.maxErrors;
    o.detectRaces = s.detectRaces;
    o.alt = s.alt;
    o.cancelled = [&cancelled] { return cancelled.load(std::memory_order_relaxed); };
    return req;
}

std::string hex(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string statsLine(const report::Stats& st) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%llu executions, %llu SSB, %llu blocked, %.1f s",
                  static_cast<unsigned long long>(st.executions), static_cast<unsigned long long>(st.ssb),
                  static_cast<unsigned long long>(st.blocked), st.elapsedMs / 1000.0);
    return buf;
}

// Errors are the same for display when kind and positions agree (a replayed error and the exploration's own).
bool sameError(const report::ErrorReport& a, const report::ErrorReport& b) {
    auto line = [](const std::optional<report::SourceLocation>& l) { return l ? l->line : 0u; };
    return a.kind == b.kind && a.location.line == b.location.line && a.location.column == b.location.column &&
           line(a.otherLocation) == line(b.otherLocation);
}

class JobObserver : public explore::Observer {
  public:
    JobObserver(std::function<void(const report::ErrorReport&)> onErr,
                std::function<void(const report::Stats&)> onProg)
        : onErr_(std::move(onErr)), onProg_(std::move(onProg)) {}
    void onError(const report::ErrorReport& e) override { onErr_(e); }
    void onProgress(const report::Stats& s) override { onProg_(s); }

  private:
    std::function<void(const report::ErrorReport&)> onErr_;
    std::function<void(const report::Stats&)> onProg_;
};

} // namespace

std::string Engine::optionsKey(const Settings& s) {
    json j = toJSON(s);
    for (const char* k : {"reportKinds", "debounceMs", "maxConcurrentExplorations", "replayFirst"})
        j.erase(k);
    return j.dump();
}

struct Engine::Job {
    using Errors = std::vector<std::pair<std::string, report::ErrorReport>>; // (counterexample id, error)

    Job(Engine& e, std::string u, uint64_t g, const std::atomic<bool>& c)
        : engine(e), uri(std::move(u)), generation(g), cancelled(c) {}
    Engine& engine;
    const std::string uri;
    const uint64_t generation;
    const std::atomic<bool>& cancelled;
    // Snapshot of the document when the job starts.
    int64_t version = 0;
    std::string text, path;
    Settings settings;
    // Counterexamples to replay first: the last complete result's, and those an unfinished check of a newer
    // version found before it was superseded or cancelled.
    std::vector<report::ErrorReport> previous;
    CheckRequest req;
    std::shared_ptr<Outcome> outcome = std::make_shared<Outcome>();
    uint32_t mainLine = 0;
    Errors replayed, found;

    // The document, if this job is still its current check (under engine.mutex_).
    Document* current() { return engine.current(uri, generation); }

    StatusParams status(DocumentState st) const {
        StatusParams s;
        s.uri = uri;
        s.version = version;
        s.state = st;
        s.algorithm = settings.algorithm;
        if (outcome->program) s.fingerprint = hex(outcome->fingerprint);
        return s;
    }

    std::string newId(Document& d) { return std::to_string(version) + "-" + std::to_string(++d.nextId); }

    uint32_t reportedCount() const {
        uint32_t n = 0;
        for (auto& f : found) n += kindReported(settings, f.second.kind);
        return n;
    }

    // Under engine.mutex_. Publishes the job's errors (the exploration's, then replayed ones it has not found
    // yet) plus `extra`; remembers their ids for skein/counterexample.
    void publish(Document& d, std::vector<Diagnostic> extra = {}) {
        LineIndex lines(text);
        DocumentView view{uri, path, lines, &outcome->variables};
        PublishDiagnosticsParams p{uri, version, {}};
        d.counterexamples.clear();
        auto add = [&](const std::string& id, const report::ErrorReport& e, bool isReplay) {
            d.counterexamples[id] = e;
            if (kindReported(settings, e.kind))
                p.diagnostics.push_back(errorDiagnostic(e, id, view, isReplay));
        };
        for (auto& [id, e] : found) add(id, e, false);
        for (auto& [id, e] : replayed) {
            bool seen = false;
            for (auto& f : found) seen |= sameError(f.second, e);
            if (!seen) add(id, e, true);
        }
        for (Diagnostic& x : extra) p.diagnostics.push_back(std::move(x));
        // The observer and the final result often carry the same set: publish a change only.
        json wire = toJSON(p);
        if (d.lastPublished == wire) return;
        d.lastPublished = std::move(wire);
        engine.client_.publishDiagnostics(p);
    }

    // Under engine.mutex_: publishes a complete or cancelled result and the final status.
    void publishResult(Document& d, DocumentState state, std::optional<int64_t> reusedFrom) {
        const report::CheckResult& r = *outcome->result;
        std::vector<Diagnostic> extra;
        LineIndex lines(text);
        if (!r.bounds.empty()) extra.push_back(boundedDiagnostic(r, mainLine, {uri, path, lines}));
        publish(d, std::move(extra));
        d.shown = outcome;
        StatusParams s = status(state);
        s.verdict = std::string(report::verdictName(r.verdict));
        s.stats = r.stats;
        s.errors = reportedCount();
        s.algorithm = r.algorithm;
        if (reusedFrom) {
            s.reused = true;
            s.reusedFrom = reusedFrom;
            s.message =
                "same program as version " + std::to_string(*reusedFrom) + ": result reused, not re-explored";
        } else {
            for (const report::BoundHit& b : r.bounds) s.message += (s.message.empty() ? "" : "; ") + b.what;
            for (const std::string& n : r.notes) s.message += (s.message.empty() ? "" : "; ") + n;
        }
        engine.setStatus(d, s);
        if (outcome->complete) {
            d.lastComplete = outcome;
            d.unfinishedErrors.clear();
            engine.cacheInsert(outcome);
        }
    }

    // Takes the snapshot; false when the job is already stale.
    bool start() {
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return false;
        version = d->version;
        text = d->text;
        path = d->path;
        settings = engine.settingsFor(*d);
        for (const report::ErrorReport& e : d->unfinishedErrors) previous.push_back(e);
        if (d->lastComplete && d->lastComplete->result)
            for (const report::ErrorReport& e : d->lastComplete->result->errors) {
                bool dup = false;
                for (auto& x : previous) dup |= sameError(x, e);
                if (!dup) previous.push_back(e);
            }
        req = makeRequest(settings, path, text, cancelled);
        outcome->version = version;
        outcome->text = text;
        outcome->optionsKey = optionsKey(settings);
        StatusParams s = status(DocumentState::Compiling);
        engine.setStatus(*d, s);
        return true;
    }

    void compileFailed(CheckFailure failure) {
        found.clear(); // a preview's errors, if any
        outcome->compileErrors = std::move(failure.diagnostics);
        outcome->complete = true;
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return;
        LineIndex lines(text);
        publish(*d, compileDiagnostics(outcome->compileErrors, {uri, path, lines}));
        d->shown = outcome;
        StatusParams s = status(DocumentState::Failed);
        s.message = outcome->compileErrors.empty()
                        ? "the program cannot be checked"
                        : "does not compile: " + outcome->compileErrors.front().message;
        engine.setStatus(*d, s);
    }

    // The same program (up to positions) with the same options was checked before: reuse its result with
    // every location mapped to this text. True when it did (or the job became stale meanwhile).
    bool reuseCached() {
        std::shared_ptr<const Outcome> same;
        {
            std::lock_guard lock(engine.mutex_);
            same = engine.cacheFind(outcome->fingerprint, outcome->optionsKey);
        }
        if (!same || !same->result || !same->program) return false;
        const program::Program& prog = *outcome->program;
        report::CheckResult r = *same->result;
        LocationMap(*same->program, prog).apply(r);
        outcome->result = std::move(r);
        outcome->complete = true;
        addTraceAccesses(outcome->variables, *outcome->result);
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return true;
        Errors preview = std::move(found);
        found.clear();
        for (const report::ErrorReport& e : outcome->result->errors) {
            auto p =
                std::find_if(preview.begin(), preview.end(), [&](auto& x) { return sameError(x.second, e); });
            found.push_back({p != preview.end() ? p->first : newId(*d), e});
        }
        publishResult(*d, DocumentState::Done, same->version);
        return true;
    }

    // Before compiling: when the text differs from the shown result's only in comments and whitespace,
    // publish that result's diagnostics moved token by token at once; the compiled check confirms
    // (reuseCached keeps these ids, so an identical set is not sent twice) or, if the program did change
    // after all (a header, a flag), replaces them.
    void previewMovedDiagnostics() {
        std::shared_ptr<const Outcome> shown;
        {
            std::lock_guard lock(engine.mutex_);
            Document* d = current();
            if (!d) return;
            shown = d->shown;
        }
        if (!shown || !shown->complete || !shown->result || shown->text == text ||
            shown->optionsKey != outcome->optionsKey)
            return;
        auto tokens = TokenMap::build(shown->text, text);
        if (!tokens) return;
        report::CheckResult r = *shown->result;
        LocationMap::fromTokens(r, path, *tokens).apply(r);
        uint32_t main = shown->program ? tokens->map(lsp::mainLine(*shown->program), 0).first : 0;
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return;
        for (const report::ErrorReport& e : r.errors) found.push_back({newId(*d), e});
        std::vector<Diagnostic> extra;
        LineIndex lines(text);
        if (!r.bounds.empty()) extra.push_back(boundedDiagnostic(r, main, {uri, path, lines}));
        publish(*d, std::move(extra));
    }

    // Cancelled while compiling. A superseded job says nothing (the newer version's job reports); a job
    // cancelled by skein.cancel says so, or the document would stay "compiling".
    void cancelledBeforeExploring() {
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return;
        StatusParams s = status(DocumentState::Cancelled);
        s.message = "cancelled before exploring";
        engine.setStatus(*d, s);
    }

    // Replays the previous counterexamples on the new program ("still fails" within milliseconds) and
    // publishes the errors they reach. False when the job became stale.
    bool replayPrevious() {
        if (!settings.replayFirst || previous.empty()) return true;
        {
            std::lock_guard lock(engine.mutex_);
            Document* d = current();
            if (!d) return false;
            engine.setStatus(*d, status(DocumentState::Replaying));
        }
        std::vector<report::ErrorReport> errs;
        double replayMs = 0;
        size_t n = 0;
        for (const report::ErrorReport& old : previous) {
            if (old.schedule.empty() || n++ >= kMaxReplayed || cancelled.load()) continue;
            ReplayResult rr = replay(*outcome->program, old.schedule, req.options);
            replayMs += rr.elapsedMs;
            for (report::ErrorReport& e : rr.errors) {
                bool dup = false;
                for (auto& x : errs) dup |= sameError(x, e);
                if (!dup) errs.push_back(std::move(e));
            }
        }
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return false;
        for (report::ErrorReport& e : errs) replayed.push_back({newId(*d), std::move(e)});
        publish(*d);
        StatusParams s = status(DocumentState::Replaying);
        s.errors = uint32_t(replayed.size());
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.2f ms", replayMs);
        s.message = replayed.empty()
                        ? "the previous counterexamples no longer fail (replayed in " + std::string(ms) + ")"
                        : "still fails: " + explainError(replayed.front().second, &outcome->variables) +
                              " (replayed in " + ms + ")";
        engine.setStatus(*d, s);
        return true;
    }

    // Explores, publishing each error as it is found and streaming statistics, then publishes the result.
    void explore(double compileMs) {
        Client& client = engine.client_;
        const bool progress = client.supportsProgress();
        const std::string token =
            "skein/" + uri + "#" + std::to_string(version) + "/" + std::to_string(generation);
        auto sendProgress = [&](WorkDoneProgress::Kind kind, std::string message,
                                std::optional<uint32_t> pct) {
            if (!progress) return;
            WorkDoneProgress p;
            p.kind = kind;
            p.message = std::move(message);
            p.percentage = pct;
            if (kind == WorkDoneProgress::Kind::Begin) {
                p.title = "Skein: exploring " + path.substr(path.rfind('/') + 1);
                p.cancellable = true; // window/workDoneProgress/cancel = skein.cancel
            }
            client.progress(token, p);
        };
        {
            std::lock_guard lock(engine.mutex_);
            Document* d = current();
            if (!d) return;
            engine.setStatus(*d, status(DocumentState::Exploring));
            if (progress) d->progressToken = token;
        }
        if (progress) client.createProgress(token);
        sendProgress(WorkDoneProgress::Kind::Begin, "compiled; exploring with " + settings.algorithm,
                     settings.maxExecutions ? std::optional<uint32_t>(0) : std::nullopt);
        JobObserver obs(
            [&](const report::ErrorReport& e) {
                std::lock_guard lock(engine.mutex_);
                for (auto& f : found)
                    if (sameError(f.second, e)) return; // the dfs fallback finds them again
                Document* d = current();
                if (!d) return;
                found.push_back({newId(*d), e});
                publish(*d);
            },
            [&](const report::Stats& st) {
                std::lock_guard lock(engine.mutex_);
                Document* d = current();
                if (!d) return;
                StatusParams s = status(DocumentState::Exploring);
                s.stats = st;
                s.errors = reportedCount();
                engine.setStatus(*d, s);
                // A percentage only where there is an estimate: the share of an execution budget.
                std::optional<uint32_t> pct;
                if (settings.maxExecutions)
                    pct = uint32_t(std::min<uint64_t>(100, (st.executions + st.blocked + st.bounded) * 100 /
                                                               settings.maxExecutions));
                sendProgress(WorkDoneProgress::Kind::Report, statsLine(st), pct);
            });
        auto explored = exploreProgram(*outcome->program, req, &obs);
        if (explored) explored->stats.compileMs = compileMs;

        std::lock_guard lock(engine.mutex_);
        if (!explored) { // an unknown algorithm (setAlgorithm validates; settings may name one)
            sendProgress(WorkDoneProgress::Kind::End, "failed", std::nullopt);
            if (Document* d = current()) {
                StatusParams s = status(DocumentState::Failed);
                const auto& diags = explored.error().diagnostics;
                s.message = diags.empty() ? "cannot check" : diags[0].message;
                engine.setStatus(*d, s);
            }
            return;
        }
        auto it = engine.docs_.find(uri);
        if (it != engine.docs_.end() && cancelled.load() && !explored->errors.empty())
            it->second.unfinishedErrors = explored->errors; // replayed first by the next check
        if (it == engine.docs_.end() || it->second.generation != generation) {
            sendProgress(WorkDoneProgress::Kind::End, "superseded by a newer version", std::nullopt);
            if (cancelled.load() && it != engine.docs_.end()) {
                StatusParams s = status(DocumentState::Cancelled);
                s.stats = explored->stats;
                s.message = "superseded by version " + std::to_string(it->second.version);
                client.status(s); // not stored: the document's status is the newer version's
            }
            return;
        }
        Document& d = it->second;
        // The final reports (with their final occurrence counts) replace the streamed ones; ids are kept.
        for (const report::ErrorReport& e : explored->errors) {
            auto f =
                std::find_if(found.begin(), found.end(), [&](auto& x) { return sameError(x.second, e); });
            if (f != found.end())
                f->second = e;
            else
                found.push_back({newId(d), e});
        }
        replayed.clear(); // the exploration's verdict replaces the replay's
        addTraceAccesses(outcome->variables, *explored);
        outcome->result = std::move(*explored);
        outcome->complete = !cancelled.load();
        publishResult(d, outcome->complete ? DocumentState::Done : DocumentState::Cancelled, std::nullopt);
        sendProgress(WorkDoneProgress::Kind::End,
                     outcome->complete ? statsLine(outcome->result->stats) : "cancelled", std::nullopt);
    }
};

void Engine::runJob(const std::string& uri, uint64_t generation, const std::atomic<bool>& cancelled) {
    Job job(*this, uri, generation, cancelled);
    if (!job.start()) return;
    job.previewMovedDiagnostics();
    auto prepared = prepare(job.req);
    if (!prepared) return job.compileFailed(std::move(prepared.error()));
    job.outcome->program = prepared->program;
    job.outcome->fingerprint = program::positionIndependentFingerprint(*prepared->program);
    job.mainLine = mainLine(*prepared->program);
    // Who touches which shared variable (one execution): for hovers and the diagnostics' sentences.
    job.outcome->variables = sharedVariables(*prepared->program, job.req.options.exec);
    if (job.reuseCached()) return;
    job.found.clear(); // a preview's errors: the program changed after all
    if (cancelled.load()) return job.cancelledBeforeExploring(); // superseded (silent) or skein.cancel
    if (!job.replayPrevious()) return;
    job.explore(prepared->compileMs);
}

} // namespace skein::lsp
