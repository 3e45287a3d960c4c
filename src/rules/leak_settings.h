// The process memory-leak detector's tunables, each an option detect.memory_leak.<name>
// (docs/configuration.md); the detector reads them, and so does the health verdict where it judges the same
// thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct LeakSettings {
  milliseconds window = 1h;
  double min_growth_bytes = 1024.0 * 1024 * 1024;
  unsigned bins = 6;
  unsigned rising_bins = 5;
};

inline constexpr std::array<TunableField<LeakSettings>, 4> kLeakTunables = {{
    {"window", &LeakSettings::window, TunableUnit::kDuration, "Growth must span this window", 60000},
    {"min_growth_bytes", &LeakSettings::min_growth_bytes, TunableUnit::kBytes,
     "The least growth of a process's GPU memory over the window that is a leak", 1},
    {"bins", &LeakSettings::bins, TunableUnit::kCount,
     "The window is split into this many bins; their means must rise", 2, 1000},
    {"rising_bins", &LeakSettings::rising_bins, TunableUnit::kCount,
     "How many of the bins-1 steps between bins must rise", 1, 1000},
}};

}  // namespace gpuwatch::rules
