// The GPU-memory exhaustion forecast's tunables, each an option detect.oom_forecast.<name>
// (docs/configuration.md); the detector reads them, and so does the health verdict where it judges the same
// thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct OomForecastSettings {
  milliseconds horizon = 30min;
  milliseconds window = 10min;
  milliseconds min_span = 2min;
  milliseconds recent = 1min;
  milliseconds for_duration = 3min;
};

inline constexpr std::array<TunableField<OomForecastSettings>, 5> kOomForecastTunables = {{
    {"horizon", &OomForecastSettings::horizon, TunableUnit::kDuration,
     "Alert when GPU memory is forecast to run out within this", 60000, std::numeric_limits<double>::max(),
     "oom_forecast_horizon"},
    {"window", &OomForecastSettings::window, TunableUnit::kDuration,
     "Least-squares fit over this window of GPU memory used", 60000},
    {"min_span", &OomForecastSettings::min_span, TunableUnit::kDuration,
     "No forecast from less history than this", 1000},
    {"recent", &OomForecastSettings::recent, TunableUnit::kDuration,
     "The newest part of the window must forecast the OOM too", 1000},
    {"for_duration", &OomForecastSettings::for_duration, TunableUnit::kDuration,
     "How long the forecast must hold before it alerts", 0},
}};

}  // namespace gpuwatch::rules
