// Library lifetime, system queries, device enumeration, and the simulator-only clock entry points.
#include "sim/api_support.h"

using namespace gpuwatch::sim;

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  return guarded([]() -> nvmlReturn_t { return sim().init(); });
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

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* device) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    if (!device || index >= c.node->scenario.devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
    *device = Simulator::gpu_handle(c, index);
    // A GPU that fell off the bus is still enumerated, but NVML says so when asked for its handle.
    return c.node->faults.lost(index, c.t) ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
  });
}

int gpuwatchSimGetTime(double* unix_seconds) {
  return guarded([&]() -> nvmlReturn_t {
    return unix_seconds ? sim().get_time(*unix_seconds) : NVML_ERROR_INVALID_ARGUMENT;
  });
}

int gpuwatchSimSetTime(double unix_seconds) {
  return guarded([&]() -> nvmlReturn_t { return sim().set_time(unix_seconds); });
}

int gpuwatchSimIsLockstep(int* lockstep) {
  return guarded([&]() -> nvmlReturn_t {
    return lockstep ? sim().is_lockstep(*lockstep) : NVML_ERROR_INVALID_ARGUMENT;
  });
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
