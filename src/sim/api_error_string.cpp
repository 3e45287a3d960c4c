// nvmlErrorString with NVIDIA's wording for every return code.
#include <array>
#include <utility>

#include "sim/api_support.h"

namespace {

constexpr std::array<std::pair<nvmlReturn_t, const char*>, 32> kMessages = {{
    {NVML_SUCCESS, "Success"},
    {NVML_ERROR_UNINITIALIZED, "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "Interrupt Request Issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "GPU requires restart"},
    {NVML_ERROR_OPERATING_SYSTEM, "The operating system has blocked the request."},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "RM has detected an NVML/RM version mismatch."},
    {NVML_ERROR_IN_USE, "In use by another client"},
    {NVML_ERROR_MEMORY, "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "No data"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED,
     "The requested vgpu operation is not available on target device, becasue ECC is enabled"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "Ran out of critical resources, other than memory"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "The requested frequency is not supported"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "The provided version is invalid/unsupported"},
    {NVML_ERROR_DEPRECATED, "The requested functionality has been deprecated"},
    {NVML_ERROR_NOT_READY, "The system is not ready for the request"},
    {NVML_ERROR_GPU_NOT_FOUND, "The GPU was not found"},
    {NVML_ERROR_INVALID_STATE, "Invalid state"},
    {NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "The reset type is not supported"},
    {NVML_ERROR_UNKNOWN, "Unknown Error"},
}};

}  // namespace

extern "C" const char* nvmlErrorString(nvmlReturn_t result) {
  for (const auto& [code, message] : kMessages)
    if (code == result) return message;
  return "Unknown Error";
}
