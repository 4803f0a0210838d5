#include "server/lsp/Tokens.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string_view>

namespace skein::lsp {
namespace {

struct Token {
    std::string_view text; // " " for significant whitespace in a directive, "\n" for a directive's end
    uint32_t line, column;
};

bool identChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

constexpr std::array<std::string_view, 23> kPunctuators = {">>=", "<<=", "...", "->", "++", "--", "<<", ">>",
                                                           "<=",  ">=",  "==",  "!=", "&&", "||", "*=", "/=",
                                                           "%=",  "+=",  "-=",  "&=", "^=", "|=", "##"};

// Tokens of a C text, or nullopt when it uses __LINE__ (whose value depends on positions).
std::optional<std::vector<Token>> tokenize(const std::string& s) {
    std::vector<Token> out;
    uint32_t line = 1;
    size_t lineStart = 0;
    bool inDirective = false, atLineStart = true, spacePending = false;
    size_t i = 0;
    auto newline = [&](size_t at) {
        ++line;
        lineStart = at + 1;
        atLineStart = true;
    };
    auto emit = [&](size_t from, size_t to) {
        if (inDirective && spacePending && !out.empty() && out.back().text != "\n")
            out.push_back({" ", line, uint32_t(from - lineStart + 1)});
        spacePending = false;
        out.push_back({std::string_view(s).substr(from, to - from), line, uint32_t(from - lineStart + 1)});
        atLineStart = false;
    };
    while (i < s.size()) {
        char c = s[i];
        if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') { // line splice: the logical line goes on
            newline(i + 1);
            atLineStart = false;
            i += 2;
            continue;
        }
        if (c == '\n') {
            if (inDirective) {
                out.push_back({"\n", line, uint32_t(i - lineStart + 1)});
                inDirective = false;
            }
            spacePending = false;
            newline(i);
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            spacePending = true;
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
            spacePending = true;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            size_t end = s.find("*/", i + 2);
            end = end == std::string::npos ? s.size() : end + 2;
            for (size_t k = i; k < end; ++k)
                if (s[k] == '\n') {
                    newline(k);
                    atLineStart = false; // a comment does not start a line for `#`
                }
            i = end;
            spacePending = true;
            continue;
        }
        if (c == '#' && atLineStart) inDirective = true;
        size_t start = i;
        if (c == '"' || c == '\'') {
            ++i;
            while (i < s.size() && s[i] != c && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
            i = std::min(i + 1, s.size());
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            ++i; // a preprocessing number: digits, letters, '.', and a sign after an exponent letter
            while (i < s.size()) {
                char d = s[i];
                if ((d == '+' || d == '-') && std::strchr("eEpP", s[i - 1]))
                    ++i;
                else if (identChar(d) || d == '.')
                    ++i;
                else
                    break;
            }
        } else if (identChar(c)) {
            while (i < s.size() && identChar(s[i])) ++i;
            if (std::string_view(s).substr(start, i - start) == "__LINE__") return std::nullopt;
        } else {
            size_t len = 1;
            for (std::string_view p : kPunctuators)
                if (std::string_view(s).substr(i, p.size()) == p) {
                    len = p.size();
                    break;
                }
            i += len;
        }
        emit(start, i);
    }
    return out;
}

} // namespace

std::optional<TokenMap> TokenMap::build(const std::string& oldText, const std::string& newText) {
    auto a = tokenize(oldText), b = tokenize(newText);
    if (!a || !b || a->size() != b->size()) return std::nullopt;
    TokenMap m;
    for (size_t k = 0; k < a->size(); ++k) {
        if ((*a)[k].text != (*b)[k].text) return std::nullopt;
        m.from_.push_back({(*a)[k].line, (*a)[k].column});
        m.to_.push_back({(*b)[k].line, (*b)[k].column});
    }
    return m;
}

std::pair<uint32_t, uint32_t> TokenMap::map(uint32_t line, uint32_t column) const {
    // The last token starting at or before the position, on the same line; else the line's first token.
    auto it = std::upper_bound(from_.begin(), from_.end(), Pos{line, column});
    size_t k;
    if (it != from_.begin() && std::prev(it)->line == line) {
        k = size_t(std::prev(it) - from_.begin());
    } else if (it != from_.end() && it->line == line) {
        k = size_t(it - from_.begin());
        return {to_[k].line, to_[k].column};
    } else {
        return {line, column};
    }
    return {to_[k].line, to_[k].column + (column - from_[k].column)};
}

} // namespace skein::lsp
