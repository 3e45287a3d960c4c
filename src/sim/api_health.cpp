// Error counters: PCIe replays, ECC, retired pages (pre-Ampere) and remapped rows (Ampere and later).
#include "sim/api_support.h"

using namespace gpuwatch::sim;

extern "C" {

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned* count) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = static_cast<unsigned>(c.node->faults.pcie_replays(c.gpu, c.t));
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, unsigned error_type, unsigned counter_type,
                                         unsigned long long* count) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!count || counter_type > NVML_AGGREGATE_ECC) return NVML_ERROR_INVALID_ARGUMENT;
    // The scenario starts from a clean card, so volatile and aggregate counts agree.
    if (error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED)
      *count = c.node->faults.ecc_corrected(c.gpu, c.t);
    else if (error_type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED)
      *count = c.node->faults.ecc_uncorrected(c.gpu, c.t);
    else
      return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, unsigned cause, unsigned* count,
                                       unsigned long long* addresses) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!count || cause > NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.device().model->row_remapping) return NVML_ERROR_NOT_SUPPORTED;
    const unsigned long long n = cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
                                     ? c.node->faults.ecc_uncorrected(c.gpu, c.t)
                                     : c.node->faults.ecc_corrected(c.gpu, c.t) / 2;
    const unsigned capacity = *count;
    *count = static_cast<unsigned>(n);
    if (capacity < n) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (unsigned long long i = 0; i < n && addresses; ++i) addresses[i] = 0x1000000ULL + i * 0x1000;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, unsigned* pending) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!pending) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.device().model->row_remapping) return NVML_ERROR_NOT_SUPPORTED;
    *pending = c.node->faults.ecc_uncorrected(c.gpu, c.t) > 0 ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned* corrected, unsigned* uncorrected,
                                       unsigned* pending, unsigned* failed) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!corrected || !uncorrected || !pending || !failed) return NVML_ERROR_INVALID_ARGUMENT;
    if (!c.device().model->row_remapping) return NVML_ERROR_NOT_SUPPORTED;
    const RemapState r = c.node->faults.remap(c.gpu, c.t);
    *corrected = r.correctable;
    *uncorrected = r.uncorrectable;
    *pending = r.pending ? 1 : 0;
    *failed = r.failure ? 1 : 0;
    return NVML_SUCCESS;
  });
}

}  // extern "C"
