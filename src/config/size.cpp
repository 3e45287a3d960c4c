#include "config/size.h"

#include <array>
#include <string>
#include <utility>

namespace gpuwatch {

std::optional<std::uint64_t> parse_size(std::string_view v) {
  std::size_t digits = 0;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  const std::uint64_t n = std::stoull(std::string(v.substr(0, digits)));
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 10> kUnits = {
      {{"", 1},
       {"B", 1},
       {"KiB", 1ULL << 10},
       {"MiB", 1ULL << 20},
       {"GiB", 1ULL << 30},
       {"TiB", 1ULL << 40},
       {"KB", 1000},
       {"MB", 1000'000},
       {"GB", 1000'000'000},
       {"TB", 1000'000'000'000}}};
  for (const auto& [unit, scale] : kUnits) {
    if (v.substr(digits) == unit) return n * scale;
  }
  return std::nullopt;
}

std::string format_size(std::uint64_t bytes) {
  for (auto [unit, scale] : {std::pair<const char*, std::uint64_t>{"TiB", 1ULL << 40},
                             {"GiB", 1ULL << 30},
                             {"MiB", 1ULL << 20},
                             {"KiB", 1ULL << 10}}) {
    if (bytes >= scale && bytes % scale == 0) return std::to_string(bytes / scale) + unit;
  }
  return std::to_string(bytes) + "B";
}

}  // namespace gpuwatch
