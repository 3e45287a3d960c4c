// Version mismatches as defined in docs/detection.md: NVML/RM mismatch and NVML vs module version, a
// process's libcuda other than the loaded module, a CUDA runtime major above the driver's, mixed VBIOS;
// minor-version compatibility and matching versions are quiet.
#include <gtest/gtest.h>

#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using V = std::vector<std::string>;

std::vector<Condition> run(const Snapshot& s, std::optional<std::string> module,
                           std::map<unsigned, std::vector<std::string>> libraries) {
  auto det = test::make_detector("version_mismatch");
  DetectionInput in{s, {}, {}, std::move(module), std::move(libraries), {}};
  std::vector<Condition> out;
  det->evaluate(in, out);
  return out;
}

Snapshot node(std::vector<Gpu> gpus) {
  Snapshot s = test::snapshot_at(1000, gpus);
  s.node.driver_version = "550.54.15";
  s.node.cuda_driver_version = "12.4";
  for (auto& d : s.devices) d.identity.vbios_version = "96.00.AF.00.01";
  return s;
}

TEST(VersionMismatch, MatchingVersionsAndMinorCompatibilityAreQuiet) {
  Gpu g(0);
  g.process(100, "python3", 10 * test::kGiB);
  auto s = node({g});
  EXPECT_TRUE(run(s, "550.54.15",
                  {{100,
                    {"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
                     "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/opt/conda/lib/libcudart.so.12.6.77"}}})
                  .empty())
      << "CUDA 12.6 runtime on a 12.4 driver is minor-version compatibility";
}

TEST(VersionMismatch, NvmlAndTheKernelModuleDisagree) {
  auto s = node({Gpu(0)});
  auto cs = run(s, "550.90.07", {});
  ASSERT_EQ(test::names(cs), (V{"GpuDriverVersionMismatch"}));
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_NE(cs[0].description.find("NVML reports driver 550.54.15, the loaded kernel module is 550.90.07"),
            std::string::npos);

  Snapshot broken;
  broken.timestamp_ms = 1000;
  broken.source_error =
      "nvmlInit_v2: RM has detected an NVML/RM version mismatch. (NVML error 18); retrying in 1 s";
  EXPECT_EQ(test::names(run(broken, "550.90.07", {})), (V{"GpuDriverVersionMismatch"}));
}

TEST(VersionMismatch, AProcessWithItsOwnLibcudaOrANewerRuntime) {
  Gpu g(3);
  g.process(200, "jax", 10 * test::kGiB).process(201, "torch", 10 * test::kGiB);
  auto cs =
      run(node({g}), "550.54.15",
          {{200, {"/usr/local/cuda/compat/libcuda.so.535.104.05"}},
           {201, {"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "/venv/lib/libcudart.so.13.0.48"}}});
  ASSERT_EQ(test::names(cs), (V{"GpuProcessLibcudaMismatch", "GpuCudaRuntimeTooNew"}));
  EXPECT_EQ(cs[0].labels.at("pid"), "200");
  EXPECT_EQ(cs[0].labels.at("gpu"), "3");
  EXPECT_NE(cs[0].description.find("version 535.104.05"), std::string::npos) << cs[0].description;
  EXPECT_EQ(cs[1].labels.at("pid"), "201");
  EXPECT_NE(cs[1].description.find("CUDA 13.0.48"), std::string::npos) << cs[1].description;
}

TEST(VersionMismatch, MixedVbiosAcrossGpusOfOneModel) {
  auto s = node({Gpu(0), Gpu(1), Gpu(2)});
  s.devices[2].identity.vbios_version = "96.00.99.00.01";
  auto cs = run(s, "550.54.15", {});
  ASSERT_EQ(test::names(cs), (V{"GpuMixedVbios"}));
  EXPECT_EQ(cs[0].labels.at("model"), "NVIDIA H200");
  EXPECT_NE(cs[0].description.find("96.00.99.00.01"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::detect
