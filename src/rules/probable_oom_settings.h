// The probable-OOM detector's tunables, each an option detect.probable_oom.<name> (docs/configuration.md);
// the detector reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct ProbableOomSettings {
  double full_ratio = 0.95;
  milliseconds hold = 15min;
};

inline constexpr std::array<TunableField<ProbableOomSettings>, 2> kProbableOomTunables = {{
    {"full_ratio", &ProbableOomSettings::full_ratio, TunableUnit::kFraction,
     "GPU memory used / total at an exited process's last sample that makes its exit a probable OOM", 0, 1},
    {"hold", &ProbableOomSettings::hold, TunableUnit::kDuration, "How long the alert holds after the exit",
     1000},
}};

}  // namespace gpuwatch::rules
