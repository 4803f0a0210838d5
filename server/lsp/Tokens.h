#pragma once
// A text-level test for "only comments or whitespace changed", for the preview that moves the diagnostics of
// a comment/formatting edit before the program is even compiled (the compiled check confirms it: see
// Job.cpp). A small C tokenizer: comments are dropped, whitespace is dropped except inside preprocessor
// directives (where it can matter: `#define F(x)` is not `#define F (x)`), multi-character punctuators are
// munched maximally (so `a--b` differs from `a - -b`). A text that names __LINE__ never counts as unchanged.
#include <optional>
#include <string>
#include <vector>

namespace skein::lsp {

// Maps 1-based (line, byte column) positions of the old text to the new one, token by token.
class TokenMap {
  public:
    // nullopt when the two texts differ in more than comments and whitespace (or use __LINE__).
    static std::optional<TokenMap> build(const std::string& oldText, const std::string& newText);
    // The new position of an old one: the same token's, offset within it; a position between tokens follows
    // the token before it on its line (or the line's first token). Unchanged when its line has no token.
    std::pair<uint32_t, uint32_t> map(uint32_t line, uint32_t column) const;

  private:
    struct Pos {
        uint32_t line, column;
        auto operator<=>(const Pos&) const = default;
    };
    std::vector<Pos> from_, to_; // token starts, in order (from_ is sorted)
};

} // namespace skein::lsp
