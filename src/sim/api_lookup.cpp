// Finding a device: by index, or by what users name it by, its UUID (a GPU's or a MIG instance's, as in
// CUDA_VISIBLE_DEVICES) or its PCI bus id (as in nvidia-smi and sysfs).
#include <cstdio>
#include <cstring>
#include <optional>

#include "sim/api_support.h"
#include "sim/handles.h"
#include "sim/identity.h"

using namespace gpuwatch::sim;

namespace {

struct BusAddress {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
};

// "domain:bus:device.function" in hex, in NVML's 8-digit form, sysfs' 4-digit form or without the domain.
std::optional<BusAddress> parse_bus_id(const char* text) {
  BusAddress a;
  int end = -1;
  const auto whole = [&] { return end >= 0 && static_cast<std::size_t>(end) == std::strlen(text); };
  if (std::sscanf(text, "%x:%x:%x.%x%n", &a.domain, &a.bus, &a.device, &a.function, &end) == 4 && whole())
    return a;
  end = -1;
  a = BusAddress{};
  if (std::sscanf(text, "%x:%x.%x%n", &a.bus, &a.device, &a.function, &end) == 3 && whole()) return a;
  return std::nullopt;
}

// A GPU that fell off the bus is still enumerated, but NVML says so when asked for its handle.
nvmlReturn_t gpu_found(const Call& c, unsigned gpu, nvmlDevice_t* device) {
  *device = Simulator::gpu_handle(c, gpu);
  return c.node->faults.lost(gpu, c.t) ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* device) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    if (!device || index >= c.node->scenario.devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
    return gpu_found(c, index, device);
  });
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned index, nvmlDevice_t* device) {
  return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  return on_system([&](const Call& system) -> nvmlReturn_t {
    if (!uuid || !device) return NVML_ERROR_INVALID_ARGUMENT;
    const unsigned count = static_cast<unsigned>(system.node->scenario.devices.size());
    for (unsigned gpu = 0; gpu < count; ++gpu) {
      if (gpu_uuid(system.seed(), gpu) == uuid) return gpu_found(system, gpu, device);
      Call c = system;
      c.gpu = gpu;
      c.mig_epoch = c.node->faults.mig_epoch(gpu, c.t);
      if (!c.device().mig_enabled) continue;
      for (unsigned inst = 0; inst < c.instances().size(); ++inst) {
        if (mig_uuid(c.seed(), gpu, inst + kMigSlots * c.mig_epoch) != uuid) continue;
        if (c.node->faults.lost(gpu, c.t)) return NVML_ERROR_GPU_IS_LOST;
        *device = Simulator::mig_handle(c, inst);
        return NVML_SUCCESS;
      }
    }
    return NVML_ERROR_NOT_FOUND;
  });
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* device) {
  return on_system([&](const Call& c) -> nvmlReturn_t {
    if (!bus_id || !device) return NVML_ERROR_INVALID_ARGUMENT;
    const std::optional<BusAddress> a = parse_bus_id(bus_id);
    if (!a) return NVML_ERROR_INVALID_ARGUMENT;
    const unsigned count = static_cast<unsigned>(c.node->scenario.devices.size());
    for (unsigned gpu = 0; gpu < count; ++gpu)
      if (a->domain == 0 && a->bus == pci_bus(gpu) && a->device == 0 && a->function == 0)
        return gpu_found(c, gpu, device);
    return NVML_ERROR_NOT_FOUND;
  });
}

}  // extern "C"
