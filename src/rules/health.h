// A per-GPU health verdict for `gpuwatch status` (its table and exit code) and the JSON API: the rules of the
// detectors that can be judged from one reading, with the detectors' catalogues (XIDs, throttle reasons) and
// settings, so that one change of a threshold moves the alerts, the verdict and the exit code together. It is
// a point-in-time verdict: what needs history (rates, repeats, trends, `for` durations) is the detectors'
// alone (see docs/health.md).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "rules/detector_settings.h"
#include "rules/verdict.h"

namespace gpuwatch {

struct Health {
  HealthVerdict verdict = HealthVerdict::kHealthy;
  std::vector<std::string> reasons;  // one short sentence each, worst first
};

Health assess_health(const DeviceSnapshot& device, const rules::DetectorSettings& settings = {});

// The alerts whose rules the verdict applies: a GPU that would raise one of them is critical for a page and
// a warning for a ticket. The detectors' other alerts need history or the kernel log, or are about the
// workloads on the GPU rather than the GPU.
std::span<const std::string_view> health_alerts();

}  // namespace gpuwatch
