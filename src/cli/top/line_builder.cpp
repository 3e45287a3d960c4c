#include "cli/top/line_builder.h"

namespace gpuwatch::top {

LineBuilder& LineBuilder::add(std::string_view text, Style style) {
  if (used_ >= width_ || text.empty()) return *this;
  std::string piece = cut(text, width_ - used_);
  used_ += columns(piece);
  if (!line_.empty() && line_.back().style == style) {
    line_.back().text += piece;
  } else {
    line_.push_back({std::move(piece), style});
  }
  return *this;
}

}  // namespace gpuwatch::top
