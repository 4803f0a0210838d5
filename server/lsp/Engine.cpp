#include "server/lsp/Engine.h"

#include <cstdio>

#include "core/program/Fingerprint.h"
#include "server/lsp/Diagnostics.h"
#include "server/lsp/Text.h"

namespace skein::lsp {
namespace {

constexpr size_t kMaxReplayed = 8; // previous counterexamples replayed before exploring

// The settings that change a result; the others only change how it is shown or scheduled.
std::string optionsKeyOf(const Settings& s) {
    json j = toJSON(s);
    for (const char* k : {"reportKinds", "debounceMs", "maxConcurrentExplorations", "replayFirst"})
        j.erase(k);
    return j.dump();
}

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

} // namespace

// The state of one run of the pipeline, shared by its steps and its observer.
struct Engine::Job {
    Job(Engine& e, std::string u, uint64_t g) : engine(e), uri(std::move(u)), generation(g) {}
    Engine& engine;
    std::string uri;
    uint64_t generation;
    int64_t version = 0;
    std::string text, path;
    Settings settings;
    std::vector<std::pair<std::string, report::ErrorReport>> replayed, found;
    uint32_t mainLine = 0;

    // Under engine.mutex_. Publishes the job's errors (the exploration's, then replayed ones it has not found
    // yet) plus `extra`; remembers their ids for skein/counterexample.
    void publish(Document& d, std::vector<Diagnostic> extra = {}) {
        LineIndex lines(text);
        DocumentView view{uri, path, lines};
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
        d.lastPublished = wire;
        engine.client_.publishDiagnostics(p);
    }

    uint32_t reportedCount() const {
        uint32_t n = 0;
        for (auto& f : found) n += kindReported(settings, f.second.kind);
        return n;
    }

