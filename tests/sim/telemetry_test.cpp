// Telemetry follows the workload plausibly, and versioned / unsupported queries answer as on a real card.
#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

class Telemetry : public ::testing::Test {
 protected:
  void SetUp() override { lib.init(); }
  unsigned power_mw(unsigned gpu) {
    unsigned mw = 0;
    EXPECT_EQ(lib.api.nvmlDeviceGetPowerUsage(lib.gpu(gpu), &mw), NVML_SUCCESS);
    return mw;
  }
  unsigned temperature(unsigned gpu) {
    unsigned c = 0;
    EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(lib.gpu(gpu), NVML_TEMPERATURE_GPU, &c), NVML_SUCCESS);
    return c;
  }
  unsigned long long energy(unsigned gpu) {
    unsigned long long mj = 0;
    EXPECT_EQ(lib.api.nvmlDeviceGetTotalEnergyConsumption(lib.gpu(gpu), &mj), NVML_SUCCESS);
    return mj;
  }
  SimLibrary lib{scenario_path("tests/basic.yaml")};
};

TEST_F(Telemetry, PowerTemperatureAndClocksFollowLoad) {
  lib.at(30);  // idle
  nvmlUtilization_t util{};
  ASSERT_EQ(lib.api.nvmlDeviceGetUtilizationRates(lib.gpu(0), &util), NVML_SUCCESS);
  EXPECT_LE(util.gpu, 2U);
  const unsigned idle_power = power_mw(0), idle_temp = temperature(0);
  EXPECT_LT(idle_power, 150000U);
  unsigned long long reasons = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetCurrentClocksEventReasons(lib.gpu(0), &reasons), NVML_SUCCESS);
  lib.at(62);  // load just started: power jumps, temperature lags behind
  ASSERT_EQ(lib.api.nvmlDeviceGetUtilizationRates(lib.gpu(0), &util), NVML_SUCCESS);
  EXPECT_NEAR(util.gpu, 80, 3);
  EXPECT_GT(power_mw(0), 450000U);
  EXPECT_LE(power_mw(0), 700000U);
  const unsigned early_temp = temperature(0);
  lib.at(400);
  const unsigned hot_temp = temperature(0);
  EXPECT_GT(hot_temp, early_temp + 5) << "temperature lags power";
  EXPECT_GT(hot_temp, idle_temp + 15);
  unsigned sm = 0, max_sm = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetClockInfo(lib.gpu(0), NVML_CLOCK_SM, &sm), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlDeviceGetMaxClockInfo(lib.gpu(0), NVML_CLOCK_SM, &max_sm), NVML_SUCCESS);
  EXPECT_EQ(sm, max_sm);
  EXPECT_EQ(max_sm, 1980U);
}

TEST_F(Telemetry, EnergyIsTheIntegralOfPower) {
  lib.at(100);
  const unsigned long long e1 = energy(0);
  const unsigned p = power_mw(0);
  lib.at(101);
  const unsigned long long e2 = energy(0);
  EXPECT_NEAR(static_cast<double>(e2 - e1), p, 1.0) << "one second at p mW is p mJ";
  lib.at(200);
  EXPECT_GT(energy(0), e2 + 90ULL * 400000);
}

