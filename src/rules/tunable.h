// How a detector's settings struct describes its tunables, so that each becomes an option
// (detect.<detector>.<tunable>) with its unit's parsing, validation and documentation, without a line of
// option code per tunable. A detector lists its fields once, beside its settings struct (see
// src/detect/xid_detector.cpp), under the detector's name.
#pragma once

#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpuwatch::rules {

using std::chrono::milliseconds;
using namespace std::chrono_literals;

// What a tunable's value is, which decides how users write it: 5m, 0.3 or 30%, 3, 1GiB, 5600W, 5C.
enum class TunableUnit { kDuration, kFraction, kCount, kBytes, kWatts, kCelsius };

template <typename Settings>
struct TunableField {
  std::string_view name;  // the option is detect.<detector>.<name>
  std::variant<milliseconds Settings::*, double Settings::*, unsigned Settings::*> member;
  TunableUnit unit;
  std::string_view help;
  double min = 0;  // accepted range, in milliseconds for durations
  double max = std::numeric_limits<double>::max();
  std::string_view option_key = {};  // an option name older than the detect.* scheme, kept for users' files
};

// A detector's tunables: its name in the detector table, and each field of its settings struct users set.
template <typename Settings, std::size_t N>
struct Tunables {
  std::string_view detector;
  std::array<TunableField<Settings>, N> fields;
};

// One tunable of one detector, without its settings struct's type: what the option table and the docs
// show. Values are numbers in the unit's base (milliseconds, bytes, watts, degrees, a fraction, a count).
struct Tunable {
  std::string_view detector;  // as in the detector table: "xid", "memory_leak", ...
  std::string_view name;
  std::string_view option_key;  // "" = detect.<detector>.<name>
  TunableUnit unit;
  std::string_view help;
  double min;
  double max;
  double default_value;  // the settings struct's own default

  std::string key() const;  // the option's name
};

inline constexpr double to_number(milliseconds v) {
  return static_cast<double>(v.count());
}
inline constexpr double to_number(double v) {
  return v;
}
inline constexpr double to_number(unsigned v) {
  return v;
}
inline void from_number(milliseconds& field, double v) {
  field = milliseconds(std::llround(v));
}
inline void from_number(double& field, double v) {
  field = v;
}
inline void from_number(unsigned& field, double v) {
  field = static_cast<unsigned>(std::llround(v));
}

// The defaults of a settings struct's tunables, in their order.
template <typename Settings, std::size_t N>
constexpr std::array<double, N> default_values(const Tunables<Settings, N>& tunables) {
  const Settings defaults{};
  std::array<double, N> out{};
  for (std::size_t i = 0; i < N; ++i)
    out[i] = std::visit([&](auto m) { return to_number(defaults.*m); }, tunables.fields[i].member);
  return out;
}

// The tunables of one detector, in the order its settings list them, with the defaults of its struct (read
// at compile time: at run time gcc suspects the member pointers of the types a struct lacks).
template <const auto& kTunables>
std::vector<Tunable> describe() {
  static constexpr auto kDefaults = default_values(kTunables);
  std::vector<Tunable> out;
  for (std::size_t i = 0; i < kDefaults.size(); ++i) {
    const auto& f = kTunables.fields[i];
    out.push_back({kTunables.detector, f.name, f.option_key, f.unit, f.help, f.min, f.max, kDefaults[i]});
  }
  return out;
}

}  // namespace gpuwatch::rules
