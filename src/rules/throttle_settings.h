// The throttle detector's tunables, each an option detect.throttle.<name> (docs/configuration.md); the
// detector reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct ThrottleSettings {
  milliseconds sw_thermal_for = 5min;
  double temperature_margin_c = 5;
  milliseconds temperature_for = 2min;
};

inline constexpr Tunables<ThrottleSettings, 3> kThrottleTunables = {
    "throttle",
    {{
        {"sw_thermal_for", &ThrottleSettings::sw_thermal_for, TunableUnit::kDuration,
         "Software thermal slowdown alerts only when sustained this long", 0},
        {"temperature_margin_c", &ThrottleSettings::temperature_margin_c, TunableUnit::kCelsius,
         "\"near slowdown\" is within this many degrees of NVML's slowdown threshold", 0, 50},
        {"temperature_for", &ThrottleSettings::temperature_for, TunableUnit::kDuration,
         "How long the temperature must stay that near before it alerts", 0},
    }}};

}  // namespace gpuwatch::rules
