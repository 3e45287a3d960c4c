#include "core/relative_time.h"

#include "core/duration.h"

namespace gpuwatch {

std::optional<std::int64_t> parse_relative_time(std::string_view text, std::int64_t now_ms) {
  if (!text.starts_with("now")) return std::nullopt;
  const std::string_view offset = text.substr(3);
  if (offset.empty()) return now_ms;
  if (offset[0] != '-' && offset[0] != '+') return std::nullopt;
  const auto d = parse_duration(offset.substr(1));
  if (!d) return std::nullopt;
  return offset[0] == '-' ? now_ms - d->count() : now_ms + d->count();
}

}  // namespace gpuwatch
