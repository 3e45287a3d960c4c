// The NVLink fabric detector's tunables, each an option detect.fabric.<name> (docs/configuration.md).
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct FabricSettings {
  milliseconds registering_for = 5min;
};

inline constexpr std::array<TunableField<FabricSettings>, 1> kFabricTunables = {{
    {"registering_for", &FabricSettings::registering_for, TunableUnit::kDuration,
     "How long a GPU may stay unregistered with the fabric manager (at boot it registers within a minute) "
     "before it alerts",
     0},
}};

}  // namespace gpuwatch::rules
