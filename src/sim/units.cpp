#include "sim/units.h"

#include <array>
#include <charconv>
#include <utility>

#include "core/duration.h"

namespace gpuwatch::sim {
namespace {

// Reads a leading non-negative decimal number; the rest is the unit.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data() || value < 0) return std::nullopt;
  std::string_view unit = text.substr(static_cast<std::size_t>(end - text.data()));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return std::pair{value, unit};
}

constexpr std::array<std::pair<std::string_view, double>, 10> kSizeUnits = {{
    {"B", 1},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"", 1},
}};

}  // namespace

std::optional<double> parse_seconds(std::string_view text) {
  if (auto plain = split_number(text); plain && plain->second.empty()) return plain->first;
  auto d = parse_duration(text);
  if (!d) return std::nullopt;
  return static_cast<double>(d->count()) / 1000.0;
}

std::optional<double> parse_bytes(std::string_view text) {
  auto n = split_number(text);
  if (!n) return std::nullopt;
  for (const auto& [unit, scale] : kSizeUnits)
    if (n->second == unit) return n->first * scale;
  return std::nullopt;
}

std::optional<double> parse_watts(std::string_view text) {
  auto n = split_number(text);
  if (!n || !(n->second.empty() || n->second == "W")) return std::nullopt;
  return n->first;
}

std::optional<double> parse_rate(std::string_view text, bool bytes) {
  const auto slash = text.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view per = text.substr(slash + 1);
  const double seconds = per == "s" ? 1 : per == "m" ? 60 : per == "h" ? 3600 : 0;
  if (seconds == 0) return std::nullopt;
  const std::string_view amount = text.substr(0, slash);
  std::optional<double> value;
  if (bytes) {
    value = parse_bytes(amount);
  } else if (auto n = split_number(amount); n && n->second.empty()) {
    value = n->first;
  }
  if (!value) return std::nullopt;
  return *value / seconds;
}

}  // namespace gpuwatch::sim
