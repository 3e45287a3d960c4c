// Faults that take the driver away (driver_reload, driver_unload) or change a GPU's MIG layout
// (mig_reconfigure), seen through the C ABI in lockstep; and the simulated node's hostname.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

// A scenario written to a scratch file for the test's lifetime.
class ScenarioText {
 public:
  explicit ScenarioText(const std::string& yaml) {
    std::string pattern = std::filesystem::temp_directory_path() / "gpuwatch-sim-XXXXXX";
    dir_ = ::mkdtemp(pattern.data());
    std::ofstream(path()) << yaml;
  }
  ~ScenarioText() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  ScenarioText(const ScenarioText&) = delete;
  ScenarioText& operator=(const ScenarioText&) = delete;
  std::string path() const { return dir_ + "/scenario.yaml"; }

 private:
  std::string dir_;
};

constexpr const char* kDriverScenario = R"(
node: {hostname: gpu-node-17, driver_version: 550.54.15, nvml_version: 12.550.54.15}
devices:
  - {model: H200, count: 2}
faults:
  - {type: driver_reload, at: 10s, duration: 20s, new_driver_version: 560.35.03}
  - {type: driver_unload, at: 60s, duration: 10s}
)";

std::string driver_version(SimLibrary& lib, nvmlReturn_t expected = NVML_SUCCESS) {
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  EXPECT_EQ(lib.api.nvmlSystemGetDriverVersion(buf, sizeof buf), expected);
  return buf;
}

std::string uuid(SimLibrary& lib, nvmlDevice_t device) {
  char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
  EXPECT_EQ(lib.api.nvmlDeviceGetUUID(device, buf, sizeof buf), NVML_SUCCESS);
  return buf;
}

TEST(DriverReload, EveryCallAnswersVersionMismatchThenTheNewDriverAnswers) {
  ScenarioText scenario(kDriverScenario);
  SimLibrary lib(scenario.path());
  lib.init();
  lib.at(5);
  nvmlDevice_t before = lib.gpu(1);
  const std::string uuid_before = uuid(lib, before);
  EXPECT_EQ(driver_version(lib), "550.54.15");

  lib.at(10);
  unsigned count = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  unsigned temp = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(before, NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  nvmlEventSet_t set = nullptr;
  EXPECT_EQ(lib.api.nvmlEventSetCreate(&set), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  EXPECT_STRNE(lib.api.nvmlErrorString(NVML_ERROR_LIB_RM_VERSION_MISMATCH), "");
  lib.at(29.9);
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_ERROR_LIB_RM_VERSION_MISMATCH);

  lib.at(30);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS) << "init works again once the reload is over";
  ASSERT_EQ(lib.api.nvmlShutdown(), NVML_SUCCESS);
  EXPECT_EQ(driver_version(lib), "560.35.03");
  char nvml[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = {};
  ASSERT_EQ(lib.api.nvmlSystemGetNVMLVersion(nvml, sizeof nvml), NVML_SUCCESS);
  EXPECT_STREQ(nvml, "12.560.35.03");
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(before, NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_INVALID_ARGUMENT)
      << "a handle of the old driver is stale";
  nvmlDevice_t after = lib.gpu(1);
  EXPECT_NE(after, before);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(after, NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
  EXPECT_EQ(uuid(lib, after), uuid_before) << "the same GPU under the new driver";
}

TEST(DriverUnload, AnswersDriverNotLoadedAndKeepsTheVersion) {
  ScenarioText scenario(kDriverScenario);
  SimLibrary lib(scenario.path());
  lib.init();
  lib.at(59);
  nvmlDevice_t before = lib.gpu(0);
  lib.at(60);
  EXPECT_EQ(driver_version(lib, NVML_ERROR_DRIVER_NOT_LOADED), "");
  unsigned temp = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(before, NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_DRIVER_NOT_LOADED);
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  lib.at(70);
  EXPECT_EQ(driver_version(lib), "560.35.03") << "the unload brought no new version";
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(before, NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(lib.gpu(0), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
}

TEST(DriverReload, AFirstInitDuringTheReloadFails) {
  ScenarioText scenario(R"(
devices: [{model: H200}]
faults: [{type: driver_reload, at: 0s, duration: 5s}]
)");
  SimLibrary lib(scenario.path());
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  EXPECT_NE(lib.last_error().find("reloading"), std::string::npos) << lib.last_error();
  unsigned count = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED)
      << "the failed init holds nothing";
}

constexpr const char* kMigScenario = R"(
devices:
  - model: H200
    mig: {enabled: true, instances: [3g.71gb, 3g.71gb]}
processes:
  - {pid: 7001, gpu: 0, mig: 1, name: job, memory: 10GiB, stop: 19s}
faults:
  - {type: mig_reconfigure, gpu: 0, at: 20s, instances: [1g.18gb, 1g.18gb, 2g.35gb]}
)";

std::string mig_name(SimLibrary& lib, nvmlDevice_t mig) {
  char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  EXPECT_EQ(lib.api.nvmlDeviceGetName(mig, buf, sizeof buf), NVML_SUCCESS);
  return buf;
}

TEST(MigReconfigure, OldHandlesGoStaleAndTheNewInstancesEnumerateWithAnEvent) {
  ScenarioText scenario(kMigScenario);
  SimLibrary lib(scenario.path());
  lib.init();
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(lib.api.nvmlEventSetCreate(&set), NVML_SUCCESS);
  unsigned long long supported = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetSupportedEventTypes(lib.gpu(0), &supported), NVML_SUCCESS);
  EXPECT_NE(supported & nvmlEventMigConfigChange, 0ULL);
  ASSERT_EQ(lib.api.nvmlDeviceRegisterEvents(lib.gpu(0), nvmlEventMigConfigChange, set), NVML_SUCCESS);

  lib.at(10);
  nvmlDevice_t old_mig = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), 0, &old_mig), NVML_SUCCESS);
  const std::string old_uuid = uuid(lib, old_mig);
  EXPECT_EQ(mig_name(lib, old_mig), "NVIDIA H200 MIG 3g.71gb");
  nvmlEventData_t data{};
  EXPECT_EQ(lib.api.nvmlEventSetWait_v2(set, &data, 0), NVML_ERROR_TIMEOUT);

  lib.at(20);
  ASSERT_EQ(lib.api.nvmlEventSetWait_v2(set, &data, 0), NVML_SUCCESS);
  EXPECT_EQ(data.eventType, nvmlEventMigConfigChange);
  EXPECT_EQ(data.device, lib.gpu(0));
  unsigned id = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetGpuInstanceId(old_mig, &id), NVML_ERROR_INVALID_ARGUMENT)
      << "a handle of the old layout is stale";
  std::vector<std::string> names;
  for (unsigned slot = 0; slot < 7; ++slot) {
    nvmlDevice_t mig = nullptr;
    const nvmlReturn_t r = lib.api.nvmlDeviceGetMigDeviceHandleByIndex(lib.gpu(0), slot, &mig);
    if (r == NVML_ERROR_NOT_FOUND) continue;
    ASSERT_EQ(r, NVML_SUCCESS);
    names.push_back(mig_name(lib, mig));
    EXPECT_NE(uuid(lib, mig), old_uuid) << "a new instance is a new device";
    nvmlMemory_t mem{};
    ASSERT_EQ(lib.api.nvmlDeviceGetMemoryInfo(mig, &mem), NVML_SUCCESS);
    EXPECT_GT(mem.total, 0ULL);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"NVIDIA H200 MIG 1g.18gb", "NVIDIA H200 MIG 1g.18gb",
                                             "NVIDIA H200 MIG 2g.35gb"}));
  EXPECT_EQ(lib.api.nvmlEventSetFree(set), NVML_SUCCESS);
}

