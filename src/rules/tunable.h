// How a detector's settings struct describes its tunables, so that each becomes an option
// (detect.<detector>.<tunable>) with its unit's parsing, validation and documentation, without a line of
// option code per tunable. A settings file lists its fields once, beside the struct (see xid_settings.h).
#pragma once

#include <chrono>
#include <limits>
#include <string_view>
#include <variant>

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

}  // namespace gpuwatch::rules
