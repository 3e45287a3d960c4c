// Builds one screen line from spans, never wider than the terminal: a span that would overflow is cut there,
// and later ones are dropped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "cli/top/screen.h"

namespace gpuwatch::top {

class LineBuilder {
 public:
  explicit LineBuilder(std::size_t width) : width_(width) {}
  LineBuilder& add(std::string_view text, Style style = Style::kNormal);
  std::size_t used() const { return used_; }
  std::size_t left() const { return width_ - used_; }
  ScreenLine take() { return std::move(line_); }

 private:
  std::size_t width_;
  std::size_t used_ = 0;
  ScreenLine line_;
};

}  // namespace gpuwatch::top
