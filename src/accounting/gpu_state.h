// Where a GPU's time goes, judged from one snapshot (docs/cost.md):
//   active       a workload is computing: utilization at least the floor (accounting's active_utilization)
//   idle_held    allocated (the kubelet, the job mapping) or holding processes, but computing below the
//   floor:
//                the waste an allocation-based view (OpenCost) counts as used
//   unallocated  nothing allocated, no process, idle
//   unavailable  not readable: stale (a read missed its deadline) or lost (fell off the bus)
// A MIG-enabled GPU's time is its instances': the GPU itself is not judged (accounted() is false).
#pragma once

#include <array>
#include <string_view>

#include "core/snapshot.h"

namespace gpuwatch::accounting {

enum class GpuState { kActive, kIdleHeld, kUnallocated, kUnavailable };
inline constexpr std::array kGpuStates = {GpuState::kActive, GpuState::kIdleHeld, GpuState::kUnallocated,
                                          GpuState::kUnavailable};

std::string_view state_name(GpuState s);

// Utilization of a device: NVML's when it reads one, else (a MIG instance) its busiest process's.
double device_utilization(const DeviceSnapshot& d);

GpuState classify(const DeviceSnapshot& d, double active_utilization);

// False for a GPU whose MIG instances are in the snapshot: they are accounted instead.
bool accounted(const Snapshot& snapshot, const DeviceSnapshot& d);

}  // namespace gpuwatch::accounting
