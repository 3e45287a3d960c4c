// The idle-waste detector's tunables, each an option detect.idle_waste.<name> (docs/configuration.md); the
// detector reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct IdleSettings {
  milliseconds window = 24h;
  double utilization_below = 0.2;
  double held_bytes = 1024.0 * 1024 * 1024;
  double held_fraction = 0.9;
};

inline constexpr std::array<TunableField<IdleSettings>, 4> kIdleTunables = {{
    {"window", &IdleSettings::window, TunableUnit::kDuration,
     "Utilization is averaged over this window (kept as 24 bins)", 3600000},
    {"utilization_below", &IdleSettings::utilization_below, TunableUnit::kFraction,
     "A mean utilization under this is idle", 0, 1},
    {"held_bytes", &IdleSettings::held_bytes, TunableUnit::kBytes,
     "While processes hold at least this much GPU memory", 0},
    {"held_fraction", &IdleSettings::held_fraction, TunableUnit::kFraction,
     "In at least this fraction of the samples (with held_bytes)", 0, 1},
}};

}  // namespace gpuwatch::rules
