#include "alerting/json_position.h"

#include <algorithm>

namespace gpuwatch::alerting {

std::string line_column(const std::string& text, std::size_t byte) {
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + end, '\n'));
  const std::size_t line_start = text.rfind('\n', end == 0 ? 0 : end - 1);
  const std::size_t column = line_start == std::string::npos || end == 0 ? end + 1 : end - line_start;
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace gpuwatch::alerting
