// Plain-text tables for the commands' terminal output: columns as wide as their widest cell, two spaces
// apart, the header in bold and a row in a colour of its own when colour is on.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

namespace terminal_colour {
inline constexpr std::string_view kReset = "\033[0m", kBold = "\033[1m", kGreen = "\033[32m",
                                  kYellow = "\033[33m", kRed = "\033[31m", kDim = "\033[2m";
}  // namespace terminal_colour

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  // A row; `colour` (one of terminal_colour's) is used only when render is asked for colour. Control
  // characters in its cells are shown as '?'.
  void add(std::vector<std::string> row, std::string_view colour = {});
  // Every column, or, with a `max_width` (a terminal's columns; 0: no limit), as many as fit: the columns
  // named in `drop_order` are left out in that order until the table fits or none is left to drop.
  std::string render(bool use_colour, std::size_t max_width = 0,
                     std::span<const std::size_t> drop_order = {}) const;
  // With a max_width, cells of the last column (free text, such as a command line) are cut, ending in "...",
  // where the table is still too wide after the drops: down to `min_width` bytes, no less.
  void cut_last_column(std::size_t min_width) { cut_last_min_ = min_width; }

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::string_view> colours_;
  std::size_t cut_last_min_ = 0;  // 0: the last column is never cut
};

}  // namespace gpuwatch
