// The PCIe uplink-contention detector's tunables, each an option detect.pcie_contention.<name>
// (docs/configuration.md); the detector reads them, and so does the health verdict where it judges the same
// thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct PcieContentionSettings {
  double at_capacity = 0.8;
  double min_share = 0.15;
  unsigned min_gpus = 2;
  milliseconds measure = 1min;
  milliseconds baseline = 3min;
  double min_drop = 0.2;
  milliseconds for_duration = 3min;
};

inline constexpr std::array<TunableField<PcieContentionSettings>, 7> kPcieContentionTunables = {{
    {"at_capacity", &PcieContentionSettings::at_capacity, TunableUnit::kFraction,
     "An uplink is full when its GPUs together move this fraction of what it carries (headers keep real "
     "transfers 10-20% under it)",
     0, 1},
    {"min_share", &PcieContentionSettings::min_share, TunableUnit::kFraction,
     "A GPU takes part when it moves this fraction of the uplink or more", 0, 1},
    {"min_gpus", &PcieContentionSettings::min_gpus, TunableUnit::kCount,
     "GPUs taking part needed: one GPU filling the uplink is not a contest", 1},
    {"measure", &PcieContentionSettings::measure, TunableUnit::kDuration,
     "Throughput is the mean over the newest this much", 1000},
    {"baseline", &PcieContentionSettings::baseline, TunableUnit::kDuration,
     "Each GPU's normal: its mean over this window before the uplink filled", 10000},
    {"min_drop", &PcieContentionSettings::min_drop, TunableUnit::kFraction,
     "A GPU whose mean fell by this fraction is named as slowed", 0, 1},
    {"for_duration", &PcieContentionSettings::for_duration, TunableUnit::kDuration,
     "How long it must last before it alerts", 0},
}};

}  // namespace gpuwatch::rules
