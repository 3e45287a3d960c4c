// The one rule the agent evaluates until the detector set takes over: a GPU that NVML reports lost (fell
// off the bus, GPU_IS_LOST) raises GpuLost at once, as a page.
#pragma once

#include <vector>

#include "alerting/condition.h"
#include "core/snapshot.h"

namespace gpuwatch::alerting {

std::vector<Condition> basic_conditions(const Snapshot& snapshot);

}  // namespace gpuwatch::alerting
