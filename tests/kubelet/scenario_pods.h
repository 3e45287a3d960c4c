// What a scenario's kubelet allocates, asked of the simulator itself (gpuwatchSimPodResources: the same GPU
// and MIG UUIDs the agent reads), for a fake kubelet to serve; and, when proc_dir is given, the scenario's
// /proc tree written there in the same simulator session, where the agent reads it.
#pragma once

#include <string>
#include <vector>

#include "sources/kubelet/device_allocation.h"

namespace gpuwatch::test {

std::vector<kubelet::DeviceAllocation> scenario_pods(const std::string& sim_library,
                                                     const std::string& scenario,
                                                     const std::string& proc_dir = "");

}  // namespace gpuwatch::test
