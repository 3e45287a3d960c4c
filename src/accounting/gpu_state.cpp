#include "accounting/gpu_state.h"

#include <algorithm>

namespace gpuwatch::accounting {

std::string_view state_name(GpuState s) {
  switch (s) {
    case GpuState::kActive:
      return "active";
    case GpuState::kIdleHeld:
      return "idle_held";
    case GpuState::kUnallocated:
      return "unallocated";
    case GpuState::kUnavailable:
      break;
  }
  return "unavailable";
}

double device_utilization(const DeviceSnapshot& d) {
  if (const Sample* u = d.find(Metric::kUtilization)) return u->value;
  double busiest = 0;
  for (const auto& p : d.processes) busiest = std::max(busiest, p.sm_utilization.value_or(0));
  return busiest;
}

GpuState classify(const DeviceSnapshot& d, double active_utilization) {
  if (d.state != DeviceState::kOk) return GpuState::kUnavailable;
  if (device_utilization(d) >= active_utilization && active_utilization > 0) return GpuState::kActive;
  if (!d.holders.empty() || !d.processes.empty()) return GpuState::kIdleHeld;
  return GpuState::kUnallocated;
}

bool accounted(const Snapshot& snapshot, const DeviceSnapshot& d) {
  if (d.identity.is_mig_instance) return true;
  return std::none_of(snapshot.devices.begin(), snapshot.devices.end(), [&](const DeviceSnapshot& other) {
    return other.identity.is_mig_instance && other.identity.parent_uuid == d.identity.uuid;
  });
}

}  // namespace gpuwatch::accounting
