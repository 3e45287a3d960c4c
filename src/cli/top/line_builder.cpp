#include "cli/top/line_builder.h"

namespace gpuwatch::top {

LineBuilder& LineBuilder::add(std::string_view text, Style style) {
  if (used_ >= width_ || text.empty()) return *this;
  std::string piece = cut(text, width_ - used_);
  // A process may name itself with control characters (a line feed, an escape sequence): drawn as they are
  // they would move the cursor or break the screen's lines.
  for (char& c : piece) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  used_ += columns(piece);
  if (!line_.empty() && line_.back().style == style) {
    line_.back().text += piece;
  } else {
    line_.push_back({std::move(piece), style});
  }
  return *this;
}

}  // namespace gpuwatch::top
