// How a card is set up: persistence, compute mode, display and the Windows driver model. The simulated
// nodes are Linux data-centre nodes: nvidia-persistenced keeps the driver loaded, the compute mode is the
// default, no display is attached, and the driver model (WDDM/TCC/MCDM) exists only on Windows.
#include "sim/api_support.h"
#include "sim/client_abi.h"

using namespace gpuwatch::sim;

namespace {

nvmlReturn_t answer(nvmlDevice_t device, unsigned* out, unsigned value) {
  return on_gpu(device, [&](const Call&) -> nvmlReturn_t {
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    *out = value;
    return NVML_SUCCESS;
  });
}

// What the Linux driver answers for the Windows-only driver model.
nvmlReturn_t windows_only(nvmlDevice_t device, unsigned* current, unsigned* pending) {
  return on_gpu(device, [&](const Call&) -> nvmlReturn_t {
    if (!current && !pending) return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_NOT_SUPPORTED;
  });
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, unsigned* mode) {
  return answer(device, mode, NVML_FEATURE_ENABLED);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, unsigned* mode) {
  return answer(device, mode, NVML_COMPUTEMODE_DEFAULT);
}

nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, unsigned* mode) {
  return answer(device, mode, NVML_FEATURE_DISABLED);
}

nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, unsigned* active) {
  return answer(device, active, NVML_FEATURE_DISABLED);
}

nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, unsigned* current, unsigned* pending) {
  return windows_only(device, current, pending);
}

nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, unsigned* current, unsigned* pending) {
  return windows_only(device, current, pending);
}

}  // extern "C"
