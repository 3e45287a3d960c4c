// Running-process lists and per-process utilization samples, with NVML's buffer-size protocol.
#include <vector>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

class Processes : public ::testing::Test {
 protected:
  void SetUp() override { lib.init(); }
  SimLibrary lib{scenario_path("tests/basic.yaml")};
};

TEST_F(Processes, CountZeroAndNullAsksForTheSize) {
  lib.at(5);  // before any compute process starts
  unsigned count = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, nullptr), NVML_SUCCESS);
  EXPECT_EQ(count, 0U);
  lib.at(25);
  count = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, nullptr),
            NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(count, 2U);
  std::vector<nvmlProcessInfo_t> infos(1);
  count = 1;
  EXPECT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, infos.data()),
            NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(count, 2U);
  infos.resize(count + 4);
  count = static_cast<unsigned>(infos.size());
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, infos.data()), NVML_SUCCESS);
  ASSERT_EQ(count, 2U);
  EXPECT_EQ(infos[0].pid, 1001U);
  EXPECT_EQ(infos[0].usedGpuMemory, 20ULL << 30);
  EXPECT_EQ(infos[0].gpuInstanceId, NVML_INVALID_INSTANCE_ID);
  EXPECT_EQ(infos[1].pid, 1002U);
  EXPECT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), nullptr, nullptr),
            NVML_ERROR_INVALID_ARGUMENT);
}

TEST_F(Processes, GraphicsProcessesAreListedSeparately) {
  lib.at(25);
  unsigned count = 4;
  nvmlProcessInfo_t infos[4];
  ASSERT_EQ(lib.api.nvmlDeviceGetGraphicsRunningProcesses_v3(lib.gpu(1), &count, infos), NVML_SUCCESS);
  ASSERT_EQ(count, 1U);
  EXPECT_EQ(infos[0].pid, 1003U);
  count = 4;
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v2(lib.gpu(1), &count, infos), NVML_SUCCESS);
  EXPECT_EQ(count, 0U);
}

TEST_F(Processes, StoppedProcessesDisappear) {
  lib.at(31 * 60);
  unsigned count = 4;
  nvmlProcessInfo_t infos[4];
  ASSERT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(0), &count, infos), NVML_SUCCESS);
  ASSERT_EQ(count, 1U);
  EXPECT_EQ(infos[0].pid, 1002U);
}

TEST_F(Processes, UtilizationSamplesNewerThanLastSeen) {
  lib.at(70.5);
  unsigned count = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetProcessUtilization(lib.gpu(0), nullptr, &count, 0),
            NVML_ERROR_INSUFFICIENT_SIZE);
  ASSERT_EQ(count, 2U);
  std::vector<nvmlProcessUtilizationSample_t> samples(count);
  ASSERT_EQ(lib.api.nvmlDeviceGetProcessUtilization(lib.gpu(0), samples.data(), &count, 0), NVML_SUCCESS);
  EXPECT_EQ(samples[0].pid, 1001U);
  EXPECT_EQ(samples[0].smUtil, 50U);
  EXPECT_EQ(samples[1].smUtil, 30U);
  const unsigned long long stamp = samples[0].timeStamp;
  EXPECT_EQ(stamp, static_cast<unsigned long long>((lib.start() + 70) * 1e6));
  EXPECT_EQ(lib.api.nvmlDeviceGetProcessUtilization(lib.gpu(0), samples.data(), &count, stamp),
            NVML_ERROR_NOT_FOUND);
  lib.at(71);
  count = 2;
  EXPECT_EQ(lib.api.nvmlDeviceGetProcessUtilization(lib.gpu(0), samples.data(), &count, stamp), NVML_SUCCESS);
  EXPECT_GT(samples[0].timeStamp, stamp);
}

}  // namespace
}  // namespace gpuwatch::sim::test
