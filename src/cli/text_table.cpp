#include "cli/text_table.h"

#include <algorithm>

namespace gpuwatch {

TextTable::TextTable(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
}

void TextTable::add(std::vector<std::string> row, std::string_view colour) {
  rows_.push_back(std::move(row));
  colours_.resize(rows_.size());
  colours_.back() = colour;
}

std::string TextTable::render(bool use_colour) const {
  std::vector<std::size_t> widths;
  for (const auto& row : rows_) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const std::string_view colour =
        r == 0 ? terminal_colour::kBold : (r < colours_.size() ? colours_[r] : std::string_view{});
    if (use_colour && !colour.empty()) out += colour;
    for (std::size_t i = 0; i < rows_[r].size(); ++i) {
      out += rows_[r][i];
      if (i + 1 < rows_[r].size()) out.append(widths[i] - rows_[r][i].size() + 2, ' ');
    }
    if (use_colour && !colour.empty()) out += terminal_colour::kReset;
    out += '\n';
  }
  return out;
}

}  // namespace gpuwatch
