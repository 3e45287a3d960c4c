#include "cli/gpu_readings.h"

namespace gpuwatch {
namespace {

std::optional<double> value(const DeviceSnapshot& d, Metric m, std::string_view label0 = {}) {
  const Sample* s = d.find(m, label0);
  return s ? std::optional<double>(s->value) : std::nullopt;
}

}  // namespace

GpuReadings readings_of(const DeviceSnapshot& d) {
  GpuReadings r;
  if (d.state == DeviceState::kLost) return r;
  r.utilization = value(d, Metric::kUtilization);
  if (!r.utilization) r.utilization = value(d, Metric::kSmActive);
  r.memory_used = value(d, Metric::kMemoryUsed);
  r.memory_total = value(d, Metric::kMemoryTotal);
  r.power = value(d, Metric::kPower);
  r.power_limit = value(d, Metric::kPowerLimit);
  r.temperature = value(d, Metric::kTemperature);
  r.sm_clock = value(d, Metric::kClock, "sm");
  r.fan = value(d, Metric::kFanSpeed);
  for (const auto& s : d.samples) {
    // gpu_idle is how an idle GPU rests, not a throttle.
    if (s.metric == Metric::kClockEventActive && s.value > 0 && s.labels[0] != "gpu_idle") {
      r.throttle += (r.throttle.empty() ? "" : ",") + s.labels[0];
    }
  }
  return r;
}

}  // namespace gpuwatch
