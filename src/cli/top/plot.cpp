#include "cli/top/plot.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "cli/top/screen.h"

namespace gpuwatch::top {

std::string bar(std::optional<double> ratio, std::size_t width, std::string_view label,
                std::string_view short_label) {
  if (width < 3) return std::string(width, ' ');
  const std::size_t inner = width - 2;
  const std::string_view fitting = columns(label) > inner && !short_label.empty() ? short_label : label;
  const std::string text = ratio ? std::string(fitting) : std::string("n/a");
  const double r = ratio ? std::clamp(*ratio, 0.0, 1.0) : 0.0;
  const auto filled = static_cast<std::size_t>(std::lround(r * static_cast<double>(inner)));
  std::string body(inner, ' ');
  std::fill_n(body.begin(), filled, '|');
  // The label over the bar's right end, as htop writes it.
  const std::string shown = cut(text, inner);
  body.replace(inner - shown.size(), shown.size(), shown);
  return "[" + body + "]";
}

std::string sparkline(const std::deque<double>& series, std::size_t width) {
  static constexpr std::array<std::string_view, 8> kBlocks = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::string out;
  const std::size_t shown = std::min(series.size(), width);
  out.append(width - shown, ' ');
  for (std::size_t i = series.size() - shown; i < series.size(); ++i) {
    const double v = series[i];
    if (std::isnan(v)) {
      out += ' ';
      continue;
    }
    const auto level = static_cast<std::size_t>(std::lround(std::clamp(v, 0.0, 1.0) * 7.0));
    out += kBlocks[level];
  }
  return out;
}

}  // namespace gpuwatch::top
