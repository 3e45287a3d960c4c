// A device the kubelet allocated to a pod's container, as its PodResources API lists it: the resource
// (nvidia.com/gpu, nvidia.com/mig-1g.10gb) and the device plugin's id for it, which for NVIDIA's plugin is
// the GPU's or MIG instance's UUID. A GPU allocated with nothing running on it is listed all the same.
#pragma once

#include <string>
#include <vector>

namespace gpuwatch::kubelet {

struct DeviceAllocation {
  std::string resource;   // "nvidia.com/gpu"
  std::string device_id;  // "GPU-...", "MIG-..."
  std::string namespace_name;
  std::string pod;
  std::string container;
  bool operator==(const DeviceAllocation&) const = default;
};

// What one read of the kubelet gave: the allocations (List) and every allocatable device
// (GetAllocatableResources, empty where the kubelet does not offer it).
struct PodResourcesReading {
  std::vector<DeviceAllocation> allocations;
  std::vector<std::string> allocatable;  // device ids
  bool operator==(const PodResourcesReading&) const = default;
};

}  // namespace gpuwatch::kubelet
