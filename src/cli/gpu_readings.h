// The readings `top` draws for one GPU and `status` prints, taken out of its snapshot once: the bars, the
// plots, the table and the tests read the same numbers (the throttle reasons, utilization or SM activity).
#pragma once

#include <optional>
#include <string>

#include "core/snapshot.h"

namespace gpuwatch {

struct GpuReadings {
  std::optional<double> utilization;  // 0..1; SM activity on a MIG instance, where NVML has no utilization
  std::optional<double> memory_used, memory_total;  // bytes
  std::optional<double> power, power_limit;         // watts
  std::optional<double> temperature;                // celsius
  std::optional<double> sm_clock;                   // hertz
  std::optional<double> fan;                        // 0..1
  std::string throttle;  // the active clock-event reasons but idle, comma-separated; "" when none
};

GpuReadings readings_of(const DeviceSnapshot& device);

}  // namespace gpuwatch
