// Why an SLO burns, on the GPUs that serve it: the gpuwatch alerts (pending, firing, or resolved after the
// burn began) on those GPUs that overlap the burn, ranked by how well each explains it (docs/slo.md):
//   1. a condition that began before the burn (or within a minute after it) ranks above one that began later:
//      a cause precedes its effect;
//   2. then the closer its start to the burn's start, the better;
//   3. then page-severity conditions before ticket ones;
//   4. then a gpuwatch alert before a measured degradation (measured_degradations.h),
//   5. then by GPU index and alert name, so the order is stable.
// The SLO's own alerts (those with an slo label) are never causes.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "alerting/alert.h"

namespace gpuwatch::slo {

struct GpuCause {
  std::string gpu;   // the gpu label, e.g. "3"
  std::string uuid;  // "" when the alert has none
  std::string alertname;
  std::int64_t began_ms = 0;
  std::string measured;      // the alert's description: what it measured
  bool is_measured = false;  // a measured degradation, not a gpuwatch alert (no runbook of its own)
};

std::vector<GpuCause> rank_gpu_causes(const std::set<std::string>& gpus,
                                      std::span<const alerting::Alert> alerts, std::int64_t burn_began_ms);

// One line for an annotation: `gpu="3" uuid=GPU-... GpuThermalThrottle since 2026-12-01T19:03:00Z:
// <measured>` for each cause, most likely first, joined by "; ", or "no GPU cause found".
std::string describe_causes(const std::vector<GpuCause>& causes);

}  // namespace gpuwatch::slo