    std::string newId(Document& d) { return std::to_string(version) + "-" + std::to_string(++d.nextId); }
};

namespace {

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

Engine::Engine(Client& client, Settings settings, Options opts)
    : client_(client), opts_(opts), settings_(std::move(settings)),
      scheduler_(opts.poolSize, settings_.maxConcurrentExplorations) {}

Engine::~Engine() = default;

Settings Engine::settings() const {
    std::lock_guard lock(mutex_);
    return settings_;
}

Settings Engine::settingsFor(const Document& d) const {
    Settings s = settings_;
    if (d.algorithm) s.algorithm = *d.algorithm;
    if (d.alt) s.alt = *d.alt;
    return s;
}

std::expected<Engine::Document*, ResponseError> Engine::find(const std::string& uri) {
    auto it = docs_.find(uri);
    if (it == docs_.end())
        return std::unexpected(ResponseError{ErrorCode::InvalidParams, "unknown document " + uri});
    return &it->second;
}
std::expected<const Engine::Document*, ResponseError> Engine::find(const std::string& uri) const {
    auto it = docs_.find(uri);
    if (it == docs_.end())
        return std::unexpected(ResponseError{ErrorCode::InvalidParams, "unknown document " + uri});
    return &it->second;
}

Engine::Document* Engine::current(const std::string& uri, uint64_t generation) {
    auto it = docs_.find(uri);
    if (it == docs_.end() || it->second.generation != generation) return nullptr;
    return &it->second;
}

void Engine::setStatus(Document& d, StatusParams s) {
    d.status = s;
    client_.status(s);
}

void Engine::scheduleCheck(Document& d, std::chrono::milliseconds delay) {
    // Engine-wide, so that a job of a closed document can never take a reopened one's generation for its own.
    d.generation = ++lastGeneration_;
    d.userCancelled = false;
    StatusParams s;
    s.uri = d.uri;
    s.version = d.version;
    s.state = DocumentState::Queued;
    s.algorithm = settingsFor(d).algorithm;
    setStatus(d, s);
    std::string uri = d.uri;
    uint64_t g = d.generation;
    scheduler_.schedule(
        uri, [this, uri, g](const std::atomic<bool>& cancelled) { runJob(uri, g, cancelled); }, delay);
}

void Engine::open(const std::string& uri, std::string text, int64_t version) {
    std::lock_guard lock(mutex_);
    Document& d = docs_[uri];
    d.uri = uri;
    static unsigned untitled = 0;
    if (auto p = uriToPath(uri))
        d.path = *p;
    else if (d.path.empty())
        d.path = "untitled-" + std::to_string(++untitled) + ".c";
    d.text = std::move(text);
    d.version = version;
    scheduleCheck(d, std::chrono::milliseconds(0));
}

std::expected<void, ResponseError>
Engine::change(const std::string& uri, int64_t version,
               const std::vector<TextDocumentContentChangeEvent>& changes) {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    std::string text = (*d)->text;
    for (const auto& c : changes)
        if (!applyChange(text, c))
            return std::unexpected(
                ResponseError{ErrorCode::InvalidParams, "change range outside the document"});
    (*d)->text = std::move(text);
    (*d)->version = version;
    scheduleCheck(**d, std::chrono::milliseconds(settings_.debounceMs));
    return {};
}

std::expected<void, ResponseError> Engine::save(const std::string& uri,
                                                const std::optional<std::string>& text) {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    // The editor's text is what is checked; a save only matters when it carries different text.
    if (text && *text != (*d)->text) {
        (*d)->text = *text;
        scheduleCheck(**d, std::chrono::milliseconds(0));
    }
    return {};
}

std::expected<void, ResponseError> Engine::close(const std::string& uri) {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    scheduler_.cancel(uri);
    docs_.erase(uri);
    client_.publishDiagnostics({uri, std::nullopt, {}}); // clear what was shown
    return {};
}

void Engine::setSettings(Settings s) {
    std::lock_guard lock(mutex_);
    bool rerun = optionsKeyOf(s) != optionsKeyOf(settings_) || s.reportKinds != settings_.reportKinds;
    settings_ = std::move(s);
    scheduler_.setConcurrency(settings_.maxConcurrentExplorations);
    if (rerun)
        for (auto& [uri, d] : docs_) scheduleCheck(d, std::chrono::milliseconds(0));
}

std::expected<void, ResponseError> Engine::recheck(const std::string& uri) {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    // Drop this document's cached results so the check really explores again.
    std::erase_if(cache_, [&](const auto& o) {
        return (*d)->lastComplete && o->fingerprint == (*d)->lastComplete->fingerprint;
    });
    (*d)->lastComplete.reset();
    scheduleCheck(**d, std::chrono::milliseconds(0));
    return {};
}

std::expected<void, ResponseError> Engine::cancel(const std::string& uri) {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    (*d)->userCancelled = true;
    if (!scheduler_.cancel(uri)) return {};
    if ((*d)->status.state == DocumentState::Queued) {
        StatusParams s = (*d)->status;
        s.state = DocumentState::Cancelled;
        s.message = "cancelled before it started";
        setStatus(**d, s);
    }
    return {};
}

std::expected<void, ResponseError> Engine::setAlgorithm(const std::string& uri, const std::string& algorithm,
                                                        const std::optional<std::string>& alt) {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    if (!explore::findExplorer(algorithm))
        return std::unexpected(
            ResponseError{ErrorCode::InvalidParams, "unknown algorithm `" + algorithm + "`"});
    (*d)->algorithm = algorithm;
    if (alt) (*d)->alt = *alt;
    scheduleCheck(**d, std::chrono::milliseconds(0));
    return {};
}

std::shared_ptr<const Engine::Outcome> Engine::cacheFind(uint64_t fingerprint, const std::string& key) {
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
        if ((*it)->fingerprint == fingerprint && (*it)->optionsKey == key) {
            auto o = *it;
            cache_.splice(cache_.begin(), cache_, it);
            return o;
        }
    return nullptr;
}

void Engine::cacheInsert(std::shared_ptr<const Outcome> o) {
    std::erase_if(cache_, [&](const auto& c) {
        return c->fingerprint == o->fingerprint && c->optionsKey == o->optionsKey;
    });
    cache_.push_front(std::move(o));
    while (cache_.size() > opts_.cacheEntries) cache_.pop_back();
}

void Engine::runJob(const std::string& uri, uint64_t generation, const std::atomic<bool>& cancelled) {
    Job job(*this, uri, generation);
    std::shared_ptr<const Outcome> previous;
    {
        std::lock_guard lock(mutex_);
        Document* d = current(uri, generation);
        if (!d) return;
        job.version = d->version;
        job.text = d->text;
        job.path = d->path;
        job.settings = settingsFor(*d);
        previous = d->lastComplete;
        StatusParams s = d->status;
        s.state = DocumentState::Compiling;
        setStatus(*d, s);
    }
    const std::string key = optionsKeyOf(job.settings);
    CheckRequest req = makeRequest(job.settings, job.path, job.text, cancelled);
    auto baseStatus = [&](DocumentState st) {
        StatusParams s;
        s.uri = uri;
        s.version = job.version;
        s.state = st;
        s.algorithm = job.settings.algorithm;
        return s;
    };

    auto prepared = prepare(req);
    auto outcome = std::make_shared<Outcome>();
    outcome->version = job.version;
    outcome->optionsKey = key;
    if (!prepared) {
        outcome->compileErrors = std::move(prepared.error().diagnostics);
        outcome->complete = true;
        std::lock_guard lock(mutex_);
        Document* d = current(uri, generation);
        if (!d) return;
        LineIndex lines(job.text);
        job.found.clear();
        job.replayed.clear();
        job.publish(*d, compileDiagnostics(outcome->compileErrors, {uri, job.path, lines}));
        d->shown = outcome;
        StatusParams s = baseStatus(DocumentState::Failed);
        s.message = outcome->compileErrors.empty()
                        ? "the program cannot be checked"
                        : "does not compile: " + outcome->compileErrors.front().message;
        setStatus(*d, s);
        return;
    }
    outcome->program = prepared->program;
    outcome->fingerprint = program::positionIndependentFingerprint(*outcome->program);
    job.mainLine = mainLine(*outcome->program);
    const program::Program& prog = *outcome->program;

    // The same program (up to positions) with the same options: reuse its result, positions mapped.
    std::shared_ptr<const Outcome> same;
    {
        std::lock_guard lock(mutex_);
        same = cacheFind(outcome->fingerprint, key);
    }
    if (same && same->result && same->program) {
        report::CheckResult r = *same->result;
        LocationMap(*same->program, prog).apply(r);
        outcome->result = std::move(r);
        outcome->complete = true;
        outcome->variables = sharedVariables(prog, req.options.exec);
        addTraceAccesses(outcome->variables, *outcome->result);
        std::lock_guard lock(mutex_);
        Document* d = current(uri, generation);
        if (!d) return;
        for (const report::ErrorReport& e : outcome->result->errors) job.found.push_back({job.newId(*d), e});
        std::vector<Diagnostic> extra;
        LineIndex lines(job.text);
        if (!outcome->result->bounds.empty())
            extra.push_back(boundedDiagnostic(*outcome->result, job.mainLine, {uri, job.path, lines}));
        job.publish(*d, std::move(extra));
        d->shown = d->lastComplete = outcome;
        cacheInsert(outcome);
        StatusParams s = baseStatus(DocumentState::Done);
        s.verdict = std::string(report::verdictName(outcome->result->verdict));
        s.stats = outcome->result->stats;
        s.errors = job.reportedCount();
        s.reused = true;
        s.reusedFrom = same->version;
        s.algorithm = outcome->result->algorithm;
        s.fingerprint = hex(outcome->fingerprint);
        s.message =
            "same program as version " + std::to_string(same->version) + ": result reused, not re-explored";
        setStatus(*d, s);
        return;
    }
    if (cancelled.load()) return; // superseded while compiling: the newer version's job reports

    // Replay the previous counterexamples on the new program: "still fails" within milliseconds.
    if (job.settings.replayFirst && previous && previous->result && !previous->result->errors.empty()) {
        {
            std::lock_guard lock(mutex_);
            Document* d = current(uri, generation);
            if (!d) return;
            StatusParams s = baseStatus(DocumentState::Replaying);
            s.fingerprint = hex(outcome->fingerprint);
            setStatus(*d, s);
        }
        std::vector<report::ErrorReport> errs;
        double replayMs = 0;
        size_t n = 0;
        for (const report::ErrorReport& old : previous->result->errors) {
            if (old.schedule.empty() || n++ >= kMaxReplayed || cancelled.load()) continue;
            ReplayResult rr = replay(prog, old.schedule, req.options);
            replayMs += rr.elapsedMs;
            for (report::ErrorReport& e : rr.errors) {
                bool dup = false;
                for (auto& x : errs) dup |= sameError(x, e);
                if (!dup) errs.push_back(std::move(e));
            }
        }
        std::lock_guard lock(mutex_);
        Document* d = current(uri, generation);
        if (!d) return;
        for (report::ErrorReport& e : errs) job.replayed.push_back({job.newId(*d), std::move(e)});
        job.publish(*d);
        StatusParams s = baseStatus(DocumentState::Replaying);
        s.fingerprint = hex(outcome->fingerprint);
        s.errors = uint32_t(job.replayed.size());
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.2f ms", replayMs);
        s.message =
            job.replayed.empty()
                ? "the previous counterexamples no longer fail (replayed in " + std::string(ms) + ")"
                : "still fails: " + explainError(job.replayed.front().second) + " (replayed in " + ms + ")";
        setStatus(*d, s);
    }

    // Explore, streaming errors and statistics.
    std::string token;
    bool progress = client_.supportsProgress();
    if (progress) {
        token = "skein/" + uri + "#" + std::to_string(job.version) + "/" + std::to_string(generation);
        client_.createProgress(token);
        WorkDoneProgress begin;
        begin.kind = WorkDoneProgress::Kind::Begin;
        begin.title = "Skein: exploring " + job.path.substr(job.path.rfind('/') + 1);
        begin.cancellable = false;
        begin.message = "compiled; exploring with " + job.settings.algorithm;
        if (job.settings.maxExecutions) begin.percentage = 0;
        client_.progress(token, begin);
    }
    {
        std::lock_guard lock(mutex_);
        Document* d = current(uri, generation);
        if (!d) return;
        StatusParams s = baseStatus(DocumentState::Exploring);
        s.fingerprint = hex(outcome->fingerprint);
        setStatus(*d, s);
    }
    JobObserver obs(
        [&](const report::ErrorReport& e) {
            std::lock_guard lock(mutex_);
            for (auto& f : job.found)
                if (sameError(f.second, e)) return; // the dfs fallback finds them again
            Document* d = current(uri, generation);
            if (!d) return;
            job.found.push_back({job.newId(*d), e});
            job.publish(*d);
        },
        [&](const report::Stats& st) {
            std::lock_guard lock(mutex_);
            Document* d = current(uri, generation);
            if (!d) return;
            StatusParams s = baseStatus(DocumentState::Exploring);
            s.stats = st;
            s.errors = job.reportedCount();
            s.fingerprint = hex(outcome->fingerprint);
            setStatus(*d, s);
            if (progress) {
                WorkDoneProgress p;
                p.message = statsLine(st);
                if (job.settings.maxExecutions)
                    p.percentage = uint32_t(std::min<uint64_t>(
                        100, (st.executions + st.blocked + st.bounded) * 100 / job.settings.maxExecutions));
                client_.progress(token, p);
            }
        });
    auto explored = exploreProgram(prog, req, &obs);
    auto endProgress = [&](std::string message) {
        if (!progress) return;
        WorkDoneProgress end;
        end.kind = WorkDoneProgress::Kind::End;
        end.message = std::move(message);
        client_.progress(token, end);
    };
    std::lock_guard lock(mutex_);
    if (!explored) { // an unknown algorithm (setAlgorithm validates; settings may name one)
        endProgress("failed");
        Document* d = current(uri, generation);
        if (!d) return;
        StatusParams s = baseStatus(DocumentState::Failed);
        s.message =
            explored.error().diagnostics.empty() ? "cannot check" : explored.error().diagnostics[0].message;
        setStatus(*d, s);
        return;
    }
    report::CheckResult& r = *explored;
    r.stats.compileMs = prepared->compileMs;
    auto it = docs_.find(uri);
    bool superseded = it == docs_.end() || it->second.generation != generation;
    if (cancelled.load() && superseded) {
        endProgress("superseded by a newer version");
        if (it != docs_.end()) {
            StatusParams s = baseStatus(DocumentState::Cancelled);
            s.stats = r.stats;
            s.message = "superseded by version " + std::to_string(it->second.version);
            client_.status(s); // not stored: the document's status is the newer version's
        }
        return;
    }
    if (superseded) {
        endProgress("superseded by a newer version");
        return;
    }
    Document& d = it->second;
    // Errors the exploration reported through the observer already have ids; add any it did not stream.
    for (const report::ErrorReport& e : r.errors) {
        bool seen = false;
        for (auto& f : job.found) seen |= sameError(f.second, e);
        if (!seen) job.found.push_back({job.newId(d), e});
    }
    // The final result replaces the replayed errors.
    job.replayed.clear();
    outcome->result = std::move(r);
    outcome->complete = !cancelled.load();
    outcome->variables = sharedVariables(prog, req.options.exec);
    addTraceAccesses(outcome->variables, *outcome->result);
    std::vector<Diagnostic> extra;
    LineIndex lines(job.text);
    if (!outcome->result->bounds.empty())
        extra.push_back(boundedDiagnostic(*outcome->result, job.mainLine, {uri, job.path, lines}));
    job.publish(d, std::move(extra));
    d.shown = outcome;
    StatusParams s = baseStatus(outcome->complete ? DocumentState::Done : DocumentState::Cancelled);
    s.verdict = std::string(report::verdictName(outcome->result->verdict));
    s.stats = outcome->result->stats;
    s.errors = job.reportedCount();
    s.algorithm = outcome->result->algorithm;
    s.fingerprint = hex(outcome->fingerprint);
    for (const report::BoundHit& b : outcome->result->bounds)
        s.message += (s.message.empty() ? "" : "; ") + b.what;
    for (const std::string& n : outcome->result->notes) s.message += (s.message.empty() ? "" : "; ") + n;
    setStatus(d, s);
    endProgress(outcome->complete ? statsLine(outcome->result->stats) : "cancelled");
    if (outcome->complete) {
        d.lastComplete = outcome;
        cacheInsert(outcome);
    }
}

std::expected<CounterexampleResult, ResponseError> Engine::counterexample(const std::string& uri,
                                                                          const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    auto it = (*d)->counterexamples.find(id);
    if (it == (*d)->counterexamples.end())
        return std::unexpected(
            ResponseError{ErrorCode::InvalidParams, "unknown counterexample `" + id + "`"});
    int64_t version = (*d)->status.version;
    return CounterexampleResult{uri, version, id, it->second};
}

std::expected<StatusParams, ResponseError> Engine::statistics(const std::string& uri) const {
    std::lock_guard lock(mutex_);
    auto d = find(uri);
    if (!d) return std::unexpected(d.error());
    return (*d)->status;
}

} // namespace skein::lsp