TEST_F(Telemetry, MemoryInfoV2NeedsItsVersion) {
  lib.at(60);
  nvmlMemory_v2_t mem{};
  mem.version = 2;
  EXPECT_EQ(lib.api.nvmlDeviceGetMemoryInfo_v2(lib.gpu(0), &mem), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  mem.version = nvmlMemory_v2;
  ASSERT_EQ(lib.api.nvmlDeviceGetMemoryInfo_v2(lib.gpu(0), &mem), NVML_SUCCESS);
  EXPECT_EQ(mem.total, 143771ULL << 20) << "what nvidia-smi shows for a real H200";
  EXPECT_EQ(mem.total, mem.reserved + mem.free + mem.used);
  nvmlMemory_t v1{};
  ASSERT_EQ(lib.api.nvmlDeviceGetMemoryInfo(lib.gpu(0), &v1), NVML_SUCCESS);
  EXPECT_EQ(v1.total, v1.free + v1.used);
  EXPECT_GT(v1.used, 29ULL << 30) << "20 GiB + ~10 GiB of processes";
  EXPECT_LT(v1.used, 33ULL << 30);
}

TEST_F(Telemetry, NoFanOnH200AndThresholdsPerModel) {
  unsigned v = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetFanSpeed(lib.gpu(0), &v), NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(lib.api.nvmlDeviceGetTemperatureThreshold(lib.gpu(0), NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v),
            NVML_SUCCESS);
  EXPECT_EQ(v, 89U);
  ASSERT_EQ(lib.api.nvmlDeviceGetTemperatureThreshold(lib.gpu(0), NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v),
            NVML_SUCCESS);
  EXPECT_EQ(v, 92U);
  ASSERT_EQ(lib.api.nvmlDeviceGetEnforcedPowerLimit(lib.gpu(0), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 700000U);
  ASSERT_EQ(lib.api.nvmlDeviceGetMaxPcieLinkGeneration(lib.gpu(0), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 5U);
  ASSERT_EQ(lib.api.nvmlDeviceGetCurrPcieLinkWidth(lib.gpu(0), &v), NVML_SUCCESS);
  EXPECT_EQ(v, 16U);
}

TEST_F(Telemetry, FieldValuesAnswerPerField) {
  lib.at(120);
  nvmlFieldValue_t f[5] = {};
  f[0].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
  f[1].fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
  f[2].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
  f[2].scopeId = NVML_FIELD_SCOPE_ALL;
  f[3].fieldId = NVML_FI_DEV_RETIRED_DBE;
  f[4].fieldId = 9999;
  ASSERT_EQ(lib.api.nvmlDeviceGetFieldValues(lib.gpu(0), 5, f), NVML_SUCCESS);
  EXPECT_EQ(f[0].nvmlReturn, NVML_SUCCESS);
  EXPECT_EQ(f[0].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
  EXPECT_EQ(f[0].value.ullVal, energy(0));
  EXPECT_EQ(f[0].timestamp, static_cast<long long>((lib.start() + 120) * 1e6));
  EXPECT_EQ(f[1].value.uiVal, 18U);
  EXPECT_EQ(f[2].nvmlReturn, NVML_SUCCESS);
  EXPECT_GT(f[2].value.ullVal, 0ULL) << "NVLink traffic grows with load";
  EXPECT_EQ(f[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED) << "H200 remaps rows instead of retiring pages";
  EXPECT_EQ(f[4].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  unsigned state = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetNvLinkState(lib.gpu(0), 17, &state), NVML_SUCCESS);
  EXPECT_EQ(state, NVML_NVLINK_STATE_ACTIVE);
  EXPECT_EQ(lib.api.nvmlDeviceGetNvLinkState(lib.gpu(0), 18, &state), NVML_ERROR_INVALID_ARGUMENT);
}

TEST_F(Telemetry, EveryDeclaredFieldIdAnswers) {
  lib.at(300);
  const unsigned ids[] = {NVML_FI_DEV_ECC_CURRENT,
                          NVML_FI_DEV_ECC_SBE_VOL_TOTAL,
                          NVML_FI_DEV_ECC_DBE_VOL_TOTAL,
                          NVML_FI_DEV_ECC_SBE_AGG_TOTAL,
                          NVML_FI_DEV_ECC_DBE_AGG_TOTAL,
                          NVML_FI_DEV_RETIRED_SBE,
                          NVML_FI_DEV_RETIRED_DBE,
                          NVML_FI_DEV_RETIRED_PENDING,
                          NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL,
                          NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL,
                          NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL,
                          NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL,
                          NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL,
                          NVML_FI_DEV_NVLINK_BANDWIDTH_C1_TOTAL,
                          NVML_FI_DEV_MEMORY_TEMP,
                          NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
                          NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON,
                          NVML_FI_DEV_NVLINK_LINK_COUNT,
                          NVML_FI_DEV_PCIE_REPLAY_COUNTER,
                          NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
                          NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
                          NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX,
                          NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX,
                          NVML_FI_DEV_REMAPPED_COR,
                          NVML_FI_DEV_REMAPPED_UNC,
                          NVML_FI_DEV_REMAPPED_PENDING,
                          NVML_FI_DEV_REMAPPED_FAILURE,
                          NVML_FI_DEV_PCIE_COUNT_CORRECTABLE_ERRORS,
                          NVML_FI_DEV_POWER_AVERAGE,
                          NVML_FI_DEV_POWER_INSTANT,
                          NVML_FI_DEV_POWER_CURRENT_LIMIT,
                          NVML_FI_DEV_ENERGY};
  constexpr int n = sizeof ids / sizeof ids[0];
  nvmlFieldValue_t values[n] = {};
  for (int i = 0; i < n; ++i) {
    values[i].fieldId = ids[i];
    values[i].scopeId = NVML_FIELD_SCOPE_ALL;
    values[i].nvmlReturn = -1;
  }
  ASSERT_EQ(lib.api.nvmlDeviceGetFieldValues(lib.gpu(0), n, values), NVML_SUCCESS);
  for (const auto& v : values) {
    const bool retired = v.fieldId >= NVML_FI_DEV_RETIRED_SBE && v.fieldId <= NVML_FI_DEV_RETIRED_PENDING;
    EXPECT_EQ(v.nvmlReturn, retired ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS) << "field " << v.fieldId;
    EXPECT_EQ(v.timestamp, static_cast<long long>((lib.start() + 300) * 1e6)) << "field " << v.fieldId;
  }
  EXPECT_EQ(values[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
  EXPECT_EQ(values[0].value.uiVal, 1U) << "ECC is on";
  EXPECT_EQ(values[30].value.uiVal, 700000U) << "current power limit in mW";
  nvmlFieldValue_t bad_scope{};
  bad_scope.fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
  bad_scope.scopeId = 18;
  ASSERT_EQ(lib.api.nvmlDeviceGetFieldValues(lib.gpu(0), 1, &bad_scope), NVML_SUCCESS);
  EXPECT_EQ(bad_scope.nvmlReturn, NVML_ERROR_INVALID_ARGUMENT) << "H200 has links 0..17";
  EXPECT_EQ(lib.api.nvmlDeviceGetFieldValues(lib.gpu(0), 0, values), NVML_ERROR_INVALID_ARGUMENT);
}

TEST_F(Telemetry, RetiredPagesNotSupportedOnRowRemappingCards) {
  unsigned count = 0, pending = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetRetiredPages(lib.gpu(0), NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
                                              &count, nullptr),
            NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(lib.api.nvmlDeviceGetRetiredPagesPendingStatus(lib.gpu(0), &pending), NVML_ERROR_NOT_SUPPORTED);
  unsigned c = 9, u = 9, p = 9, f = 9;
  ASSERT_EQ(lib.api.nvmlDeviceGetRemappedRows(lib.gpu(0), &c, &u, &p, &f), NVML_SUCCESS);
  EXPECT_EQ(c + u + p + f, 0U);
}

TEST_F(Telemetry, EventWaitTimesOutInScenarioTime) {
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(lib.api.nvmlEventSetCreate(&set), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlDeviceRegisterEvents(lib.gpu(0), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
  nvmlEventData_t data{};
  EXPECT_EQ(lib.api.nvmlEventSetWait_v2(set, &data, 0), NVML_ERROR_TIMEOUT);
  EXPECT_EQ(lib.api.nvmlEventSetWait_v2(set, nullptr, 0), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.api.nvmlEventSetFree(set), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlEventSetFree(set), NVML_ERROR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace gpuwatch::sim::test
