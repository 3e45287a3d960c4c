// Each fault shows its effect at its scenario time (tests/faults.yaml: one GPU per fault).
#include <vector>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

class Faults : public ::testing::Test {
 protected:
  void SetUp() override { lib.init(); }
  unsigned long long reasons(unsigned gpu) {
    unsigned long long r = 0;
    EXPECT_EQ(lib.api.nvmlDeviceGetCurrentClocksEventReasons(lib.gpu(gpu), &r), NVML_SUCCESS);
    return r;
  }
  std::vector<nvmlProcessInfo_t> processes(unsigned gpu) {
    std::vector<nvmlProcessInfo_t> out(8);
    unsigned count = 8;
    EXPECT_EQ(lib.api.nvmlDeviceGetComputeRunningProcesses_v3(lib.gpu(gpu), &count, out.data()),
              NVML_SUCCESS);
    out.resize(count);
    return out;
  }
  SimLibrary lib{scenario_path("tests/faults.yaml")};
};

constexpr unsigned long long kThermal =
    nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown;

TEST_F(Faults, ThermalThrottleHeatsAndSlowsTheGpu) {
  lib.at(119);
  EXPECT_EQ(reasons(0) & kThermal, 0ULL);
  lib.at(6 * 60);
  EXPECT_EQ(reasons(0) & kThermal, kThermal);
  unsigned temp = 0, sm = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetTemperature(lib.gpu(0), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
  EXPECT_GE(temp, 89U) << "past the slowdown threshold";
  ASSERT_EQ(lib.api.nvmlDeviceGetClockInfo(lib.gpu(0), NVML_CLOCK_SM, &sm), NVML_SUCCESS);
  EXPECT_LT(sm, 1980U * 7 / 10);
  nvmlViolationTime_t v{};
  ASSERT_EQ(lib.api.nvmlDeviceGetViolationStatus(lib.gpu(0), NVML_PERF_POLICY_THERMAL, &v), NVML_SUCCESS);
  EXPECT_EQ(v.violationTime, 240ULL * 1000000000ULL);
  lib.at(8 * 60);
  EXPECT_EQ(reasons(0) & kThermal, 0ULL) << "the throttle lasted 5 minutes";
}

TEST_F(Faults, MemoryLeakThenOom) {
  lib.at(60);
  EXPECT_EQ(processes(1)[0].usedGpuMemory, 10ULL << 30);
  lib.at(120);
  EXPECT_EQ(processes(1)[0].usedGpuMemory, (10ULL << 30) + 60ULL * (100ULL << 20));
  lib.at(200);
  EXPECT_EQ(processes(1)[0].usedGpuMemory, (10ULL << 30) + 120ULL * (100ULL << 20))
      << "the leak lasted 2 minutes";
  lib.at(4 * 60 + 30);
  auto procs = processes(1);
  ASSERT_EQ(procs.size(), 2U);
  EXPECT_GT(static_cast<double>(procs[0].usedGpuMemory), 50 * kGiB) << "climbing towards the card's capacity";
  lib.at(6 * 60);
  procs = processes(1);
  ASSERT_EQ(procs.size(), 1U) << "the OOM-killed process is gone";
  EXPECT_EQ(procs[0].pid, 3002U);
}

TEST_F(Faults, DoubleBitEccLeavesRemapPending) {
  unsigned long long n = 0;
  lib.at(179);
  ASSERT_EQ(lib.api.nvmlDeviceGetTotalEccErrors(lib.gpu(2), NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                                NVML_VOLATILE_ECC, &n),
            NVML_SUCCESS);
  EXPECT_EQ(n, 0ULL);
  ASSERT_EQ(lib.api.nvmlDeviceGetTotalEccErrors(lib.gpu(2), NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                                NVML_VOLATILE_ECC, &n),
            NVML_SUCCESS);
  EXPECT_EQ(n, 11ULL) << "6 per minute for 1m59s";
  lib.at(180);
  ASSERT_EQ(lib.api.nvmlDeviceGetTotalEccErrors(lib.gpu(2), NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                                NVML_VOLATILE_ECC, &n),
            NVML_SUCCESS);
  EXPECT_EQ(n, 1ULL);
  unsigned c = 0, u = 0, p = 0, f = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetRemappedRows(lib.gpu(2), &c, &u, &p, &f), NVML_SUCCESS);
  EXPECT_EQ(u, 1U);
  EXPECT_EQ(p, 1U);
  EXPECT_EQ(f, 0U);
}

