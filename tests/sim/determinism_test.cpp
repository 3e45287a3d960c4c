// The simulated state is a pure function of (scenario time, seed): two independent copies of the library
// agree exactly, whatever each read before; and scaled mode derives time from a shared origin.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

struct Snapshot {
  unsigned long long energy = 0, tx = 0, corrected = 0;
  unsigned temp = 0, power = 0, replays = 0;
  nvmlViolationTime_t thermal{};
  nvmlMemory_t memory{};
  bool operator==(const Snapshot& o) const {
    return energy == o.energy && tx == o.tx && corrected == o.corrected && temp == o.temp &&
           power == o.power && replays == o.replays && thermal.violationTime == o.thermal.violationTime &&
           thermal.referenceTime == o.thermal.referenceTime && memory.used == o.memory.used;
  }
};

Snapshot read(SimLibrary& lib, unsigned gpu) {
  Snapshot s;
  nvmlDevice_t d = lib.gpu(gpu);
  lib.api.nvmlDeviceGetTotalEnergyConsumption(d, &s.energy);
  lib.api.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &s.temp);
  lib.api.nvmlDeviceGetPowerUsage(d, &s.power);
  lib.api.nvmlDeviceGetPcieReplayCounter(d, &s.replays);
  lib.api.nvmlDeviceGetViolationStatus(d, NVML_PERF_POLICY_THERMAL, &s.thermal);
  lib.api.nvmlDeviceGetMemoryInfo(d, &s.memory);
  lib.api.nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &s.corrected);
  nvmlFieldValue_t f{};
  f.fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
  f.scopeId = 3;
  lib.api.nvmlDeviceGetFieldValues(d, 1, &f);
  s.tx = f.value.ullVal;
  return s;
}

TEST(Determinism, TwoLibraryInstancesAgreeAtTheSameScenarioTime) {
  const auto copy =
      std::filesystem::temp_directory_path() / ("nvml-sim-copy-" + std::to_string(::getpid()) + ".so");
  SimLibrary a(scenario_path("tests/faults.yaml"));
  SimLibrary b(scenario_path("tests/faults.yaml"), copy.string());
  a.init();
  b.init();
  // A reads often on the way; B jumps straight there: counters must not depend on the reading history.
  for (double t = 0; t < 400; t += 7.3) {
    a.at(t);
    read(a, 0);
  }
  a.at(400.25);
  b.at(400.25);
  for (unsigned gpu = 0; gpu < 8; ++gpu) {
    if (gpu == 3) continue;  // lost
    const Snapshot sa = read(a, gpu), sb = read(b, gpu);
    EXPECT_TRUE(sa == sb) << "gpu " << gpu << ": energy " << sa.energy << " vs " << sb.energy;
    EXPECT_GT(sa.energy, 0ULL);
  }
  std::filesystem::remove(copy);
}

TEST(Determinism, ScaledModeRunsFromASharedEpoch) {
  const double now = static_cast<double>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  ::setenv("GPUWATCH_SIM_EPOCH", std::to_string(now - 100).c_str(), 1);
  ::setenv("GPUWATCH_SIM_TIME_SCALE", "60", 1);
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  ::setenv("GPUWATCH_SIM_MODE", "scaled", 1);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS) << lib.last_error();
  double t = 0;
  ASSERT_EQ(lib.api.gpuwatchSimGetTime(&t), NVML_SUCCESS);
  // 100 s of wall time at 60x is scenario second 6000; the GPUs report wall time, start + 6000 / 60.
  EXPECT_GE(t, 1735689600.0 + 100) << "100 s of wall time at 60x";
  EXPECT_LT(t, 1735689600.0 + 100 + 30);
  int lockstep = 1;
  ASSERT_EQ(lib.api.gpuwatchSimIsLockstep(&lockstep), NVML_SUCCESS);
  EXPECT_EQ(lockstep, 0);
  EXPECT_EQ(lib.api.gpuwatchSimSetTime(t + 10), NVML_ERROR_NOT_SUPPORTED);
}

// Scaled mode plays the script faster, but the GPUs' counters grow per wall second: at 60x, the energy used
// by scenario second 6000 is what lockstep reports there, over 60 (what 100 wall seconds at that power use).
TEST(Determinism, ScaledModeCountsEnergyAndThrottleTimePerWallSecond) {
  const auto copy =
      std::filesystem::temp_directory_path() / ("nvml-sim-scaled-" + std::to_string(::getpid()) + ".so");
  SimLibrary lockstep(scenario_path("tests/faults.yaml"));
  lockstep.init();
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  ::setenv("GPUWATCH_SIM_EPOCH", std::to_string(now - 100).c_str(), 1);
  ::setenv("GPUWATCH_SIM_TIME_SCALE", "60", 1);
  SimLibrary scaled(scenario_path("tests/faults.yaml"), copy.string());
  ::setenv("GPUWATCH_SIM_MODE", "scaled", 1);
  scaled.init();
  const Snapshot fast = read(scaled, 0);
  lockstep.at(6000);
  const Snapshot slow = read(lockstep, 0);
  ASSERT_GT(slow.energy, 0ULL);
  // Within the few scenario seconds between the two reads (60 per wall second).
  EXPECT_NEAR(static_cast<double>(fast.energy), static_cast<double>(slow.energy) / 60,
              static_cast<double>(slow.energy) / 60 * 0.02);
  EXPECT_LE(fast.thermal.violationTime, slow.thermal.violationTime / 60 + 2'000'000'000ULL);
  std::filesystem::remove(copy);
}

}  // namespace
}  // namespace gpuwatch::sim::test
