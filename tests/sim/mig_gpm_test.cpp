// MIG enumeration and what MIG changes, and GPM metrics from two samples.
#include <memory>
#include <regex>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

TEST(Mig, InstancesEnumerateWithTheirProfiles) {
  SimLibrary lib(scenario_path("tests/mig.yaml"));
  lib.init();
  unsigned current = 9, pending = 9, max = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetMigMode(lib.gpu(0), &current, &pending), NVML_SUCCESS);
  EXPECT_EQ(current, NVML_DEVICE_MIG_ENABLE);
  ASSERT_EQ(lib.api.nvmlDeviceGetMaxMigDeviceCount(lib.gpu(0), &max), NVML_SUCCESS);
  EXPECT_EQ(max, 7U);
  nvmlDevice_t mig = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), 0, &mig), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), 3, &mig), NVML_ERROR_NOT_FOUND);
  ASSERT_EQ(lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), 0, &mig), NVML_SUCCESS);
  unsigned is_mig = 0;
  ASSERT_EQ(lib.api.nvmlDeviceIsMigDeviceHandle(mig, &is_mig), NVML_SUCCESS);
  EXPECT_EQ(is_mig, 1U);
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  ASSERT_EQ(lib.api.nvmlDeviceGetName(mig, name, sizeof name), NVML_SUCCESS);
  EXPECT_STREQ(name, "NVIDIA A100-SXM4-80GB MIG 3g.40gb");
  ASSERT_EQ(lib.api.nvmlDeviceGetUUID(mig, uuid, sizeof uuid), NVML_SUCCESS);
  EXPECT_TRUE(
      std::regex_match(uuid, std::regex("MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << uuid;
  nvmlDevice_t parent = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig, &parent), NVML_SUCCESS);
  EXPECT_EQ(parent, lib.gpu(0));
  unsigned gi = 99;
  ASSERT_EQ(lib.api.nvmlDeviceGetGpuInstanceId(mig, &gi), NVML_SUCCESS);
  nvmlMemory_t mem{};
  ASSERT_EQ(lib.api.nvmlDeviceGetMemoryInfo(mig, &mem), NVML_SUCCESS);
  EXPECT_EQ(mem.total, 40192ULL << 20);
  EXPECT_GT(mem.used, 30ULL << 30);
  unsigned count = 4;
  nvmlProcessInfo_t infos[4];
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(mig, &count, infos), NVML_SUCCESS);
  ASSERT_EQ(count, 1U);
  EXPECT_EQ(infos[0].pid, 2001U);
  EXPECT_EQ(infos[0].gpuInstanceId, gi);
  count = 4;
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, infos), NVML_SUCCESS);
  EXPECT_EQ(count, 2U) << "the parent lists the processes of all its instances";
}

TEST(Mig, OomInAnInstanceHappensAtTheInstanceCapacity) {
  SimLibrary lib(scenario_path("tests/mig.yaml"));
  lib.init();
  nvmlDevice_t small = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), 2, &small), NVML_SUCCESS);
  unsigned count = 4;
  nvmlProcessInfo_t infos[4];
  lib.at(63);  // 4 GiB + 3 GiB of climbing: still fits in 9.5 GiB
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(small, &count, infos), NVML_SUCCESS);
  ASSERT_EQ(count, 1U);
  EXPECT_EQ(infos[0].usedGpuMemory, 7ULL << 30);
  lib.at(70);  // 4 GiB + 10 GiB does not fit in the 1g.10gb instance
  count = 4;
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(small, &count, infos), NVML_SUCCESS);
  EXPECT_EQ(count, 0U) << "the notebook was OOM-killed";
  count = 4;
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, infos), NVML_SUCCESS);
  EXPECT_EQ(count, 1U) << "the trainer on the 3g.40gb instance runs on";
}

