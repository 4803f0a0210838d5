#pragma once
// The language server's asynchronous C++ API (clangd's ClangdServer): open documents, their checks and
// results. It turns edits into scheduled checks (server/lsp/Scheduler), runs the pipeline of one check on a
// worker — compile, fingerprint, reuse a cached result, replay the previous counterexamples, explore — and
// reports through the Client interface. It knows LSP's data types (Protocol.h) but not the wire: Server.cpp
// does the JSON-RPC.
//
// Thread-safety: the public methods may be called from any thread (the server calls them from its message
// loop); they take the engine's lock and never wait for a check. Client callbacks are made from worker
// threads (and from close() on the caller's) with the engine's lock held, so a stale result can never be
// published after a newer one; a Client must not call back into the Engine.
#include <chrono>
#include <expected>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/Check.h"
#include "server/lsp/ProgramFacts.h"
#include "server/lsp/Protocol.h"
#include "server/lsp/Scheduler.h"

namespace skein::lsp {

class Client {
  public:
    virtual ~Client() = default;
    virtual void publishDiagnostics(const PublishDiagnosticsParams& p) = 0;
    virtual void status(const StatusParams& p) = 0;
    // Work-done progress: create the token (window/workDoneProgress/create), then $/progress on it.
    virtual bool supportsProgress() const { return false; }
    virtual void createProgress(const std::string& /*token*/) {}
    virtual void progress(const std::string& /*token*/, const WorkDoneProgress& /*p*/) {}
};

class Engine {
  public:
    struct Options {
        unsigned poolSize = 4;    // worker threads; at most Settings::maxConcurrentExplorations run at once
        size_t cacheEntries = 32; // results kept by (fingerprint, options) across all documents
    };
    Engine(Client& client, Settings settings, Options opts);
    ~Engine();

    // Documents. Errors (unknown document, a change outside the text) are returned for the caller to report.
    void open(const std::string& uri, std::string text, int64_t version);
    std::expected<void, ResponseError> change(const std::string& uri, int64_t version,
                                              const std::vector<TextDocumentContentChangeEvent>& changes);
    std::expected<void, ResponseError> save(const std::string& uri, const std::optional<std::string>& text);
    std::expected<void, ResponseError> close(const std::string& uri);

    void setSettings(Settings s); // rechecks every open document
    // Rechecks every open document after the debounce (files on disk changed); cached results stay valid.
    void recheckAll();
    Settings settings() const;

    // workspace/executeCommand
    std::expected<void, ResponseError> recheck(const std::string& uri);
    std::expected<void, ResponseError> cancel(const std::string& uri);
    // window/workDoneProgress/cancel: cancels the check whose progress this is (false: no such token).
    bool cancelProgress(const std::string& token);
    std::expected<void, ResponseError> setAlgorithm(const std::string& uri, const std::string& algorithm,
                                                    const std::optional<std::string>& alt);

    // Requests.
    std::expected<CounterexampleResult, ResponseError> counterexample(const std::string& uri,
                                                                      const std::string& id) const;
    std::expected<StatusParams, ResponseError> statistics(const std::string& uri) const;
    std::expected<std::vector<CodeLens>, ResponseError> codeLenses(const std::string& uri) const;
    std::expected<std::optional<Hover>, ResponseError> hover(const std::string& uri, Position pos) const;

    bool waitIdle(std::chrono::milliseconds timeout) { return scheduler_.waitIdle(timeout); }

  private:
    struct Job; // one run of the pipeline (Job.cpp)
    friend struct Job;
    // One check's result for one version of a document.
    struct Outcome {
        int64_t version = 0;
        std::string text;                                // the text its positions refer to
        std::shared_ptr<const program::Program> program; // null when it did not compile
        uint64_t fingerprint = 0;
        std::string optionsKey;
        std::optional<report::CheckResult> result;
        std::vector<report::Diagnostic> compileErrors;
        bool complete = false; // not cancelled: a verdict for these options
        VariableFacts variables;
        uint32_t mainLine = 0; // 1-based line of `main` in `text` (0: unknown)
    };
    struct Document {
        std::string uri, path, text;
        int64_t version = 0;
        uint64_t generation =
            0; // new (engine-wide) with every change to what must be checked; older jobs are stale
        bool userCancelled = false;
        std::optional<std::string> algorithm, alt; // skein.setAlgorithm overrides
        StatusParams status;
        std::shared_ptr<const Outcome> shown;              // whose diagnostics are published
        std::shared_ptr<const Outcome> lastComplete;       // for replay and same-fingerprint reuse
        std::vector<report::ErrorReport> unfinishedErrors; // found by a check that was then cancelled
        std::map<std::string, report::ErrorReport> counterexamples; // id → the published errors
        std::string progressToken; // of the running exploration's work-done progress
        // The job checking the current generation, from its snapshot to its end (set and cleared by the job,
        // under mutex_): a comment/whitespace-only edit is handed to it instead of restarting it.
        Job* running = nullptr;
        json lastPublished;        // to skip republishing an identical set
        uint64_t nextId = 0;
    };
    // The settings that change a result, as a cache key; the others only change how it is shown or scheduled.
    static std::string optionsKey(const Settings& s);

    void scheduleCheck(Document& d, std::chrono::milliseconds delay);
    // Under mutex_, from change(): when the document's text now differs from the text its running check took
    // only in comments and whitespace, that check goes on for the new version (its diagnostics, published at
    // once and as it finds more, are moved to the new text) and true is returned; else false (restart).
    bool adoptCommentEdit(Document& d);
    void runJob(const std::string& uri, uint64_t generation, const std::atomic<bool>& cancelled);
    Settings settingsFor(const Document& d) const;
    // Under mutex_: the document if it still wants `generation` checked.
    Document* current(const std::string& uri, uint64_t generation);
    void setStatus(Document& d, StatusParams s);
    std::shared_ptr<const Outcome> cacheFind(uint64_t fingerprint, const std::string& optionsKey);
    void cacheInsert(std::shared_ptr<const Outcome> o);
    std::expected<Document*, ResponseError> find(const std::string& uri);
    std::expected<const Document*, ResponseError> find(const std::string& uri) const;

    Client& client_;
    Options opts_;
    mutable std::mutex mutex_;
    Settings settings_;
    std::map<std::string, Document> docs_;
    uint64_t lastGeneration_ = 0;
    std::list<std::shared_ptr<const Outcome>> cache_; // most recently used first
    Scheduler scheduler_; // last: destroyed (joined) first, while the state its tasks use is alive
};

} // namespace skein::lsp
