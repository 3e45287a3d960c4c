// Who a device is: index, minor number, name, UUID, serial, VBIOS, compute capability, PCI identity, and
// its MIG layout.
#include <cstdio>

#include "sim/api_support.h"
#include "sim/handles.h"
#include "sim/identity.h"

using namespace gpuwatch::sim;

namespace {

std::string device_name(const Call& c) {
  std::string name(c.device().model->name);
  if (c.mig >= 0) name += " MIG " + std::string(c.instances()[static_cast<std::size_t>(c.mig)].profile->name);
  return name;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned* index) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!index) return NVML_ERROR_INVALID_ARGUMENT;
    *index = c.gpu;
    return NVML_SUCCESS;
  });
}

// The N of /dev/nvidiaN: the simulated node creates the device files in index order.
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned* minor) {
  return nvmlDeviceGetIndex(device, minor);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
    *major = c.device().model->cuda.major;
    *minor = c.device().model->cuda.minor;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned length) {
  return on_device(device,
                   [&](const Call& c) -> nvmlReturn_t { return copy_string(device_name(c), name, length); });
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned length) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    const std::string text =
        // An instance of a new MIG layout is a new device with a UUID of its own.
        c.mig >= 0 ? mig_uuid(c.seed(), c.gpu, static_cast<unsigned>(c.mig) + kMigSlots * c.mig_epoch)
                   : gpu_uuid(c.seed(), c.gpu);
    return copy_string(text, uuid, length);
  });
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char* serial, unsigned length) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return copy_string(gpu_serial(c.seed(), c.gpu), serial, length);
  });
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char* version, unsigned length) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return copy_string(c.device().model->vbios, version, length);
  });
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
    *pci = nvmlPciInfo_t{};
    pci->domain = 0;
    pci->bus = pci_bus(c.gpu);
    pci->device = 0;
    pci->pciDeviceId = (c.device().model->pci_device_id << 16) | 0x10DE;
    pci->pciSubSystemId = (0x1876U << 16) | 0x10DE;
    const std::string bus_id = pci_bus_id(c.gpu);
    std::snprintf(pci->busId, sizeof pci->busId, "%s", bus_id.c_str());
    std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:00.0", 0U, pci->bus);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned* current, unsigned* pending) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.device().model->mig_profiles.empty()) return NVML_ERROR_NOT_SUPPORTED;
    *current = *pending = c.device().mig_enabled ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    return NVML_SUCCESS;
  });
}

// NVSwitch systems with Hopper and later GPUs register each GPU with the fabric manager; the simulated HGX
// boards always have, successfully. Earlier models have no such API.
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t* info) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (!c.device().model->gpm) return NVML_ERROR_NOT_SUPPORTED;
    *info = nvmlGpuFabricInfo_t{};
    for (unsigned i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i)
      info->clusterUuid[i] = static_cast<unsigned char>(0xA0 + i);
    info->status = NVML_SUCCESS;
    info->cliqueId = 1;
    info->state = NVML_GPU_FABRIC_STATE_COMPLETED;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned* count) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.device().model->mig_profiles.empty()) return NVML_ERROR_NOT_SUPPORTED;
    *count = c.device().mig_enabled ? 7 : 0;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned index, nvmlDevice_t* mig) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!mig) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.device().model->mig_profiles.empty() || !c.device().mig_enabled) return NVML_ERROR_NOT_SUPPORTED;
    if (index >= 7) return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= c.instances().size()) return NVML_ERROR_NOT_FOUND;
    *mig = Simulator::mig_handle(c, index);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned* is_mig) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!is_mig) return NVML_ERROR_INVALID_ARGUMENT;
    *is_mig = c.mig >= 0 ? 1 : 0;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t* device) {
  return on_device(mig, [&](const Call& c) -> nvmlReturn_t {
    if (!device || c.mig < 0) return NVML_ERROR_INVALID_ARGUMENT;
    *device = Simulator::gpu_handle(c, c.gpu);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned* id) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!id) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.mig < 0) return NVML_ERROR_NOT_SUPPORTED;
    *id = c.instances()[static_cast<std::size_t>(c.mig)].gpu_instance_id;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned* id) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!id) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.mig < 0) return NVML_ERROR_NOT_SUPPORTED;
    *id = 0;
    return NVML_SUCCESS;
  });
}

}  // extern "C"