TEST(Mig, UtilizationNotSupportedWithMig) {
  SimLibrary lib(scenario_path("tests/mig.yaml"));
  lib.init();
  nvmlDevice_t mig = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), 1, &mig), NVML_SUCCESS);
  nvmlUtilization_t util{};
  EXPECT_EQ(lib.api.nvmlDeviceGetUtilizationRates(lib.gpu(0), &util), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(lib.api.nvmlDeviceGetUtilizationRates(mig, &util), NVML_ERROR_NOT_SUPPORTED);
  unsigned count = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetProcessUtilization(lib.gpu(0), nullptr, &count, 0),
            NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(lib.api.nvmlDeviceGetProcessUtilization(mig, nullptr, &count, 0), NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(lib.api.nvmlDeviceGetUtilizationRates(lib.gpu(1), &util), NVML_SUCCESS);
  EXPECT_EQ(util.gpu, 40U);
  unsigned current = 9, pending = 9;
  ASSERT_EQ(lib.api.nvmlDeviceGetMigMode(lib.gpu(1), &current, &pending), NVML_SUCCESS);
  EXPECT_EQ(current, NVML_DEVICE_MIG_DISABLE);
}

TEST(Gpm, NotSupportedOnA100AndVersionChecked) {
  SimLibrary lib(scenario_path("tests/mig.yaml"));
  lib.init();
  nvmlGpmSupport_t support{};
  support.version = 7;
  EXPECT_EQ(lib.api.nvmlGpmQueryDeviceSupport(lib.gpu(1), &support), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  support.version = NVML_GPM_SUPPORT_VERSION;
  ASSERT_EQ(lib.api.nvmlGpmQueryDeviceSupport(lib.gpu(1), &support), NVML_SUCCESS);
  EXPECT_EQ(support.isSupportedDevice, 0U);
  nvmlGpmSample_t s = nullptr;
  ASSERT_EQ(lib.api.nvmlGpmSampleAlloc(&s), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlGpmSampleGet(lib.gpu(1), s), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(lib.api.nvmlGpmSampleFree(s), NVML_SUCCESS);
}

TEST(Gpm, MetricsAverageBetweenTwoSamples) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  ASSERT_EQ(lib.api.nvmlGpmQueryDeviceSupport(lib.gpu(0), &support), NVML_SUCCESS);
  EXPECT_EQ(support.isSupportedDevice, 1U);
  nvmlGpmSample_t a = nullptr, b = nullptr;
  ASSERT_EQ(lib.api.nvmlGpmSampleAlloc(&a), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlGpmSampleAlloc(&b), NVML_SUCCESS);
  lib.at(120);
  ASSERT_EQ(lib.api.nvmlGpmSampleGet(lib.gpu(0), a), NVML_SUCCESS);
  lib.at(120.05);
  ASSERT_EQ(lib.api.nvmlGpmSampleGet(lib.gpu(0), b), NVML_SUCCESS);
  auto request = std::make_unique<nvmlGpmMetricsGet_t>();
  request->version = NVML_GPM_METRICS_GET_VERSION;
  request->numMetrics = 3;
  request->sample1 = a;
  request->sample2 = b;
  request->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
  request->metrics[1].metricId = NVML_GPM_METRIC_PCIE_RX_PER_SEC;
  request->metrics[2].metricId = 250;
  EXPECT_EQ(lib.api.nvmlGpmMetricsGet(request.get()), NVML_ERROR_INVALID_ARGUMENT) << "samples 50 ms apart";
  lib.at(130);
  ASSERT_EQ(lib.api.nvmlGpmSampleGet(lib.gpu(0), b), NVML_SUCCESS);
  request->version = 2;
  EXPECT_EQ(lib.api.nvmlGpmMetricsGet(request.get()), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  request->version = NVML_GPM_METRICS_GET_VERSION;
  ASSERT_EQ(lib.api.nvmlGpmMetricsGet(request.get()), NVML_SUCCESS);
  EXPECT_EQ(request->metrics[0].nvmlReturn, NVML_SUCCESS);
  EXPECT_NEAR(request->metrics[0].value, 80, 3);
  EXPECT_STREQ(request->metrics[0].metricInfo.unit, "%");
  EXPECT_GT(request->metrics[1].value, 1000) << "MiB/s under load";
  EXPECT_EQ(request->metrics[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  lib.api.nvmlGpmSampleFree(a);
  lib.api.nvmlGpmSampleFree(b);
}

}  // namespace
}  // namespace gpuwatch::sim::test
