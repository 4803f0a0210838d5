#include "server/lsp/Text.h"

namespace skein::lsp {
namespace {

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// UTF-16 code units of the UTF-8 sequence starting with byte c.
size_t utf8Length(unsigned char c) {
    if (c < 0x80) return 1;
    if ((c >> 5) == 0x6) return 2;
    if ((c >> 4) == 0xE) return 3;
    if ((c >> 3) == 0x1E) return 4;
    return 1; // invalid byte: count it as one unit
}

// Byte offset within `line` of UTF-16 column `units` (clamped to the line's end).
size_t byteOfUnits(std::string_view line, uint32_t units) {
    size_t b = 0;
    uint32_t u = 0;
    while (b < line.size() && u < units) {
        size_t n = utf8Length(static_cast<unsigned char>(line[b]));
        u += n == 4 ? 2 : 1;
        b += n;
    }
    return std::min(b, line.size());
}

uint32_t unitsOfBytes(std::string_view line, size_t bytes) {
    size_t b = 0;
    uint32_t u = 0;
    bytes = std::min(bytes, line.size());
    while (b < bytes) {
        size_t n = utf8Length(static_cast<unsigned char>(line[b]));
        u += n == 4 ? 2 : 1;
        b += n;
    }
    return u;
}

} // namespace

std::optional<std::string> uriToPath(const std::string& uri) {
    constexpr std::string_view scheme = "file://";
    if (uri.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
    std::string out;
    for (size_t i = scheme.size(); i < uri.size(); ++i) {
        if (uri[i] == '%' && i + 2 < uri.size() && hexValue(uri[i + 1]) >= 0 && hexValue(uri[i + 2]) >= 0) {
            out += char(hexValue(uri[i + 1]) * 16 + hexValue(uri[i + 2]));
            i += 2;
        } else {
            out += uri[i];
        }
    }
    if (out.empty() || out[0] != '/') return std::nullopt; // file://host/... is not supported
    return out;
}

std::string pathToUri(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out = "file://";
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::optional<size_t> offsetOf(const std::string& text, Position p) {
    size_t start = 0;
    for (uint32_t l = 0; l < p.line; ++l) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) return std::nullopt; // past the last line
        start = nl + 1;
    }
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    return start + byteOfUnits(std::string_view(text).substr(start, end - start), p.character);
}

bool applyChange(std::string& text, const TextDocumentContentChangeEvent& change) {
    if (!change.range) {
        text = change.text;
        return true;
    }
    if (change.range->end < change.range->start) return false;
    auto a = offsetOf(text, change.range->start), b = offsetOf(text, change.range->end);
    if (!a || !b || *b < *a) return false;
    text.replace(*a, *b - *a, change.text);
    return true;
}

LineIndex::LineIndex(const std::string& text) : text_(text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') starts_.push_back(i + 1);
}

std::string_view LineIndex::lineText(uint32_t line0) const {
    if (line0 >= starts_.size()) return {};
    size_t s = starts_[line0];
    size_t e = line0 + 1 < starts_.size() ? starts_[line0 + 1] - 1 : text_.size();
    std::string_view v = std::string_view(text_).substr(s, e - s);
    if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
    return v;
}

Position LineIndex::position(uint32_t line1, uint32_t column1) const {
    if (line1 == 0) return {0, 0};
    uint32_t l = std::min(line1 - 1, lines() - 1);
    std::string_view t = lineText(l);
    if (column1 == 0) {
        size_t first = t.find_first_not_of(" \t");
        return {l, unitsOfBytes(t, first == std::string_view::npos ? 0 : first)};
    }
    return {l, unitsOfBytes(t, column1 - 1)};
}

Range LineIndex::statementRange(uint32_t line1, uint32_t column1) const {
    Position start = position(line1, column1);
    std::string_view t = lineText(start.line);
    size_t last = t.find_last_not_of(" \t");
    size_t endByte = last == std::string_view::npos ? t.size() : last + 1;
    // Up to the end of the statement when it ends on this line (`x = 1; return 0;` underlines `x = 1;`).
    if (column1 > 0) {
        size_t semi = t.find(';', column1 - 1);
        if (semi != std::string_view::npos) endByte = std::min(endByte, semi + 1);
    }
    uint32_t endUnits = unitsOfBytes(t, endByte);
    Position end{start.line, std::max(endUnits, start.character)};
    if (end.character == start.character) end.character = start.character + 1;
    return {start, end};
}

std::pair<uint32_t, uint32_t> LineIndex::skeinPosition(Position p) const {
    std::string_view t = lineText(p.line);
    return {p.line + 1, uint32_t(byteOfUnits(t, p.character)) + 1};
}

} // namespace skein::lsp
