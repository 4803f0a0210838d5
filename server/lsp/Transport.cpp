#include "server/lsp/Transport.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace skein::lsp {

namespace {
constexpr size_t kMaxMessageBytes = 64u << 20; // a frame larger than this is a broken client
}

bool Transport::fill() {
    if (pos_ > 0 && pos_ == buf_.size()) {
        buf_.clear();
        pos_ = 0;
    } else if (pos_ > (1u << 20)) {
        buf_.erase(0, pos_);
        pos_ = 0;
    }
    char chunk[65536];
    for (;;) {
        ssize_t n = ::read(in_, chunk, sizeof chunk);
        if (n > 0) {
            buf_.append(chunk, size_t(n));
            return true;
        }
        if (n < 0 && errno == EINTR) continue;
        return false;
    }
}

std::optional<std::string> Transport::readMessage() {
    for (;;) {
        // Header block: lines up to an empty line.
        size_t end;
        while ((end = buf_.find("\r\n\r\n", pos_)) == std::string::npos) {
            if (buf_.size() - pos_ > 8192) { // no header end in sight: drop garbage, keep a tail
                pos_ = buf_.size() - 3;
            }
            if (!fill()) return std::nullopt;
        }
        std::string header = buf_.substr(pos_, end - pos_);
        pos_ = end + 4;
        size_t length = 0;
        bool found = false;
        size_t lineStart = 0;
        while (lineStart <= header.size()) {
            size_t lineEnd = header.find("\r\n", lineStart);
            if (lineEnd == std::string::npos) lineEnd = header.size();
            std::string line = header.substr(lineStart, lineEnd - lineStart);
            constexpr std::string_view key = "content-length:";
            if (line.size() > key.size()) {
                std::string lower = line.substr(0, key.size());
                for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
                if (lower == key) {
                    size_t v = key.size();
                    while (v < line.size() && line[v] == ' ') ++v;
                    auto [p, ec] = std::from_chars(line.data() + v, line.data() + line.size(), length);
                    found = ec == std::errc() && length <= kMaxMessageBytes;
                }
            }
            lineStart = lineEnd + 2;
        }
        if (!found) continue; // a frame without a usable Content-Length: skip its header
        while (buf_.size() - pos_ < length)
            if (!fill()) return std::nullopt;
        std::string body = buf_.substr(pos_, length);
        pos_ += length;
        return body;
    }
}

void Transport::write(const nlohmann::json& message) {
    std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    std::lock_guard lock(writeMutex_);
    const char* p = frame.data();
    size_t left = frame.size();
    while (left > 0) {
        ssize_t n = ::write(out_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; // the client is gone; the read side will see EOF
        p += n;
        left -= size_t(n);
    }
}

void Transport::notify(const std::string& method, nlohmann::json params) {
    write({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void Transport::reply(const nlohmann::json& id, nlohmann::json result) {
    write({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Transport::replyError(const nlohmann::json& id, int code, const std::string& message) {
    write({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

std::string Transport::request(const std::string& method, nlohmann::json params) {
    std::string id;
    {
        std::lock_guard lock(writeMutex_);
        id = "skein-" + std::to_string(++nextRequestId_);
    }
    write({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
}

} // namespace skein::lsp
