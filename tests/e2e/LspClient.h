#pragma once
// A fake LSP client over pipes for end-to-end tests and the latency benchmark: starts the real `skein lsp`,
// frames messages, collects everything the server sends on a reader thread, and waits for messages with
// timeouts. The child is killed (by its pid) if it has not exited when the client is destroyed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace skein::test {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Received {
    json message;
    Clock::time_point at;
};

class LspClient {
  public:
    explicit LspClient(const std::string& binary, std::vector<std::string> extraArgs = {}) {
        int toChild[2], fromChild[2];
        if (pipe(toChild) != 0 || pipe(fromChild) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            dup2(toChild[0], 0);
            dup2(fromChild[1], 1);
            close(toChild[1]);
            close(fromChild[0]);
            std::vector<std::string> args = {binary, "lsp"};
            for (auto& a : extraArgs) args.push_back(a);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(binary.c_str(), argv.data());
            _exit(127);
        }
        close(toChild[0]);
        close(fromChild[1]);
        in_ = toChild[1];
        out_ = fromChild[0];
        signal(SIGPIPE, SIG_IGN);
        reader_ = std::thread([this] { readLoop(); });
    }

    ~LspClient() {
        if (in_ >= 0) close(in_);
        if (pid_ > 0 && !waitExit(5s)) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (reader_.joinable()) reader_.join();
        if (out_ >= 0) close(out_);
    }

    pid_t pid() const { return pid_; }

