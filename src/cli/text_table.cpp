#include "cli/text_table.h"

#include <algorithm>

#include "core/utf8.h"

namespace gpuwatch {

TextTable::TextTable(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
}

void TextTable::add(std::vector<std::string> row, std::string_view colour) {
  // Cells show outside text (process names, alert summaries): a line feed there would break the table, an
  // escape sequence would reach the terminal.
  for (auto& cell : row)
    for (char& c : cell)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  rows_.push_back(std::move(row));
  colours_.resize(rows_.size());
  colours_.back() = colour;
}

std::string TextTable::render(bool use_colour, std::size_t max_width,
                              std::span<const std::size_t> drop_order) const {
  std::vector<std::size_t> widths;
  for (const auto& row : rows_) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::vector<bool> shown(widths.size(), true);
  const auto total = [&] {
    std::size_t sum = 0, columns = 0;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      if (!shown[i]) continue;
      sum += widths[i];
      ++columns;
    }
    return sum + (columns > 0 ? 2 * (columns - 1) : 0);
  };
  for (const std::size_t column : drop_order) {
    if (max_width == 0 || total() <= max_width) break;
    if (column < shown.size()) shown[column] = false;
  }
  if (cut_last_min_ > 0 && max_width > 0 && !widths.empty() && shown.back() && total() > max_width) {
    const std::size_t excess = total() - max_width;
    widths.back() =
        std::max(std::min(widths.back(), cut_last_min_), widths.back() - std::min(excess, widths.back()));
  }
  std::string out;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const std::string_view colour =
        r == 0 ? terminal_colour::kBold : (r < colours_.size() ? colours_[r] : std::string_view{});
    if (use_colour && !colour.empty()) out += colour;
    std::string line;
    for (std::size_t i = 0; i < rows_[r].size(); ++i) {
      if (!shown[i]) continue;
      if (!line.empty()) line.append(2, ' ');
      const std::string& cell = rows_[r][i];
      if (cell.size() > widths[i]) {  // only the last column is cut
        line += to_valid_utf8(cell, widths[i]);
        continue;
      }
      line += cell;
      line.append(widths[i] - cell.size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    if (use_colour && !colour.empty()) out += terminal_colour::kReset;
    out += '\n';
  }
  return out;
}

}  // namespace gpuwatch
