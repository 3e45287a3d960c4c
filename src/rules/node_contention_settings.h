// The node power-contention detector's tunables, each an option detect.node_contention.<name>
// (docs/configuration.md); the detector reads them, and so does the health verdict where it judges the same
// thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct NodeContentionSettings {
  double power_budget_watts = 0;
  double at_budget = 0.97;
  milliseconds baseline = 3min;
  double busy_utilization = 0.3;
  double min_drop = 0.15;
  milliseconds measure = 1min;
  unsigned min_gpus = 2;
  milliseconds for_duration = 3min;
};

inline constexpr std::array<TunableField<NodeContentionSettings>, 8> kNodeContentionTunables = {{
    {"power_budget_watts", &NodeContentionSettings::power_budget_watts, TunableUnit::kWatts,
     "Power the node's supply can give all GPUs together (the operator's figure); alert when they draw it "
     "and slow down; 0 = off",
     0, 1e6, "node_power_budget_watts"},
    {"at_budget", &NodeContentionSettings::at_budget, TunableUnit::kFraction,
     "A total at or above this fraction of the budget is at it (capped nodes hover just under)", 0.5, 1},
    {"baseline", &NodeContentionSettings::baseline, TunableUnit::kDuration,
     "Each GPU's normal: its means over this window before the node hit the budget", 10000},
    {"busy_utilization", &NodeContentionSettings::busy_utilization, TunableUnit::kFraction,
     "Only GPUs this busy before and now count", 0, 1},
    {"min_drop", &NodeContentionSettings::min_drop, TunableUnit::kFraction,
     "A GPU slowed: its SM clock down by this fraction or more", 0, 1},
    {"measure", &NodeContentionSettings::measure, TunableUnit::kDuration,
     "\"now\" is the mean over the newest this much", 1000},
    {"min_gpus", &NodeContentionSettings::min_gpus, TunableUnit::kCount,
     "Slowed GPUs needed: one GPU alone is a per-GPU matter", 1},
    {"for_duration", &NodeContentionSettings::for_duration, TunableUnit::kDuration,
     "How long it must last before it alerts", 0},
}};

}  // namespace gpuwatch::rules
