// One drawn screen of `gpuwatch top`, before it meets the terminal: lines of styled spans, each line at most
// as wide as the terminal. The renderer makes it, the terminal paints it; tests read it as text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::top {

enum class Style { kNormal, kTitle, kHeader, kGood, kWarning, kBad, kDim, kBar, kKey };

struct Span {
  std::string text;  // UTF-8; every character one column wide
  Style style = Style::kNormal;
  bool operator==(const Span&) const = default;
};

using ScreenLine = std::vector<Span>;

struct Screen {
  std::vector<ScreenLine> lines;  // no more than the terminal's rows
};

// Columns of a UTF-8 text whose characters are each one column wide (the bars' and plots' blocks are).
std::size_t columns(std::string_view text);
// The text cut to `width` columns, at a character boundary.
std::string cut(std::string_view text, std::size_t width);
// The text cut or padded with spaces to exactly `width` columns.
std::string fit(std::string_view text, std::size_t width);

// The screen as plain text, one line per row, trailing spaces dropped (for tests and the docs).
std::string screen_text(const Screen& screen);

}  // namespace gpuwatch::top
