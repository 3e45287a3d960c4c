// Which GPU a DRA claim's device is. The kubelet does not say in NVML's terms; what it says is the CDI
// device names the runtime injected and (Kubernetes 1.32+) the driver's device name, so the GPU is read from
// the forms NVIDIA's tools write:
//   - a CDI name "nvidia.com/gpu=<n>" (nvidia-ctk's spec: GPU index n), "nvidia.com/gpu=<n>:<m>" (MIG
//     device m of GPU n, NVML's MIG device index), or any CDI name whose device is a "GPU-..."/"MIG-..."
//     UUID;
//   - the device name "gpu-<n>" of the driver gpu.nvidia.com (NVIDIA's DRA driver), or a UUID.
// Another vendor's device ("vendor.com/nic=0") names no GPU; nor does a claim-specific CDI name
// ("k8s.gpu.nvidia.com/claim=<uid>-gpu-0") on its own, which NVIDIA's driver lists beside its device name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sources/kubelet/device_allocation.h"

namespace gpuwatch::kubelet {

struct GpuReference {
  std::string uuid;                   // "GPU-..." or "MIG-..."; else the indexes below
  std::optional<unsigned> gpu_index;  // NVML index of the GPU
  std::optional<unsigned> mig_index;  // NVML's MIG device index on that GPU
  bool operator==(const GpuReference&) const = default;
};

std::optional<GpuReference> gpu_of_cdi_device(std::string_view cdi_name);
// The first of the claim's CDI devices that names a GPU, else its device name; nullopt when neither does.
std::optional<GpuReference> gpu_of_claim(const ClaimAllocation& claim);

}  // namespace gpuwatch::kubelet
