// The lost-GPU detector's tunables, each an option detect.gpu_lost.<name> (docs/configuration.md); the
// detector reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct LostSettings {
  milliseconds stale_for = 30s;
};

inline constexpr std::array<TunableField<LostSettings>, 1> kLostTunables = {{
    {"stale_for", &LostSettings::stale_for, TunableUnit::kDuration,
     "A hung driver call must last this long before it alerts", 0},
}};

}  // namespace gpuwatch::rules
