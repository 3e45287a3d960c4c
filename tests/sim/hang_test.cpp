// Hangs and event waits block in scenario time: in lockstep they end only when the test moves time past
// them, and a call hung on one GPU does not stop calls to the others.
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

// Spins (no sleeping) until thread `tid` of this process is blocked in the kernel.
void wait_until_blocked(pid_t tid) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  for (;;) {
    std::ifstream stat(path);
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'S') return;
    std::this_thread::yield();
  }
}

TEST(Hang, HungCallBlocksOneGpuUntilScenarioTimePassesIt) {
  SimLibrary lib(scenario_path("tests/faults.yaml"));
  lib.init();
  lib.at(120);
  nvmlDevice_t hung = lib.gpu(5), healthy = lib.gpu(4);
  std::atomic<pid_t> tid{0};
  nvmlReturn_t result = -1;
  double returned_at = 0;
  std::thread caller([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    unsigned temp = 0;
    result = lib.api.nvmlDeviceGetTemperature(hung, NVML_TEMPERATURE_GPU, &temp);
    lib.api.gpuwatchSimGetTime(&returned_at);
  });
  while (tid == 0) std::this_thread::yield();
  wait_until_blocked(tid);
  unsigned temp = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetTemperature(healthy, NVML_TEMPERATURE_GPU, &temp), NVML_SUCCESS)
      << "another GPU answers while GPU 5 hangs";
  lib.at(150);
  lib.at(181);
  caller.join();
  EXPECT_EQ(result, NVML_SUCCESS);
  EXPECT_GE(returned_at, lib.start() + 180) << "the call returned only once the 60 s hang was over";
}

// What the collector asks in lockstep to tell a hung call from a slow one: a call blocked until a scenario
// time still ahead counts as parked until the clock reaches that time.
TEST(Hang, ParkedCallsCountsTheCallsThatWaitForTheClock) {
  SimLibrary lib(scenario_path("tests/faults.yaml"));
  lib.init();
  lib.at(120);
  unsigned parked = 99;
  ASSERT_EQ(lib.api.gpuwatchSimParkedCalls(&parked), NVML_SUCCESS);
  EXPECT_EQ(parked, 0U);
  std::atomic<pid_t> tid{0};
  std::thread caller([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    unsigned temp = 0;
    lib.api.nvmlDeviceGetTemperature(lib.gpu(5), NVML_TEMPERATURE_GPU, &temp);
  });
  while (tid == 0) std::this_thread::yield();
  wait_until_blocked(tid);
  ASSERT_EQ(lib.api.gpuwatchSimParkedCalls(&parked), NVML_SUCCESS);
  EXPECT_EQ(parked, 1U) << "the call to GPU 5 waits for the end of its hang at 180 s";
  lib.at(150);
  wait_until_blocked(tid);
  ASSERT_EQ(lib.api.gpuwatchSimParkedCalls(&parked), NVML_SUCCESS);
  EXPECT_EQ(parked, 1U) << "still inside the hang";
  lib.at(180);
  caller.join();
  ASSERT_EQ(lib.api.gpuwatchSimParkedCalls(&parked), NVML_SUCCESS);
  EXPECT_EQ(parked, 0U);
  EXPECT_EQ(lib.api.gpuwatchSimParkedCalls(nullptr), NVML_ERROR_INVALID_ARGUMENT);
}

TEST(Hang, DriverHangBlocksEveryCall) {
  SimLibrary lib(scenario_path("tests/driver-hang.yaml"));
  lib.init();
  lib.at(60);
  std::atomic<pid_t> tid{0};
  double returned_at = 0;
  nvmlReturn_t result = -1;
  std::thread caller([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    unsigned count = 0;
    result = lib.api.nvmlDeviceGetCount_v2(&count);
    lib.api.gpuwatchSimGetTime(&returned_at);
  });
  while (tid == 0) std::this_thread::yield();
  wait_until_blocked(tid);
  lib.at(91);
  caller.join();
  EXPECT_EQ(result, NVML_SUCCESS);
  EXPECT_GE(returned_at, lib.start() + 90);
}

