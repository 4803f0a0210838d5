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
    ~Job() {
        std::lock_guard lock(engine.mutex_);
        finished();
    }
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;
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
    Errors replayed, found; // written under engine.mutex_ (Engine::adoptCommentEdit publishes them)
    // What is published (under engine.mutex_): the document version and text this job now checks. They are
    // `version` and `text` unless comment/whitespace-only edits were adopted while it ran (adoptCommentEdit);
    // `moved` then maps positions of `text` to `shownText`, token by token.
    int64_t shownVersion = 0;
    std::string shownText;
    std::optional<TokenMap> moved;
    bool publishedAny = false; // this job has published diagnostics

    // The document, if this job is still its current check (under engine.mutex_).
    Document* current() { return engine.current(uri, generation); }

    // Under engine.mutex_: the result is (about to be) published, so a later comment edit starts a new check
    // (which finds this result in the cache) instead of being adopted.
    void finished() {
        auto it = engine.docs_.find(uri);
        if (it != engine.docs_.end() && it->second.running == this) it->second.running = nullptr;
    }

    // Positions of the checked text moved to the shown text (identity unless an edit was adopted).
    void toShown(report::CheckResult& r) const {
        if (moved) LocationMap::fromTokens(r, path, *moved).apply(r);
    }
    uint32_t shownLine(uint32_t line1) const { return moved && line1 ? moved->map(line1, 0).first : line1; }
    VariableFacts shownVariables() const {
        if (!moved) return outcome->variables;
        VariableFacts out;
        for (const auto& [name, accesses] : outcome->variables)
            for (VariableAccess a : accesses) {
                a.line = shownLine(a.line);
                out[name].insert(a);
            }
        return out;
    }
    bool adopted() const { return shownVersion != version; }

    StatusParams status(DocumentState st) const {
        StatusParams s;
        s.uri = uri;
        s.version = shownVersion;
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
        LineIndex lines(shownText);
        VariableFacts facts = shownVariables();
        DocumentView view{uri, path, lines, &facts};
        PublishDiagnosticsParams p{uri, shownVersion, {}};
        // The errors to show, in order (the exploration's, then replayed ones it has not found yet), moved to
        // the shown text.
        std::vector<std::pair<std::string, bool>> ids; // (counterexample id, replayed)
        report::CheckResult shown;
        for (auto& [id, e] : found) {
            ids.push_back({id, false});
            shown.errors.push_back(e);
        }
        for (auto& [id, e] : replayed) {
            bool seen = false;
            for (auto& f : found) seen |= sameError(f.second, e);
            if (seen) continue;
            ids.push_back({id, true});
            shown.errors.push_back(e);
        }
        toShown(shown);
        d.counterexamples.clear();
        for (size_t i = 0; i < ids.size(); ++i) {
            const report::ErrorReport& e = shown.errors[i];
            d.counterexamples[ids[i].first] = e;
            if (kindReported(settings, e.kind))
                p.diagnostics.push_back(errorDiagnostic(e, ids[i].first, view, ids[i].second));
        }
        for (Diagnostic& x : extra) p.diagnostics.push_back(std::move(x));
        // The observer and the final result often carry the same set: publish a change only.
        publishedAny = true;
        json wire = toJSON(p);
        if (d.lastPublished == wire) return;
        d.lastPublished = std::move(wire);
        engine.client_.publishDiagnostics(p);
    }

    // Under engine.mutex_ (Engine::adoptCommentEdit): the document's text changed only in comments and
    // whitespace while this job runs. Republish what it has found so far at the new positions; the job goes on.
    void adopt(Document& d, std::optional<TokenMap> map) {
        moved = std::move(map);
        shownVersion = d.version;
        shownText = d.text;
        if (publishedAny) publish(d); // else what the editor shows is an older check's, replaced when this one
                                      // publishes
        StatusParams s = d.status;
        s.version = shownVersion;
        s.message = "comment/whitespace edit: the check of version " + std::to_string(version) +
                    " goes on for this version, its diagnostics moved";
        engine.setStatus(d, s);
    }

    // Under engine.mutex_: publishes a complete or cancelled result and the final status.
    void publishResult(Document& d, DocumentState state, std::optional<int64_t> reusedFrom) {
        finished();
        const report::CheckResult& r = *outcome->result;
        std::vector<Diagnostic> extra;
        LineIndex lines(shownText);
        if (!r.bounds.empty())
            extra.push_back(boundedDiagnostic(r, shownLine(outcome->mainLine), {uri, path, lines}));
        publish(d, std::move(extra));
        if (adopted()) {
            // What the editor shows is the adopted version: the result with its positions moved (the cache and
            // the replay keep the checked one, whose positions match its program).
            auto o = std::make_shared<Outcome>(*outcome);
            o->version = shownVersion;
            o->text = shownText;
            o->variables = shownVariables();
            o->mainLine = shownLine(outcome->mainLine);
            toShown(*o->result);
            d.shown = o;
        } else {
            d.shown = outcome;
        }
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
        if (adopted())
            s.message += (s.message.empty() ? "" : "; ") + std::string("checked version ") +
                         std::to_string(version) +
                         "; the comment/whitespace edits since then only moved its diagnostics";
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
        shownVersion = version;
        shownText = text;
        d->running = this;
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
        outcome->compileErrors = std::move(failure.diagnostics);
        outcome->complete = true;
        std::lock_guard lock(engine.mutex_);
        found.clear(); // a preview's errors, if any
        Document* d = current();
        if (!d) return;
        finished();
        if (adopted()) {
            // Clang's positions are in the text compiled; check the text shown instead (a compile).
            engine.scheduleCheck(*d, std::chrono::milliseconds(0));
            return;
        }
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
        std::lock_guard lock(engine.mutex_);
        addTraceAccesses(outcome->variables, *outcome->result);
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
        uint32_t main = shown->mainLine ? tokens->map(shown->mainLine, 0).first : 0;
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return;
        for (const report::ErrorReport& e : r.errors) found.push_back({newId(*d), e});
        std::vector<Diagnostic> extra;
        LineIndex lines(shownText);
        if (!r.bounds.empty()) extra.push_back(boundedDiagnostic(r, shownLine(main), {uri, path, lines}));
        publish(*d, std::move(extra));
    }

    // Cancelled while compiling. A superseded job says nothing (the newer version's job reports); a job
    // cancelled by skein.cancel says so, or the document would stay "compiling".
    void cancelledBeforeExploring() {
        std::lock_guard lock(engine.mutex_);
        Document* d = current();
        if (!d) return;
        finished();
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
        if (replayed.empty()) {
            s.message = "the previous counterexamples no longer fail (replayed in " + std::string(ms) + ")";
        } else {
            report::CheckResult first;
            first.errors.push_back(replayed.front().second);
            toShown(first);
            VariableFacts facts = shownVariables();
            s.message = "still fails: " + explainError(first.errors[0], &facts) + " (replayed in " + ms + ")";
        }
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
    // Who touches which shared variable (one execution): for hovers and the diagnostics' sentences.
    exec::ExecOptions factsOptions = job.req.options.exec;
    if (!factsOptions.cancelled) factsOptions.cancelled = job.req.options.cancelled; // a newer version waits
    VariableFacts variables = sharedVariables(*prepared->program, factsOptions);
    uint64_t fingerprint = program::positionIndependentFingerprint(*prepared->program);
    {
        std::lock_guard lock(mutex_); // adoptCommentEdit reads the outcome
        job.outcome->program = prepared->program;
        job.outcome->fingerprint = fingerprint;
        job.outcome->mainLine = mainLine(*prepared->program);
        job.outcome->variables = std::move(variables);
    }
    if (job.reuseCached()) return;
    {
        std::lock_guard lock(mutex_);
        job.found.clear(); // a preview's errors: the program changed after all
    }
    if (cancelled.load()) return job.cancelledBeforeExploring(); // superseded (silent) or skein.cancel
    if (!job.replayPrevious()) return;
    job.explore(prepared->compileMs);
}

bool Engine::adoptCommentEdit(Document& d) {
    Job* job = d.running;
    if (!job || job->generation != d.generation || d.userCancelled || job->cancelled.load()) return false;
    std::optional<TokenMap> map;
    if (d.text != job->text) {
        map = TokenMap::build(job->text, d.text);
        if (!map) return false; // a real change: restart
    }
    job->adopt(d, std::move(map));
    return true;
}

} // namespace skein::lsp
