#pragma once
// JSON-RPC 2.0 framing over a pair of file descriptors (stdio): `Content-Length: N\r\n\r\n` + N bytes of
// JSON.
//
// Thread-safety: readMessage() is called by one thread (the server's message loop); send*() may be called
// from any thread (a mutex keeps each message whole on the wire).
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace skein::lsp {

class Transport {
  public:
    Transport(int inFd, int outFd) : in_(inFd), out_(outFd) {}

    // The body of the next message, or nullopt at end of input (or an unrecoverable framing error). A frame
    // with a bad header is skipped up to the next header.
    std::optional<std::string> readMessage();

    void notify(const std::string& method, nlohmann::json params);
    void reply(const nlohmann::json& id, nlohmann::json result);
    void replyError(const nlohmann::json& id, int code, const std::string& message);
    // A server → client request (window/workDoneProgress/create, workspace/configuration). Returns its id.
    std::string request(const std::string& method, nlohmann::json params);

  private:
    void write(const nlohmann::json& message);
    bool fill(); // reads more input into buf_; false at EOF

    int in_, out_;
    std::string buf_;
    size_t pos_ = 0;
    std::mutex writeMutex_;
    long nextRequestId_ = 0;
};

} // namespace skein::lsp