TEST(Hang, ScaledHangLastsTheHangOverTheTimeScale) {
  // At 1000x, the 60 s hang of GPU 5 (from 120 s) is 60 ms of wall time; start the clock inside it.
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  ::setenv("GPUWATCH_SIM_EPOCH", std::to_string(now - 0.121).c_str(), 1);
  ::setenv("GPUWATCH_SIM_TIME_SCALE", "1000", 1);
  SimLibrary lib(scenario_path("tests/faults.yaml"));
  ::setenv("GPUWATCH_SIM_MODE", "scaled", 1);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS) << lib.last_error();
  double before = 0, after = 0;
  ASSERT_EQ(lib.api.gpuwatchSimGetTime(&before), NVML_SUCCESS);
  nvmlDevice_t hung = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetHandleByIndex_v2(5, &hung), NVML_SUCCESS);
  unsigned temp = 0;
  const nvmlReturn_t result = lib.api.nvmlDeviceGetTemperature(hung, NVML_TEMPERATURE_GPU, &temp);
  ASSERT_EQ(lib.api.gpuwatchSimGetTime(&after), NVML_SUCCESS);
  EXPECT_EQ(result, NVML_SUCCESS);
  // The reported time is wall time: start + scenario seconds / 1000.
  const double start = 1735689600.0;
  const auto scenario_seconds = [&](double unix) { return (unix - start) * 1000; };
  if (scenario_seconds(before) < 180) {
    EXPECT_GE(scenario_seconds(after), 180 - 1e-3) << "a call inside the hang returns when it ends";
  }
  EXPECT_GE(scenario_seconds(before), 120 - 1e-3);
}

TEST(Hang, ScaledEventWaitTimesOutAfterTimeoutOverTimeScale) {
  ::setenv("GPUWATCH_SIM_TIME_SCALE", "1000", 1);
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  ::setenv("GPUWATCH_SIM_MODE", "scaled", 1);
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS) << lib.last_error();
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(lib.api.nvmlEventSetCreate(&set), NVML_SUCCESS);
  nvmlDevice_t gpu = nullptr;
  ASSERT_EQ(lib.api.nvmlDeviceGetHandleByIndex_v2(0, &gpu), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlDeviceRegisterEvents(gpu, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
  double before = 0, after = 0;
  ASSERT_EQ(lib.api.gpuwatchSimGetTime(&before), NVML_SUCCESS);
  nvmlEventData_t event{};
  EXPECT_EQ(lib.api.nvmlEventSetWait_v2(set, &event, 5000), NVML_ERROR_TIMEOUT)
      << "5 s of scenario time, 5 ms of wall";
  ASSERT_EQ(lib.api.gpuwatchSimGetTime(&after), NVML_SUCCESS);
  EXPECT_GE((after - before) * 1000, 5.0 - 1e-3) << "the reported (wall) time moved 5 ms";
  lib.api.nvmlEventSetFree(set);
}

TEST(Hang, EventWaitWakesWhenSetTimeMakesAnEventDue) {
  SimLibrary lib(scenario_path("tests/faults.yaml"));
  lib.init();
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(lib.api.nvmlEventSetCreate(&set), NVML_SUCCESS);
  ASSERT_EQ(lib.api.nvmlDeviceRegisterEvents(lib.gpu(6), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
  std::atomic<pid_t> tid{0};
  nvmlEventData_t event{};
  nvmlReturn_t result = -1;
  std::thread waiter([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    result = lib.api.nvmlEventSetWait_v2(set, &event, 600000);
  });
  while (tid == 0) std::this_thread::yield();
  wait_until_blocked(tid);
  lib.at(60);
  lib.at(125);
  waiter.join();
  EXPECT_EQ(result, NVML_SUCCESS);
  EXPECT_EQ(event.eventType, nvmlEventTypeXidCriticalError);
  EXPECT_EQ(event.eventData, 13ULL);
  // Timeout in lockstep: a wait of 1 s of scenario time ends with TIMEOUT once SetTime passes it.
  tid = 0;
  std::thread timing_out([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    result = lib.api.nvmlEventSetWait_v2(set, &event, 1000);
  });
  while (tid == 0) std::this_thread::yield();
  wait_until_blocked(tid);
  lib.at(127);
  timing_out.join();
  EXPECT_EQ(result, NVML_ERROR_TIMEOUT);
  lib.api.nvmlEventSetFree(set);
}

}  // namespace
}  // namespace gpuwatch::sim::test
