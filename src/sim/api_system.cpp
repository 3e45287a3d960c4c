// Library lifetime, system queries, device enumeration, and the simulator-only clock entry points.
#include "sim/api_support.h"

#include <cstdlib>

using namespace gpuwatch::sim;

namespace {

// GPUWATCH_SIM_KMSG names a file that follows scenario time: every clock read or step appends the kernel-log
// records that became due, so an agent reading it (--kmsg) sees them as it would on a real node.
void follow_kernel_log() {
  if (const char* path = std::getenv("GPUWATCH_SIM_KMSG"); path && *path) sim().write_kernel_log(path);
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  return guarded([]() -> nvmlReturn_t { return sim().init(); });
}

// pynvml's nvmlInit() calls this with flags 0. NO_GPUS and NO_ATTACH change nothing here: a scenario
// always has its GPUs, and attaching to a simulated one costs nothing.
nvmlReturn_t nvmlInitWithFlags(unsigned) {
  return nvmlInit_v2();
}

// The first ABI's name, which older bindings and nvtop still fall back to.
nvmlReturn_t nvmlInit(void) {
  return nvmlInit_v2();
}

nvmlReturn_t nvmlShutdown(void) {
  return guarded([]() -> nvmlReturn_t { return sim().shutdown(); });
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned length) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    return copy_string(c.node->faults.driver_version(c.t), version, length);
  });
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned length) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    return copy_string(c.node->faults.nvml_version(c.t), version, length);
  });
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    if (!version) return NVML_ERROR_INVALID_ARGUMENT;
    *version = c.node->scenario.node.cuda_driver_version;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version) {
  return nvmlSystemGetCudaDriverVersion_v2(version);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = static_cast<unsigned>(c.node->scenario.devices.size());
    return NVML_SUCCESS;
  });
}

// The first ABI counted only the GPUs the caller may open; every simulated GPU is open to everyone.
nvmlReturn_t nvmlDeviceGetCount(unsigned* count) {
  return nvmlDeviceGetCount_v2(count);
}

int gpuwatchSimGetTime(double* unix_seconds) {
  return guarded([&]() -> nvmlReturn_t {
    const nvmlReturn_t r = unix_seconds ? sim().get_time(*unix_seconds) : NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) follow_kernel_log();
    return r;
  });
}

int gpuwatchSimSetTime(double unix_seconds) {
  return guarded([&]() -> nvmlReturn_t {
    const nvmlReturn_t r = sim().set_time(unix_seconds);
    if (r == NVML_SUCCESS) follow_kernel_log();
    return r;
  });
}

int gpuwatchSimWriteKernelLog(const char* path) {
  return guarded([&]() -> nvmlReturn_t {
    if (!path || !*path) return NVML_ERROR_INVALID_ARGUMENT;
    return sim().write_kernel_log(path);
  });
}

int gpuwatchSimIsLockstep(int* lockstep) {
  return guarded([&]() -> nvmlReturn_t {
    return lockstep ? sim().is_lockstep(*lockstep) : NVML_ERROR_INVALID_ARGUMENT;
  });
}

int gpuwatchSimParkedCalls(unsigned* count) {
  return guarded(
      [&]() -> nvmlReturn_t { return count ? sim().parked_calls(*count) : NVML_ERROR_INVALID_ARGUMENT; });
}

int gpuwatchSimGetHostname(char* buf, unsigned len) {
  return guarded([&]() -> nvmlReturn_t {
    const auto node = sim().node();
    return node ? copy_string(node->scenario.node.hostname, buf, len) : NVML_ERROR_UNINITIALIZED;
  });
}

int gpuwatchSimLastError(char* buf, unsigned len) {
  return guarded([&]() -> nvmlReturn_t { return copy_string(sim().last_error(), buf, len); });
}

}  // extern "C"
