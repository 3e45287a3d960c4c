// The PCIe link detector's tunables, each an option detect.pcie.<name> (docs/configuration.md); the detector
// reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct PcieSettings {
  milliseconds replay_window = 5min;
  double busy_utilization = 0.2;
  milliseconds downtrain_for = 1min;
  milliseconds uncorrectable_hold = 1h;
};

inline constexpr Tunables<PcieSettings, 4> kPcieTunables = {
    "pcie",
    {{
        {"replay_window", &PcieSettings::replay_window, TunableUnit::kDuration,
         "The replay rate is measured over this window", 60000},
        {"busy_utilization", &PcieSettings::busy_utilization, TunableUnit::kFraction,
         "A link below its maximum counts only while the GPU is this busy (idle GPUs lower their generation)",
         0, 1},
        {"downtrain_for", &PcieSettings::downtrain_for, TunableUnit::kDuration,
         "A degraded link alerts when it lasts this long", 0},
        {"uncorrectable_hold", &PcieSettings::uncorrectable_hold, TunableUnit::kDuration,
         "An uncorrectable AER error alerts this long", 1000},
    }}};

}  // namespace gpuwatch::rules
