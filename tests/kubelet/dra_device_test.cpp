// Which GPU a DRA claim's device is, from the CDI names and device names NVIDIA's tools write.
#include <gtest/gtest.h>

#include "sources/kubelet/dra_device.h"

namespace gpuwatch::kubelet {
namespace {

TEST(DraDevice, CdiNamesOfNvidiaCtkNameAGpuByIndexUuidOrMigDevice) {
  EXPECT_EQ(gpu_of_cdi_device("nvidia.com/gpu=3"), (GpuReference{"", 3u, std::nullopt}));
  EXPECT_EQ(gpu_of_cdi_device("nvidia.com/gpu=2:1"), (GpuReference{"", 2u, 1u}));
  EXPECT_EQ(gpu_of_cdi_device("nvidia.com/gpu=GPU-1234"),
            (GpuReference{"GPU-1234", std::nullopt, std::nullopt}));
  EXPECT_EQ(gpu_of_cdi_device("nvidia.com/gpu=MIG-5678"),
            (GpuReference{"MIG-5678", std::nullopt, std::nullopt}));
  // A UUID names its GPU whoever wrote the spec.
  EXPECT_EQ(gpu_of_cdi_device("k8s.gpu.nvidia.com/device=GPU-1234")->uuid, "GPU-1234");
}

TEST(DraDevice, OtherDevicesNameNoGpu) {
  EXPECT_FALSE(gpu_of_cdi_device("example.com/nic=0"));   // another vendor's index
  EXPECT_FALSE(gpu_of_cdi_device("nvidia.com/gpu=all"));  // every GPU: no one holder
  EXPECT_FALSE(gpu_of_cdi_device("nvidia.com/gpu=3x"));
  EXPECT_FALSE(gpu_of_cdi_device("nvidia.com/gpu=1:"));
  EXPECT_FALSE(gpu_of_cdi_device("k8s.gpu.nvidia.com/claim=6f0c-gpu-3"));  // claim-specific
}

TEST(DraDevice, AClaimFallsBackToTheDriversDeviceName) {
  ClaimAllocation c{"llm",    "serve-0", "vllm",
                    "llm",    "gpus",    "gpu.nvidia.com",
                    "node-7", "gpu-4",   {"k8s.gpu.nvidia.com/claim=6f0c-gpu-4"}};
  EXPECT_EQ(gpu_of_claim(c), (GpuReference{"", 4u, std::nullopt}));
  c.cdi_devices.push_back("nvidia.com/gpu=GPU-abcd");  // a CDI device that names it wins
  EXPECT_EQ(gpu_of_claim(c)->uuid, "GPU-abcd");
  c.cdi_devices.clear();
  c.driver = "nic.example.com";  // "gpu-4" of another driver is not NVIDIA's GPU 4
  EXPECT_FALSE(gpu_of_claim(c));
  c.device = "GPU-abcd";
  EXPECT_EQ(gpu_of_claim(c)->uuid, "GPU-abcd");
}

}  // namespace
}  // namespace gpuwatch::kubelet