    void sendRaw(const std::string& body) {
        std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        writeAll(frame);
    }
    void writeAll(const std::string& bytes) {
        std::lock_guard lock(writeMutex_); // the reader thread answers progress requests
        const char* p = bytes.data();
        size_t left = bytes.size();
        while (left > 0) {
            ssize_t n = write(in_, p, left);
            if (n <= 0) return;
            p += n;
            left -= size_t(n);
        }
    }
    int request(const std::string& method, json params) {
        int id = ++nextId_;
        sendRaw(
            json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump());
        return id;
    }
    void respond(const json& id, json result) {
        sendRaw(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}.dump());
    }
    void notify(const std::string& method, json params) {
        sendRaw(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}.dump());
    }

    // The first message at or after index `from` satisfying `pred`, waiting up to `timeout`.
    std::optional<Received> waitFor(const std::function<bool(const json&)>& pred,
                                    std::chrono::milliseconds timeout, size_t* from = nullptr) {
        std::unique_lock lock(mutex_);
        size_t i = from ? *from : 0;
        auto deadline = Clock::now() + timeout;
        for (;;) {
            for (; i < messages_.size(); ++i)
                if (pred(messages_[i].message)) {
                    if (from) *from = i + 1;
                    return messages_[i];
                }
            if (closed_) return std::nullopt;
            if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && i == messages_.size())
                return std::nullopt;
        }
    }
    std::optional<json> response(int id, std::chrono::milliseconds timeout = 10s) {
        auto r =
            waitFor([&](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); },
                    timeout);
        if (!r) return std::nullopt;
        return r->message;
    }
    std::vector<Received> all() {
        std::lock_guard lock(mutex_);
        return {messages_.begin(), messages_.end()};
    }
    size_t count() {
        std::lock_guard lock(mutex_);
        return messages_.size();
    }

    void initialize(json initOptions = json::object(), bool progress = false, bool configuration = false) {
        int id = request("initialize", {{"processId", getpid()},
                                        {"capabilities",
                                         {{"window", {{"workDoneProgress", progress}}},
                                          {"workspace", {{"configuration", configuration}}}}},
                                        {"initializationOptions", initOptions}});
        response(id);
        notify("initialized", json::object());
    }
    void open(const std::string& uri, const std::string& text, int version = 1) {
        notify("textDocument/didOpen",
               {{"textDocument", {{"uri", uri}, {"languageId", "c"}, {"version", version}, {"text", text}}}});
    }
    void changeFull(const std::string& uri, const std::string& text, int version) {
        notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", version}}},
                                          {"contentChanges", {{{"text", text}}}}});
    }
    void changeRange(const std::string& uri, int version, int l0, int c0, int l1, int c1,
                     const std::string& text) {
        json range = {{"start", {{"line", l0}, {"character", c0}}},
                      {"end", {{"line", l1}, {"character", c1}}}};
        notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", version}}},
                                          {"contentChanges", {{{"range", range}, {"text", text}}}}});
    }
    // skein/status with this uri/version and state.
    std::optional<Received> waitStatus(const std::string& uri, int version, const std::string& state,
                                       std::chrono::milliseconds timeout = 30s, size_t* from = nullptr) {
        return waitFor(
            [&](const json& m) {
                return m.value("method", "") == "skein/status" && m["params"]["uri"] == uri &&
                       m["params"]["version"] == version && m["params"]["state"] == state;
            },
            timeout, from);
    }
    // The last publishDiagnostics for a uri received so far.
    std::optional<json> lastDiagnostics(const std::string& uri) {
        std::lock_guard lock(mutex_);
        for (auto it = messages_.rbegin(); it != messages_.rend(); ++it)
            if (it->message.value("method", "") == "textDocument/publishDiagnostics" &&
                it->message["params"]["uri"] == uri)
                return it->message["params"];
        return std::nullopt;
    }
    bool shutdownAndExit(int* exitCode = nullptr) {
        int id = request("shutdown", nullptr);
        if (!response(id)) return false;
        notify("exit", nullptr);
        close(in_);
        in_ = -1;
        int status = 0;
        if (!waitExit(10s, &status)) return false;
        if (exitCode) *exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return true;
    }
    bool waitExit(std::chrono::milliseconds timeout, int* status = nullptr) {
        if (pid_ <= 0) return true;
        auto deadline = Clock::now() + timeout;
        int st = 0;
        while (Clock::now() < deadline) {
            pid_t r = waitpid(pid_, &st, WNOHANG);
            if (r == pid_) {
                pid_ = -1;
                if (status) *status = st;
                return true;
            }
            std::this_thread::sleep_for(5ms);
        }
        return false;
    }
    // Resident set size of the server (kB), from /proc.
    long rssKb(const char* field = "VmRSS:") const {
        std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
        std::string line;
        while (std::getline(f, line))
            if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
        return -1;
    }

  private:
    void readLoop() {
        std::string buf;
        char chunk[65536];
        for (;;) {
            size_t hdr;
            while ((hdr = buf.find("\r\n\r\n")) == std::string::npos) {
                ssize_t n = read(out_, chunk, sizeof chunk);
                if (n <= 0) return finish();
                buf.append(chunk, size_t(n));
            }
            size_t len = std::stoul(buf.substr(buf.find(':') + 1, hdr));
            while (buf.size() < hdr + 4 + len) {
                ssize_t n = read(out_, chunk, sizeof chunk);
                if (n <= 0) return finish();
                buf.append(chunk, size_t(n));
            }
            json m = json::parse(buf.substr(hdr + 4, len), nullptr, false);
            buf.erase(0, hdr + 4 + len);
            // Accept every work-done progress token, as an editor does.
            if (autoAcceptProgress_ && m.is_object() &&
                m.value("method", "") == "window/workDoneProgress/create" && m.contains("id"))
                sendRaw(json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", nullptr}}.dump());
            {
                std::lock_guard lock(mutex_);
                messages_.push_back({std::move(m), Clock::now()});
            }
            cv_.notify_all();
        }
    }
    void finish() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        cv_.notify_all();
    }

  public:
    bool autoAcceptProgress_ = true; // answer window/workDoneProgress/create (set before initialize)

  private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    int nextId_ = 0;
    std::thread reader_;
    std::mutex mutex_, writeMutex_;
    std::condition_variable cv_;
    std::deque<Received> messages_;
    bool closed_ = false;
};

} // namespace skein::test
