// A library without some optional entry points (libnvml-sim linked with fewer exports, as an older
// driver's libnvidia-ml): the backend falls back to the older names and reports the rest as unsupported.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim_support.h"
#include "sources/nvml/nvml_session.h"

namespace gpuwatch {
namespace {

constexpr const char* kOlderDriverScenario = R"(
node: {cuda_driver_version: "12.2", start: "2025-03-01T12:00:00Z"}
devices:
  - model: H200
processes:
  - {pid: 4242, gpu: 0, name: python3, memory: 10GiB, sm_util: 40}
)";

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(OlderDriver, OlderNamesStandInAndMissingCallsLeaveTheirMetricsAbsent) {
  test::SimScenario scenario{kOlderDriverScenario};
  test::Sim sim(GPUWATCH_OLDER_DRIVER_SIM);
  const auto& lib = *sim.library();
  const auto& missing = lib.missing_symbols();
  EXPECT_NE(std::find(missing.begin(), missing.end(), "nvmlDeviceGetPowerUsage"), missing.end());
  EXPECT_NE(std::find(missing.begin(), missing.end(), "nvmlDeviceGetCurrentClocksEventReasons"),
            missing.end());
  EXPECT_NE(lib.fn().nvmlDeviceGetCurrentClocksEventReasons, nullptr) << "ThrottleReasons stands in";
  EXPECT_NE(lib.fn().nvmlDeviceGetComputeRunningProcesses_v3, nullptr) << "_v2 stands in";
  EXPECT_EQ(lib.fn().nvmlDeviceGetMemoryInfo_v2, nullptr);

  NvmlSession session(sim.library(), "/nonexistent", "");
  ASSERT_TRUE(session.ok()) << session.error();
  EXPECT_EQ(session.node().cuda_driver_version, "12.2") << "plain nvmlSystemGetCudaDriverVersion stands in";
  auto& reader = session.gpus()[0]->gpu();
  DeviceSnapshot d;
  reader.read(sim.ms_at(1), d);
  sim.advance_to(2);
  reader.read(sim.ms_at(2), d);

  EXPECT_EQ(d.state, DeviceState::kOk);
  EXPECT_EQ(d.find(Metric::kPower), nullptr);
  EXPECT_TRUE(contains(d.unsupported, "nvmlDeviceGetPowerUsage"));
  EXPECT_NE(d.find(Metric::kPowerLimit), nullptr);
  EXPECT_NE(d.find(Metric::kClockEventActive, "gpu_idle"), nullptr);
  // nvmlDeviceGetMemoryInfo (v1) has no reserved memory.
  ASSERT_NE(d.find(Metric::kMemoryTotal), nullptr);
  EXPECT_EQ(d.find(Metric::kMemoryTotal)->value, 143771.0 * 1024 * 1024);  // a real H200: 143771 MiB
  EXPECT_EQ(d.find(Metric::kMemoryReserved), nullptr);
  // Without nvmlDeviceGetFieldValues and GPM: memory temperature, instantaneous power and SM activity absent.
  EXPECT_EQ(d.find(Metric::kMemoryTemperature), nullptr);
  EXPECT_EQ(d.find(Metric::kPowerInstant), nullptr);
  EXPECT_EQ(d.find(Metric::kSmActive), nullptr);
  ASSERT_EQ(d.processes.size(), 1U);
  EXPECT_EQ(d.processes[0].pid, 4242U);
  EXPECT_EQ(d.processes[0].used_memory_bytes, 10.0 * 1024 * 1024 * 1024);
}

}  // namespace
}  // namespace gpuwatch
