// Init/shutdown reference counting, handle validation and NVML's string conventions.
#include <regex>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

TEST(Lifecycle, UninitializedBeforeInitAndAfterLastShutdown) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  unsigned count = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(lib.api.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlShutdown(), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS) << "one init is still outstanding";
  EXPECT_EQ(count, 2U);
  EXPECT_EQ(lib.api.nvmlShutdown(), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
}

TEST(Lifecycle, NullForeignAndStaleHandlesAreInvalidArguments) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  unsigned temp = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(nullptr, NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_INVALID_ARGUMENT);
  int not_a_device = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(reinterpret_cast<nvmlDevice_t>(&not_a_device),
                                             NVML_TEMPERATURE_GPU, &temp),
            NVML_ERROR_INVALID_ARGUMENT);
  nvmlDevice_t d = lib.gpu(0);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, nullptr), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
  nvmlDevice_t out = nullptr;
  EXPECT_EQ(lib.api.nvmlDeviceGetHandleByIndex_v2(2, &out), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.api.nvmlDeviceGetHandleByIndex_v2(0, nullptr), NVML_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(lib.api.nvmlShutdown(), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS);
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &temp), NVML_ERROR_INVALID_ARGUMENT)
      << "a handle from before the last shutdown is stale";
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(lib.gpu(0), NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS);
}

TEST(Lifecycle, StringsTooSmallAreInsufficientSize) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  char small[8];
  EXPECT_EQ(lib.api.nvmlDeviceGetName(lib.gpu(0), small, sizeof small), NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(lib.api.nvmlDeviceGetUUID(lib.gpu(0), small, sizeof small), NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(lib.api.nvmlSystemGetDriverVersion(small, 4), NVML_ERROR_INSUFFICIENT_SIZE);
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  ASSERT_EQ(lib.api.nvmlDeviceGetName(lib.gpu(0), name, sizeof name), NVML_SUCCESS);
  EXPECT_STREQ(name, "NVIDIA H200");
  char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
  ASSERT_EQ(lib.api.nvmlSystemGetDriverVersion(version, sizeof version), NVML_SUCCESS);
  EXPECT_STREQ(version, "550.54.15");
  int cuda = 0;
  ASSERT_EQ(lib.api.nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
  EXPECT_EQ(cuda, 12040);
}

TEST(Lifecycle, IdentityFormats) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  ASSERT_EQ(lib.api.nvmlDeviceGetUUID(lib.gpu(1), uuid, sizeof uuid), NVML_SUCCESS);
  EXPECT_TRUE(
      std::regex_match(uuid, std::regex("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << uuid;
  char other[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  ASSERT_EQ(lib.api.nvmlDeviceGetUUID(lib.gpu(0), other, sizeof other), NVML_SUCCESS);
  EXPECT_STRNE(uuid, other);
  nvmlPciInfo_t pci{};
  ASSERT_EQ(lib.api.nvmlDeviceGetPciInfo_v3(lib.gpu(1), &pci), NVML_SUCCESS);
  EXPECT_TRUE(std::regex_match(pci.busId, std::regex("[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\\.0")))
      << pci.busId;
  EXPECT_EQ(pci.pciDeviceId & 0xFFFF, 0x10DEU);
  unsigned index = 9;
  ASSERT_EQ(lib.api.nvmlDeviceGetIndex(lib.gpu(1), &index), NVML_SUCCESS);
  EXPECT_EQ(index, 1U);
}

TEST(Lifecycle, ErrorStringsUseNvidiaWording) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  EXPECT_STREQ(lib.api.nvmlErrorString(NVML_SUCCESS), "Success");
  EXPECT_STREQ(lib.api.nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized");
  EXPECT_STREQ(lib.api.nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
  EXPECT_STREQ(lib.api.nvmlErrorString(NVML_ERROR_INSUFFICIENT_SIZE), "Insufficient Size");
  EXPECT_STREQ(lib.api.nvmlErrorString(NVML_ERROR_TIMEOUT), "Timeout");
  EXPECT_STREQ(lib.api.nvmlErrorString(NVML_ERROR_UNKNOWN), "Unknown Error");
  for (int code = 0; code <= NVML_ERROR_RESET_TYPE_NOT_SUPPORTED; ++code)
    EXPECT_STRNE(lib.api.nvmlErrorString(code), "Unknown Error") << "code " << code;
}

TEST(Lifecycle, LockstepTimeMovesOnlyForward) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  int lockstep = 0;
  ASSERT_EQ(lib.api.gpuwatchSimIsLockstep(&lockstep), NVML_SUCCESS);
  EXPECT_EQ(lockstep, 1);
  EXPECT_DOUBLE_EQ(lib.start(), 1735689600.0) << "start: 2025-01-01T00:00:00Z";
  lib.at(90);
  double now = 0;
  ASSERT_EQ(lib.api.gpuwatchSimGetTime(&now), NVML_SUCCESS);
  EXPECT_DOUBLE_EQ(now, lib.start() + 90);
  EXPECT_EQ(lib.api.gpuwatchSimSetTime(lib.start() + 30), NVML_ERROR_INVALID_ARGUMENT);
}

TEST(Lifecycle, BuiltInScenarioIsOneH200) {
  SimLibrary lib("");
  lib.init();
  unsigned count = 0;
  ASSERT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 1U);
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  ASSERT_EQ(lib.api.nvmlDeviceGetName(lib.gpu(0), name, sizeof name), NVML_SUCCESS);
  EXPECT_STREQ(name, "NVIDIA H200");
}

}  // namespace
}  // namespace gpuwatch::sim::test
