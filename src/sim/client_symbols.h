// The entry points libnvml-sim exports for other NVML clients on top of the ones gpuwatch calls
// (sources/nvml/nvml_symbols.h): what nvidia-ml-py's pynvml calls for gpustat and nvitop at start and per
// refresh, the older names nvtop and older bindings fall back to, and what exporters without DCGM ask.
// A current libnvidia-ml.so.1 exports all of them. Same row format as GPUWATCH_NVML_SYMBOLS; exports.h
// declares the rows and exports.cpp proves each one defined.
//
// X(name, required, return_type, (parameter types)); `required` is unused here.
#pragma once

#include "sim/client_abi.h"

// clang-format off
#define GPUWATCH_SIM_CLIENT_SYMBOLS(X)                                                                     \
  X(nvmlInit, false, nvmlReturn_t, (void))                                                                 \
  X(nvmlInitWithFlags, false, nvmlReturn_t, (unsigned))                                                    \
  X(nvmlDeviceGetCount, false, nvmlReturn_t, (unsigned*))                                                  \
  X(nvmlDeviceGetHandleByIndex, false, nvmlReturn_t, (unsigned, nvmlDevice_t*))                            \
  X(nvmlDeviceGetHandleByUUID, false, nvmlReturn_t, (const char*, nvmlDevice_t*))                          \
  X(nvmlDeviceGetHandleByPciBusId_v2, false, nvmlReturn_t, (const char*, nvmlDevice_t*))                   \
  X(nvmlDeviceGetMinorNumber, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                              \
  X(nvmlDeviceGetCudaComputeCapability, false, nvmlReturn_t, (nvmlDevice_t, int*, int*))                   \
  X(nvmlDeviceGetBAR1MemoryInfo, false, nvmlReturn_t, (nvmlDevice_t, nvmlBAR1Memory_t*))                   \
  X(nvmlDeviceGetConfComputeMemSizeInfo, false, nvmlReturn_t, (nvmlDevice_t, nvmlConfComputeMemSizeInfo_t*)) \
  X(nvmlDeviceGetTemperatureV, false, nvmlReturn_t, (nvmlDevice_t, nvmlTemperature_t*))                    \
  X(nvmlDeviceGetPowerManagementLimit, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                     \
  X(nvmlDeviceGetPowerManagementDefaultLimit, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))              \
  X(nvmlDeviceGetPersistenceMode, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                          \
  X(nvmlDeviceGetComputeMode, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                              \
  X(nvmlDeviceGetDisplayMode, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                              \
  X(nvmlDeviceGetDisplayActive, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                            \
  X(nvmlDeviceGetDriverModel, false, nvmlReturn_t, (nvmlDevice_t, unsigned*, unsigned*))                   \
  X(nvmlDeviceGetDriverModel_v2, false, nvmlReturn_t, (nvmlDevice_t, unsigned*, unsigned*))                \
  X(nvmlDeviceGetMPSComputeRunningProcesses_v3, false, nvmlReturn_t,                                       \
    (nvmlDevice_t, unsigned*, nvmlProcessInfo_t*))                                                         \
  X(nvmlDeviceGetRunningProcessDetailList, false, nvmlReturn_t, (nvmlDevice_t, nvmlProcessDetailList_t*))
// clang-format on
