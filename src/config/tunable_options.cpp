#include "config/tunable_options.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "config/size.h"
#include "core/duration.h"
#include "detect/detector_table.h"

namespace gpuwatch {
namespace {

std::string format_number(double v) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%g", v);
  return text.data();
}

// A plain number, with an optional unit suffix ("5600W", "5C") or, for fractions, a percentage ("30%").
std::optional<double> parse_number(std::string_view v, std::string_view suffix, double suffix_scale) {
  if (!suffix.empty() && v.ends_with(suffix)) {
    v.remove_suffix(suffix.size());
  } else {
    suffix_scale = 1;
  }
  const std::string text(v);
  char* end = nullptr;
  const double n = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(n)) return std::nullopt;
  return n * suffix_scale;
}

std::string_view value_name(rules::TunableUnit unit) {
  switch (unit) {
    case rules::TunableUnit::kDuration:
      return "DURATION";
    case rules::TunableUnit::kFraction:
      return "FRACTION";
    case rules::TunableUnit::kCount:
      return "N";
    case rules::TunableUnit::kBytes:
      return "SIZE";
    case rules::TunableUnit::kWatts:
      return "WATTS";
    case rules::TunableUnit::kCelsius:
      return "CELSIUS";
  }
  return "VALUE";
}

std::string show_tunable(const rules::Tunable& t, double v) {
  switch (t.unit) {
    case rules::TunableUnit::kDuration:
      return format_duration(std::chrono::milliseconds(std::llround(v)));
    case rules::TunableUnit::kBytes:
      return format_size(static_cast<std::uint64_t>(std::llround(v)));
    case rules::TunableUnit::kCount:
      return std::to_string(std::llround(v));
    case rules::TunableUnit::kFraction:
    case rules::TunableUnit::kWatts:
    case rules::TunableUnit::kCelsius:
      return format_number(v);
  }
  return format_number(v);
}

// What the value must look like, for an error message: "expected a duration of at least 1m, such as 30m".
std::string expected_tunable(const rules::Tunable& t) {
  const bool bounded = t.max < std::numeric_limits<double>::max();
  auto range = [&](const std::string& lo, const std::string& hi) {
    return bounded ? " from " + lo + " to " + hi : " of at least " + lo;
  };
  switch (t.unit) {
    case rules::TunableUnit::kDuration:
      return "expected a duration" +
             range(show_tunable(t, t.min), bounded ? show_tunable(t, t.max) : std::string()) +
             ", such as 30s, 5m or 1h";
    case rules::TunableUnit::kFraction:
      return "expected a fraction" + range(format_number(t.min), format_number(t.max)) +
             ", such as 0.3 or 30%";
    case rules::TunableUnit::kCount:
      return "expected a whole number" + range(show_tunable(t, t.min), show_tunable(t, t.max));
    case rules::TunableUnit::kBytes:
      return "expected a size" + range(format_size(static_cast<std::uint64_t>(t.min)), "") +
             ", such as 512MiB or 1GiB";
    case rules::TunableUnit::kWatts:
      return t.min == 0 ? "expected watts, such as 5600 or 5600W, or 0 for off"
                        : "expected watts" + range(format_number(t.min), format_number(t.max));
    case rules::TunableUnit::kCelsius:
      return "expected degrees Celsius" + range(format_number(t.min), format_number(t.max)) +
             ", such as 5 or 5C";
  }
  return "expected a number";
}

std::optional<double> parse_tunable(const rules::Tunable& t, std::string_view v) {
  switch (t.unit) {
    case rules::TunableUnit::kDuration: {
      const auto d = parse_duration(v);
      if (!d) return std::nullopt;
      return static_cast<double>(d->count());
    }
    case rules::TunableUnit::kFraction:
      return parse_number(v, "%", 0.01);
    case rules::TunableUnit::kCount:
      if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
      return std::stod(std::string(v));
    case rules::TunableUnit::kBytes: {
      const auto n = parse_size(v);
      if (!n) return std::nullopt;
      return static_cast<double>(*n);
    }
    case rules::TunableUnit::kWatts:
      return parse_number(v, "W", 1);
    case rules::TunableUnit::kCelsius:
      return parse_number(v, "C", 1);
  }
  return std::nullopt;
}

OptionSpec tunable_option(const rules::Tunable& t, std::string_view key) {
  return {key, value_name(t.unit), t.help, false,
          [&t](AgentOptions& o, std::string_view v) -> std::optional<std::string> {
            const auto n = parse_tunable(t, v);
            if (!n || *n < t.min || *n > t.max) return expected_tunable(t);
            o.detectors.set(t.detector, t.name, *n);
            return std::nullopt;
          },
          [&t](const AgentOptions& o) { return show_tunable(t, o.detectors.value(t)); },
          // `status` judges its one reading by the same settings.
          kAgentCommand | kStatusCommand | kTopCommand};
}

// The tunables of every detector of the table, in its order, each beside its option's name (kept for the
// life of the program: the option table holds views of both).
const std::vector<std::pair<const rules::Tunable*, std::string>>& detector_tunables() {
  static const auto kTunables = [] {
    std::vector<std::pair<const rules::Tunable*, std::string>> out;
    for (const auto& detector : detect::detector_table())
      for (const auto& t : detector.tunables) out.emplace_back(&t, t.key());
    return out;
  }();
  return kTunables;
}

}  // namespace

std::vector<OptionSpec> tunable_options() {
  std::vector<OptionSpec> out;
  for (const auto& [tunable, key] : detector_tunables()) out.push_back(tunable_option(*tunable, key));
  return out;
}

}  // namespace gpuwatch
