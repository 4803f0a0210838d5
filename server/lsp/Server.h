#pragma once
// `skein lsp`: the LSP layer (clangd's ClangdLSPServer). Reads JSON-RPC messages from the Transport on the
// calling thread, dispatches them by method, answers requests, and forwards the Engine's callbacks
// (diagnostics, status, progress) to the client. Every malformed message, unknown method or bad parameter
// gets a JSON-RPC error (or, for a notification, is dropped) and the loop goes on.
//
// Thread-safety: run() is the message loop (one thread). The Client callbacks run on Engine workers and only
// write to the Transport, which serialises writes.
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/lsp/Engine.h"
#include "server/lsp/Transport.h"

namespace skein::lsp {

class Server : public Client {
  public:
    struct Options {
        unsigned poolSize = 4;
    };
    Server(Transport& transport, Options opts);
    ~Server() override;
    // Returns the process exit code: 0 after shutdown + exit, 1 on exit without shutdown or end of input.
    int run();

  private:
    void handle(const json& message);
    void handleRequest(const json& id, const std::string& method, const json& params);
    void handleNotification(const std::string& method, const json& params);
    void handleResponse(const json& message);
    void requestConfiguration();
    void applySettings(const json& settings, const char* from);

    // Client
    void publishDiagnostics(const PublishDiagnosticsParams& p) override;
    void status(const StatusParams& p) override;
    bool supportsProgress() const override { return progressSupported_; }
    void createProgress(const std::string& token) override;
    void progress(const std::string& token, const WorkDoneProgress& p) override;

    Transport& transport_;
    Options opts_;
    std::unique_ptr<Engine> engine_; // created by `initialize`
    bool initialized_ = false, shutdown_ = false;
    std::atomic<bool> progressSupported_ = false;
    // Work-done progress tokens whose window/workDoneProgress/create the client has not answered yet: their
    // $/progress notifications wait (at most begin, the latest report and end are kept), and are dropped if
    // the client refuses the token. Guarded by progressMutex_ (taken before the transport's lock).
    struct PendingToken {
        std::string token;
        std::vector<json> queued;
        bool refused = false;
        bool ended = false; // its `end` was queued
    };
    std::mutex progressMutex_;
    std::map<std::string, PendingToken> pendingProgress_; // by the create request's id
    std::deque<std::string> pendingOrder_; // ids, oldest first (a silent client cannot grow it)
    bool configurationSupported_ = false;
    bool watchFilesSupported_ = false;
    std::string configurationRequestId_;
};

int runLspServer(int argc, char** argv); // the `skein lsp` subcommand

} // namespace skein::lsp
