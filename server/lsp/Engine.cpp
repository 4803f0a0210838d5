#include "server/lsp/Engine.h"

#include "server/lsp/Text.h"

namespace skein::lsp {

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
    if (adoptCommentEdit(**d)) return {}; // a comment/whitespace edit: the running check goes on
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
    bool rerun = optionsKey(s) != optionsKey(settings_) || s.reportKinds != settings_.reportKinds;
    settings_ = std::move(s);
    scheduler_.setConcurrency(settings_.maxConcurrentExplorations);
    if (rerun)
        for (auto& [uri, d] : docs_) scheduleCheck(d, std::chrono::milliseconds(0));
}

void Engine::recheckAll() {
    std::lock_guard lock(mutex_);
    for (auto& [uri, d] : docs_) scheduleCheck(d, std::chrono::milliseconds(settings_.debounceMs));
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

bool Engine::cancelProgress(const std::string& token) {
    std::string uri;
    {
        std::lock_guard lock(mutex_);
        for (auto& [u, d] : docs_)
            if (!token.empty() && d.progressToken == token) uri = u;
    }
    return !uri.empty() && cancel(uri).has_value();
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
