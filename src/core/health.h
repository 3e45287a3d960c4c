// A per-GPU health verdict for `gpuwatch status` and the JSON API: the DCGM health-watch thresholds applied
// to one snapshot (see docs/health.md). It is a point-in-time verdict, not an alert: alerting rules with
// windows and `for:` durations live in the rules engine.
#pragma once

#include <string>
#include <vector>

#include "core/snapshot.h"

namespace gpuwatch {

enum class HealthVerdict { kHealthy, kWarning, kCritical };

struct Health {
  HealthVerdict verdict = HealthVerdict::kHealthy;
  std::vector<std::string> reasons;  // one short sentence each, worst first
};

Health assess_health(const DeviceSnapshot& device);

const char* to_string(HealthVerdict v);

}  // namespace gpuwatch
