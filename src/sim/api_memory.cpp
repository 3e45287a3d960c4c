// Device memory: framebuffer use (both struct versions), the BAR1 aperture and the confidential-computing
// split.
#include "sim/api_support.h"
#include "sim/client_abi.h"

using namespace gpuwatch::sim;

namespace {

struct MemoryUse {
  double total, reserved, used;
};
MemoryUse memory_use(const Call& c) {
  if (c.mig >= 0) {
    const MigInstance& mi = c.instances()[static_cast<std::size_t>(c.mig)];
    // Processes belong to the scenario's first layout; the loader makes them stop before a reconfiguration.
    const double used =
        c.mig_epoch == 0 ? c.node->processes.instance_memory_used(c.gpu, c.mig, c.t) : kInstanceReservedBytes;
    return {mi.profile->memory_mib * 1024.0 * 1024.0, kInstanceReservedBytes, used};
  }
  return {static_cast<double>(c.device().memory_bytes), kDriverReservedBytes,
          c.node->processes.gpu_memory_used(c.gpu, c.t)};
}

constexpr unsigned long long kMiB = 1024ULL * 1024;

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    const MemoryUse m = memory_use(c);
    const auto total = static_cast<unsigned long long>(m.total),
               used = static_cast<unsigned long long>(m.used);
    *memory = nvmlMemory_t{total, total - used, used};
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const MemoryUse m = memory_use(c);
    const auto total = static_cast<unsigned long long>(m.total);
    const auto reserved = static_cast<unsigned long long>(m.reserved);
    const auto used = static_cast<unsigned long long>(m.used) - reserved;
    *memory = nvmlMemory_v2_t{nvmlMemory_v2, total, reserved, total - reserved - used, used};
    return NVML_SUCCESS;
  });
}

// The driver maps 1 MiB of the aperture for itself, which is what an idle card shows as used.
nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t* bar1) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!bar1) return NVML_ERROR_INVALID_ARGUMENT;
    const unsigned long long total = c.device().model->bar1_mib * kMiB;
    *bar1 = nvmlBAR1Memory_t{total, total - kMiB, kMiB};
    return NVML_SUCCESS;
  });
}

// Hopper and later can run in confidential-computing mode; the simulated nodes have it off, so none of
// the framebuffer is protected. Earlier cards have no such mode.
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, nvmlConfComputeMemSizeInfo_t* info) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.device().model->cuda.major < 9) return NVML_ERROR_NOT_SUPPORTED;
    *info = nvmlConfComputeMemSizeInfo_t{0, c.device().memory_bytes / 1024};
    return NVML_SUCCESS;
  });
}

}  // extern "C"
