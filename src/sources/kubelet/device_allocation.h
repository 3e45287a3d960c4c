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

// A device given to a pod's container through Dynamic Resource Allocation: one ClaimResource of a
// ResourceClaim the container uses. The kubelet names it by its CDI devices (what the runtime injected:
// "nvidia.com/gpu=0", "nvidia.com/gpu=GPU-<uuid>", "nvidia.com/gpu=0:1" for a MIG device) and, since
// Kubernetes 1.32, by the driver, pool and device of the ResourceSlice it came from (dra_device.h says which
// of these name a GPU).
struct ClaimAllocation {
  std::string namespace_name;  // the pod's
  std::string pod;
  std::string container;
  std::string claim_namespace;
  std::string claim_name;
  std::string driver;  // "gpu.nvidia.com"; "" from a kubelet before 1.32
  std::string pool;    // the node's name, for NVIDIA's driver
  std::string device;  // "gpu-0"
  std::vector<std::string> cdi_devices;
  bool operator==(const ClaimAllocation&) const = default;
};

// What one read of the kubelet gave: the allocations (List), the DRA claims' devices (List's
// dynamic_resources) and every allocatable device (GetAllocatableResources, empty where the kubelet does
// not offer it).
struct PodResourcesReading {
  std::vector<DeviceAllocation> allocations;
  std::vector<ClaimAllocation> claims;
  std::vector<std::string> allocatable;  // device ids
  bool operator==(const PodResourcesReading&) const = default;
};

}  // namespace gpuwatch::kubelet
