#include "core/duration.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <utility>

namespace gpuwatch {
namespace {

// Longest unit names first so "ms" is not read as "m" followed by garbage.
constexpr std::array<std::pair<std::string_view, std::int64_t>, 6> kUnits = {{
    {"ms", 1},
    {"s", 1000},
    {"m", 60'000},
    {"h", 3'600'000},
    {"d", 86'400'000},
    {"w", 604'800'000},
}};

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t total = 0;
  while (!text.empty()) {
    std::int64_t number = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc{} || end == text.data() || number < 0) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    bool matched = false;
    for (const auto& [unit, scale] : kUnits) {
      if (text.starts_with(unit)) {
        // Past about 292 million years the milliseconds no longer fit: not a duration anyone means.
        std::int64_t part = 0;
        if (__builtin_mul_overflow(number, scale, &part) || __builtin_add_overflow(total, part, &total))
          return std::nullopt;
        text.remove_prefix(unit.size());
        matched = true;
        break;
      }
    }
    if (!matched) return std::nullopt;
  }
  return std::chrono::milliseconds(total);
}

std::string format_duration(std::chrono::milliseconds d) {
  std::int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  for (auto it = kUnits.rbegin(); it != kUnits.rend(); ++it) {
    const auto& [unit, scale] = *it;
    if (ms >= scale) {
      out += std::to_string(ms / scale);
      out += unit;
      ms %= scale;
    }
  }
  return out;
}

}  // namespace gpuwatch
