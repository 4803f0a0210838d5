#include "server/lsp/Server.h"

#include <charconv>
#include <csignal>
#include <iostream>

namespace skein::lsp {
namespace {

// True when the JSON text nests deeper than `limit` (nlohmann_json builds and destroys values recursively, so
// a hostile message of a million `[` would overflow the stack). Brackets inside strings do not count.
bool nestsDeeperThan(const std::string& text, int limit) {
    int depth = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return true;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return false;
}

ResponseError invalidParams(const std::string& method) {
    return {ErrorCode::InvalidParams, "invalid parameters for " + method};
}

} // namespace

Server::Server(Transport& transport, Options opts) : transport_(transport), opts_(opts) {}

Server::~Server() {
    engine_.reset();
}

int Server::run() {
    for (;;) {
        auto body = transport_.readMessage();
        if (!body) return shutdown_ ? 0 : 1; // end of input
        if (nestsDeeperThan(*body, 256)) {
            transport_.replyError(nullptr, ErrorCode::ParseError, "message nests deeper than 256 levels");
            continue;
        }
        json message = json::parse(*body, nullptr, /*allow_exceptions=*/false);
        if (message.is_discarded()) {
            transport_.replyError(nullptr, ErrorCode::ParseError, "message is not valid JSON");
            continue;
        }
        if (message.is_object() && message.contains("method") && message["method"] == "exit" &&
            !message.contains("id"))
            return shutdown_ ? 0 : 1;
        try {
            handle(message);
        } catch (const std::exception& e) {
            // A bug in a handler must not end the session; report it to the request if there was one.
            if (message.is_object() && message.contains("id") && message.contains("method"))
                transport_.replyError(message["id"], ErrorCode::InternalError,
                                      std::string("internal error: ") + e.what());
        }
    }
}

void Server::handle(const json& message) {
    if (!message.is_object() || !message.contains("jsonrpc") || message["jsonrpc"] != "2.0") {
        transport_.replyError(message.is_object() && message.contains("id") ? message["id"] : json(nullptr),
                              ErrorCode::InvalidRequest, "not a JSON-RPC 2.0 message");
        return;
    }
    const bool hasId = message.contains("id");
    if (hasId && !(message["id"].is_string() || message["id"].is_number_integer())) {
        transport_.replyError(nullptr, ErrorCode::InvalidRequest, "the id must be a string or an integer");
        return;
    }
    if (!message.contains("method")) {
        if (hasId) handleResponse(message);
        return;
    }
    if (!message["method"].is_string()) {
        if (hasId)
            transport_.replyError(message["id"], ErrorCode::InvalidRequest, "the method must be a string");
        return;
    }
    std::string method = message["method"];
    json params = message.contains("params") ? message["params"] : json::object();
    if (hasId)
        handleRequest(message["id"], method, params);
    else
        handleNotification(method, params);
}

void Server::handleResponse(const json& message) {
    if (message["id"].is_string() && message["id"] == configurationRequestId_ && message.contains("result")) {
        const json& r = message["result"];
        if (r.is_array() && !r.empty()) applySettings(r[0], "workspace/configuration");
        return;
    }
    if (!message["id"].is_string()) return;
    // window/workDoneProgress/create answered: send what waited, or drop it if the client refused the token.
    std::lock_guard lock(progressMutex_);
    auto it = pendingProgress_.find(message["id"].get<std::string>());
    if (it == pendingProgress_.end()) return;
    if (message.contains("error") && !it->second.ended) {
        it->second.refused = true;
        it->second.queued.clear();
        return; // kept until its `end`, so that later notifications for the token are dropped too
    }
    if (message.contains("error")) it->second.queued.clear();
    for (json& params : it->second.queued) transport_.notify("$/progress", std::move(params));
    std::erase(pendingOrder_, it->first);
    pendingProgress_.erase(it);
}

void Server::applySettings(const json& settings, const char* from) {
    if (!engine_) return;
    Settings s = engine_->settings();
    std::string error;
    if (!lsp::applySettings(settings, s, error)) {
        transport_.notify("window/showMessage",
                          toJSON(ShowMessageParams{MessageType::Error, std::string("skein: ") + from + ": " +
                                                                           error + " (ignored)"}));
        return;
    }
    engine_->setSettings(std::move(s));
}

void Server::requestConfiguration() {
    configurationRequestId_ = transport_.request("workspace/configuration", toJSON(ConfigurationParams{}));
}

void Server::handleRequest(const json& id, const std::string& method, const json& params) {
    auto fail = [&](const ResponseError& e) { transport_.replyError(id, e.code, e.message); };
    if (method == "initialize") {
        if (initialized_) return fail({ErrorCode::InvalidRequest, "initialize was already received"});
        InitializeParams p;
        if (!fromJSON(params, p)) return fail(invalidParams(method));
        Settings settings;
        std::string error;
        if (p.initializationOptions && !lsp::applySettings(*p.initializationOptions, settings, error))
            transport_.notify("window/showMessage",
                              toJSON(ShowMessageParams{MessageType::Error, "skein: initializationOptions: " +
                                                                               error + " (ignored)"}));
        progressSupported_ = p.workDoneProgress;
        configurationSupported_ = p.configuration;
        watchFilesSupported_ = p.watchFiles;
        engine_ = std::make_unique<Engine>(*this, settings, Engine::Options{opts_.poolSize, 32});
        initialized_ = true;
        transport_.reply(id, initializeResult());
        return;
    }
    if (!initialized_) return fail({ErrorCode::ServerNotInitialized, "the server is not initialized"});
    if (shutdown_) return fail({ErrorCode::InvalidRequest, "the server is shutting down"});
    if (method == "shutdown") {
        shutdown_ = true;
        engine_.reset(); // cancels and joins every check; nothing is published after the reply
        transport_.reply(id, nullptr);
        return;
    }
    if (method == "textDocument/codeLens") {
        CodeLensParams p;
        if (!fromJSON(params, p)) return fail(invalidParams(method));
        auto r = engine_->codeLenses(p.textDocument.uri);
        if (!r) return fail(r.error());
        json out = json::array();
        for (const CodeLens& c : *r) out.push_back(toJSON(c));
        return transport_.reply(id, std::move(out));
    }
    if (method == "textDocument/hover") {
        TextDocumentPositionParams p;
        if (!fromJSON(params, p)) return fail(invalidParams(method));
        auto r = engine_->hover(p.textDocument.uri, p.position);
        if (!r) return fail(r.error());
        return transport_.reply(id, *r ? toJSON(**r) : json(nullptr));
    }
    if (method == "skein/counterexample") {
        CounterexampleParams p;
        if (!fromJSON(params, p)) return fail(invalidParams(method));
        auto r = engine_->counterexample(p.textDocument.uri, p.id);
        if (!r) return fail(r.error());
        return transport_.reply(id, toJSON(*r));
    }
    if (method == "skein/statistics") {
        StatisticsParams p;
        if (!fromJSON(params, p)) return fail(invalidParams(method));
        auto r = engine_->statistics(p.textDocument.uri);
        if (!r) return fail(r.error());
        return transport_.reply(id, toJSON(*r));
    }
    if (method == "workspace/executeCommand") {
        ExecuteCommandParams p;
        if (!fromJSON(params, p)) return fail(invalidParams(method));
        const json& a = p.arguments;
        auto arg = [&](size_t i) -> std::optional<std::string> {
            if (i < a.size() && a[i].is_string()) return a[i].get<std::string>();
            return std::nullopt;
        };
        auto uri = arg(0);
        if (!uri)
            return fail(
                {ErrorCode::InvalidParams, p.command + ": the first argument must be a document URI"});
        std::expected<void, ResponseError> done;
        if (p.command == Command::Recheck)
            done = engine_->recheck(*uri);
        else if (p.command == Command::Cancel)
            done = engine_->cancel(*uri);
        else if (p.command == Command::SetAlgorithm) {
            auto algo = arg(1);
            if (!algo) return fail({ErrorCode::InvalidParams, p.command + ": [uri, algorithm, alt?]"});
            done = engine_->setAlgorithm(*uri, *algo, arg(2));
        } else if (p.command == Command::ShowTrace) {
            auto cex = arg(1);
            if (!cex) return fail({ErrorCode::InvalidParams, p.command + ": [uri, counterexample id]"});
            auto r = engine_->counterexample(*uri, *cex);
            if (!r) return fail(r.error());
            return transport_.reply(id, toJSON(*r));
        } else {
            return fail({ErrorCode::InvalidParams, "unknown command `" + p.command + "`"});
        }
        if (!done) return fail(done.error());
        return transport_.reply(id, nullptr);
    }
    fail({ErrorCode::MethodNotFound, "method not found: " + method});
}

void Server::handleNotification(const std::string& method, const json& params) {
    auto bad = [&](const std::string& why, MessageType type = MessageType::Error) {
        transport_.notify("window/logMessage",
                          toJSON(ShowMessageParams{type, "skein: " + method + ": " + why}));
    };
    if (method == "initialized") {
        if (configurationSupported_) requestConfiguration();
        if (watchFilesSupported_)
            transport_.request("client/registerCapability", toJSON(WatchFilesRegistration{}));
        return;
    }
    if (!initialized_ || shutdown_ || !engine_) return; // dropped, as the protocol asks
    if (method == "textDocument/didOpen") {
        DidOpenTextDocumentParams p;
        if (!fromJSON(params, p)) return bad("invalid parameters");
        engine_->open(p.textDocument.uri, std::move(p.textDocument.text), p.textDocument.version);
    } else if (method == "textDocument/didChange") {
        DidChangeTextDocumentParams p;
        if (!fromJSON(params, p)) return bad("invalid parameters");
        if (auto r = engine_->change(p.textDocument.uri, p.textDocument.version, p.contentChanges); !r)
            bad(r.error().message);
    } else if (method == "textDocument/didSave") {
        DidSaveTextDocumentParams p;
        if (!fromJSON(params, p)) return bad("invalid parameters");
        if (auto r = engine_->save(p.textDocument.uri, p.text); !r) bad(r.error().message);
    } else if (method == "textDocument/didClose") {
        DidCloseTextDocumentParams p;
        if (!fromJSON(params, p)) return bad("invalid parameters");
        if (auto r = engine_->close(p.textDocument.uri); !r) bad(r.error().message);
    } else if (method == "workspace/didChangeConfiguration") {
        // Push (settings in the notification) or pull (the client wants us to ask): support both.
        DidChangeConfigurationParams p;
        if (!fromJSON(params, p)) return bad("invalid parameters");
        if (p.settings) applySettings(*p.settings, method.c_str());
        if (configurationSupported_) requestConfiguration();
    } else if (method == "workspace/didChangeWatchedFiles") {
        // A source or header changed on disk (an included header, most likely): recheck the open documents.
        // An unaffected one costs a compile: its fingerprint finds the cached result.
        engine_->recheckAll();
    } else if (method == "window/workDoneProgress/cancel") {
        WorkDoneProgressCancelParams p;
        if (!fromJSON(params, p)) return bad("invalid parameters");
        engine_->cancelProgress(p.token); // an unknown or finished token: nothing to do
    } else if (method == "$/cancelRequest") {
        // Every request is answered at once on the message loop, so there is never one to cancel; a check is
        // cancelled with the skein.cancel command or superseded by an edit.
    } else if (method.rfind("$/", 0) == 0) {
        // Optional protocol notifications ($/setTrace, ...) are ignored.
    } else {
        bad("unknown notification (ignored)", MessageType::Log); // e.g. didChangeWatchedFiles: not an error
    }
}

void Server::publishDiagnostics(const PublishDiagnosticsParams& p) {
    transport_.notify("textDocument/publishDiagnostics", toJSON(p));
}

void Server::status(const StatusParams& p) {
    transport_.notify("skein/status", toJSON(p));
}

void Server::createProgress(const std::string& token) {
    std::lock_guard lock(progressMutex_);
    // Under the lock: the answer (read on the message loop) cannot be handled before the id is recorded.
    std::string id =
        transport_.request("window/workDoneProgress/create", toJSON(WorkDoneProgressCreateParams{token}));
    pendingProgress_[id] = PendingToken{token, {}, false};
    pendingOrder_.push_back(id);
    while (pendingOrder_.size() > 64) { // a client that never answers
        pendingProgress_.erase(pendingOrder_.front());
        pendingOrder_.pop_front();
    }
}

void Server::progress(const std::string& token, const WorkDoneProgress& p) {
    std::lock_guard lock(progressMutex_);
    for (auto it = pendingProgress_.begin(); it != pendingProgress_.end(); ++it) {
        PendingToken& pending = it->second;
        if (pending.token != token) continue;
        bool end = p.kind == WorkDoneProgress::Kind::End;
        pending.ended |= end;
        if (!pending.refused) {
            // Keep begin, the latest report and end.
            if (p.kind == WorkDoneProgress::Kind::Report && !pending.queued.empty() &&
                pending.queued.back()["value"]["kind"] == "report")
                pending.queued.pop_back();
            pending.queued.push_back(toJSON(ProgressParams{token, p}));
        }
        if (end && pending.refused) {
            std::erase(pendingOrder_, it->first);
            pendingProgress_.erase(it);
        }
        return;
    }
    transport_.notify("$/progress", toJSON(ProgressParams{token, p}));
}

int runLspServer(int argc, char** argv) {
    Server::Options opts;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--stdio") continue; // what editors pass; stdio is the only transport
        if (a.rfind("--workers=", 0) == 0) {
            unsigned n = 0;
            auto [p, ec] = std::from_chars(a.data() + 10, a.data() + a.size(), n);
            if (ec == std::errc() && n > 0 && n <= 64) {
                opts.poolSize = n;
                continue;
            }
        }
        if (a == "--help" || a == "-h") {
            std::cout
                << "usage: skein lsp [--stdio] [--workers=N]\n\n"
                   "The Skein language server: JSON-RPC 2.0 over stdin/stdout (docs/protocol.md).\n"
                   "  --workers=N   worker threads (default 4); the `maxConcurrentExplorations` setting\n"
                   "                limits how many explore at once\n";
            return 0;
        }
        std::cerr << "skein lsp: unknown option `" << a << "`\n";
        return 3;
    }
    std::signal(SIGPIPE, SIG_IGN); // a vanished client shows up as a failed write, then end of input
    Transport transport(0, 1);
    Server server(transport, opts);
    return server.run();
}

} // namespace skein::lsp