TEST_F(Faults, FallOffBusLosesTheGpu) {
  unsigned temp = 0;
  lib.at(119);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(lib.gpu(3), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
  nvmlDevice_t handle = lib.gpu(3);
  lib.at(120);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(handle, NVML_TEMPERATURE_GPU, &temp), NVML_ERROR_GPU_IS_LOST);
  char name[96];
  EXPECT_EQ(lib.api.nvmlDeviceGetName(handle, name, sizeof name), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(lib.gpu(2), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS)
      << "others keep working";
}

TEST_F(Faults, PcieReplaysAndDowntrain) {
  unsigned v = 0;
  lib.at(90);
  ASSERT_EQ(lib.api.nvmlDeviceGetPcieReplayCounter(lib.gpu(4), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 60U);
  ASSERT_EQ(lib.api.nvmlDeviceGetCurrPcieLinkWidth(lib.gpu(4), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 16U);
  lib.at(121);
  ASSERT_EQ(lib.api.nvmlDeviceGetCurrPcieLinkWidth(lib.gpu(4), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 8U);
  ASSERT_EQ(lib.api.nvmlDeviceGetCurrPcieLinkGeneration(lib.gpu(4), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 4U);
  ASSERT_EQ(lib.api.nvmlDeviceGetMaxPcieLinkWidth(lib.gpu(4), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 16U);
}

TEST_F(Faults, PowerCapAndBrake) {
  lib.at(150);
  unsigned limit = 0, power = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetEnforcedPowerLimit(lib.gpu(7), &limit), NVML_SUCCESS);
  EXPECT_EQ(limit, 300000U);
  ASSERT_EQ(lib.api.nvmlDeviceGetPowerUsage(lib.gpu(7), &power), NVML_SUCCESS);
  EXPECT_LE(power, 300000U);
  EXPECT_NE(reasons(7) & nvmlClocksThrottleReasonHwPowerBrakeSlowdown, 0ULL);
  nvmlViolationTime_t v{};
  ASSERT_EQ(lib.api.nvmlDeviceGetViolationStatus(lib.gpu(7), NVML_PERF_POLICY_POWER, &v), NVML_SUCCESS);
  EXPECT_EQ(v.violationTime, 30ULL * 1000000000ULL);
  lib.at(6 * 60);
  ASSERT_EQ(lib.api.nvmlDeviceGetEnforcedPowerLimit(lib.gpu(7), &limit), NVML_SUCCESS);
  EXPECT_EQ(limit, 700000U);
  unsigned c = 0, u = 0, p = 0, f = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetRemappedRows(lib.gpu(7), &c, &u, &p, &f), NVML_SUCCESS);
  EXPECT_EQ(c, 2U);
  EXPECT_EQ(p, 1U);
}

TEST_F(Faults, XidEventsArriveInScenarioOrder) {
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(lib.api.nvmlEventSetCreate(&set), NVML_SUCCESS);
  for (unsigned gpu : {2U, 6U})
    ASSERT_EQ(lib.api.nvmlDeviceRegisterEvents(
                  lib.gpu(gpu), nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, set),
              NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlDeviceRegisterEvents(lib.gpu(3), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
  nvmlEventData_t e{};
  lib.at(60);
  EXPECT_EQ(lib.api.nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
  lib.at(200);
  const std::vector<std::pair<nvmlDevice_t, unsigned long long>> expected = {
      {lib.gpu(6), 13}, {lib.gpu(2), 0}, {lib.gpu(2), 48}, {lib.gpu(6), 31}};
  nvmlDevice_t lost = nullptr;
  lib.api.nvmlDeviceGetHandleByIndex_v2(3, &lost);
  ASSERT_EQ(lib.api.nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  EXPECT_EQ(e.device, lost);
  EXPECT_EQ(e.eventData, 79ULL) << "fall off the bus is XID 79";
  for (const auto& [device, xid] : expected) {
    ASSERT_EQ(lib.api.nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
    EXPECT_EQ(e.device, device);
    EXPECT_EQ(e.eventData, xid);
  }
  EXPECT_EQ(lib.api.nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
  lib.api.nvmlEventSetFree(set);
}

}  // namespace
}  // namespace gpuwatch::sim::test
