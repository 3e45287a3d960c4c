// The noisy-neighbour detector's tunables, each an option detect.noisy_neighbour.<name>
// (docs/configuration.md); the detector reads them, and so does the health verdict where it judges the same
// thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct NoisyNeighbourSettings {
  milliseconds baseline = 3min;
  double busy_utilization = 0.3;
  double min_drop = 0.3;
  milliseconds measure = 1min;
  milliseconds for_duration = 3min;
  milliseconds judge_within = 30min;
};

inline constexpr std::array<TunableField<NoisyNeighbourSettings>, 6> kNoisyNeighbourTunables = {{
    {"baseline", &NoisyNeighbourSettings::baseline, TunableUnit::kDuration,
     "The incumbent's mean SM utilization over this window before an arrival", 10000},
    {"busy_utilization", &NoisyNeighbourSettings::busy_utilization, TunableUnit::kFraction,
     "An incumbent below this before the arrival was idle: never alerts", 0, 1},
    {"min_drop", &NoisyNeighbourSettings::min_drop, TunableUnit::kFraction,
     "Alert when the incumbent's utilization falls by this fraction or more", 0, 1},
    {"measure", &NoisyNeighbourSettings::measure, TunableUnit::kDuration,
     "\"after\" is its mean over the newest this much since the arrival", 1000},
    {"for_duration", &NoisyNeighbourSettings::for_duration, TunableUnit::kDuration,
     "How long the drop must last before it alerts", 0},
    {"judge_within", &NoisyNeighbourSettings::judge_within, TunableUnit::kDuration,
     "A drop that begins later than this after the arrival is not blamed on it", 60000},
}};

}  // namespace gpuwatch::rules
