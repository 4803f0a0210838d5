#pragma once
// Document text helpers: file URIs, incremental edits in LSP coordinates (0-based lines, UTF-16 columns), and
// Skein's 1-based byte positions converted to LSP positions.
#include <optional>
#include <string>
#include <vector>

#include "server/lsp/Protocol.h"

namespace skein::lsp {

// file:///a/b%20c.c → /a/b c.c; nullopt for other schemes.
std::optional<std::string> uriToPath(const std::string& uri);
std::string pathToUri(const std::string& path);

// Applies one content change (full when it has no range). False when the range lies outside the text.
bool applyChange(std::string& text, const TextDocumentContentChangeEvent& change);

// Byte offset of an LSP position (a column past the line's end is clamped to it); nullopt for a line past the
// end of the text.
std::optional<size_t> offsetOf(const std::string& text, Position p);

// Line starts of a text, for converting many positions.
class LineIndex {
  public:
    explicit LineIndex(const std::string& text);
    uint32_t lines() const { return uint32_t(starts_.size()); }
    // Skein's 1-based line and byte column (0 = unknown) → LSP position.
    Position position(uint32_t line1, uint32_t column1) const;
    // A range from the location to the end of its statement on that line, or of the line's content (what an
    // editor underlines).
    Range statementRange(uint32_t line1, uint32_t column1) const;
    // The 1-based line/byte column of an LSP position.
    std::pair<uint32_t, uint32_t> skeinPosition(Position p) const;
    std::string_view lineText(uint32_t line0) const;

  private:
    const std::string& text_;
    std::vector<size_t> starts_;
};

} // namespace skein::lsp