// Bad fault entries are reported with file:line and what is wrong.
struct BadFault {
  const char* faults;
  const char* says;
};

class BadReinitFaults : public ::testing::TestWithParam<BadFault> {};

TEST_P(BadReinitFaults, InitFailsWithWhereAndWhat) {
  ScenarioText scenario(std::string(kMigScenario).substr(0, std::string(kMigScenario).find("faults:")) +
                        "faults:\n" + GetParam().faults + "\n");
  SimLibrary lib(scenario.path());
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  const std::string error = lib.last_error();
  EXPECT_NE(error.find("scenario.yaml:8:"), std::string::npos) << error;
  EXPECT_NE(error.find(GetParam().says), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Faults, BadReinitFaults,
    ::testing::Values(BadFault{"  - {type: driver_reload, gpu: 0, at: 5s}",
                               "driver_reload affects every GPU"},
                      BadFault{"  - {type: mig_reconfigure, gpu: 0, at: 25s}", "needs instances"},
                      BadFault{"  - {type: mig_reconfigure, gpu: 0, at: 5s, instances: []}",
                               "process 7001 still runs on a MIG instance"},
                      BadFault{"  - {type: mig_reconfigure, gpu: 0, at: 25s, instances: [9g.1tb]}",
                               "unknown MIG profile '9g.1tb'"},
                      BadFault{"  - {type: xid, gpu: 0, at: 5s, code: 79, new_driver_version: 1.2}",
                               "new_driver_version belongs to driver_reload"}));

TEST(Hostname, TheSimulatedNodeNamesItself) {
  ScenarioText scenario(kDriverScenario);
  SimLibrary lib(scenario.path());
  char buf[64] = {};
  EXPECT_EQ(lib.api.gpuwatchSimGetHostname(buf, sizeof buf), NVML_ERROR_UNINITIALIZED);
  lib.init();
  ASSERT_EQ(lib.api.gpuwatchSimGetHostname(buf, sizeof buf), NVML_SUCCESS);
  EXPECT_STREQ(buf, "gpu-node-17");
  EXPECT_EQ(lib.api.gpuwatchSimGetHostname(buf, 5), NVML_ERROR_INSUFFICIENT_SIZE);
  lib.at(15);
  EXPECT_EQ(lib.api.gpuwatchSimGetHostname(buf, sizeof buf), NVML_SUCCESS) << "not an NVML call";
}

}  // namespace
}  // namespace gpuwatch::sim::test
