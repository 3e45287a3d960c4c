// One table of every NVML entry point gpuwatch calls: name, signature, and whether the backend can run
// without it. The backend's function table, its symbol resolution and libnvml-sim's export check are all
// generated from this list, so adding a call is one line here.
//
// X(name, required, return_type, (parameter types))
#pragma once

#include "sources/nvml/nvml_abi.h"

// clang-format off
#define GPUWATCH_NVML_SYMBOLS(X)                                                                           \
  X(nvmlInit_v2, true, nvmlReturn_t, (void))                                                               \
  X(nvmlShutdown, true, nvmlReturn_t, (void))                                                              \
  X(nvmlErrorString, true, const char*, (nvmlReturn_t))                                                    \
  X(nvmlSystemGetDriverVersion, true, nvmlReturn_t, (char*, unsigned))                                     \
  X(nvmlSystemGetNVMLVersion, false, nvmlReturn_t, (char*, unsigned))                                      \
  X(nvmlSystemGetCudaDriverVersion_v2, false, nvmlReturn_t, (int*))                                        \
  X(nvmlSystemGetCudaDriverVersion, false, nvmlReturn_t, (int*))                                           \
  X(nvmlDeviceGetCount_v2, true, nvmlReturn_t, (unsigned*))                                                \
  X(nvmlDeviceGetHandleByIndex_v2, true, nvmlReturn_t, (unsigned, nvmlDevice_t*))                          \
  X(nvmlDeviceGetIndex, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                                    \
  X(nvmlDeviceGetName, true, nvmlReturn_t, (nvmlDevice_t, char*, unsigned))                                \
  X(nvmlDeviceGetUUID, true, nvmlReturn_t, (nvmlDevice_t, char*, unsigned))                                \
  X(nvmlDeviceGetSerial, false, nvmlReturn_t, (nvmlDevice_t, char*, unsigned))                             \
  X(nvmlDeviceGetVbiosVersion, false, nvmlReturn_t, (nvmlDevice_t, char*, unsigned))                       \
  X(nvmlDeviceGetPciInfo_v3, false, nvmlReturn_t, (nvmlDevice_t, nvmlPciInfo_t*))                          \
  X(nvmlDeviceGetUtilizationRates, false, nvmlReturn_t, (nvmlDevice_t, nvmlUtilization_t*))                \
  X(nvmlDeviceGetMemoryInfo_v2, false, nvmlReturn_t, (nvmlDevice_t, nvmlMemory_v2_t*))                     \
  X(nvmlDeviceGetMemoryInfo, false, nvmlReturn_t, (nvmlDevice_t, nvmlMemory_t*))                           \
  X(nvmlDeviceGetTemperature, false, nvmlReturn_t, (nvmlDevice_t, unsigned, unsigned*))                    \
  X(nvmlDeviceGetTemperatureThreshold, false, nvmlReturn_t, (nvmlDevice_t, unsigned, unsigned*))           \
  X(nvmlDeviceGetPowerUsage, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                               \
  X(nvmlDeviceGetEnforcedPowerLimit, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                       \
  X(nvmlDeviceGetTotalEnergyConsumption, false, nvmlReturn_t, (nvmlDevice_t, unsigned long long*))         \
  X(nvmlDeviceGetClockInfo, false, nvmlReturn_t, (nvmlDevice_t, unsigned, unsigned*))                      \
  X(nvmlDeviceGetMaxClockInfo, false, nvmlReturn_t, (nvmlDevice_t, unsigned, unsigned*))                   \
  X(nvmlDeviceGetCurrentClocksEventReasons, false, nvmlReturn_t, (nvmlDevice_t, unsigned long long*))      \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, false, nvmlReturn_t, (nvmlDevice_t, unsigned long long*))   \
  X(nvmlDeviceGetViolationStatus, false, nvmlReturn_t, (nvmlDevice_t, unsigned, nvmlViolationTime_t*))     \
  X(nvmlDeviceGetFanSpeed, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                                 \
  X(nvmlDeviceGetPerformanceState, false, nvmlReturn_t, (nvmlDevice_t, int*))                              \
  X(nvmlDeviceGetPcieThroughput, false, nvmlReturn_t, (nvmlDevice_t, unsigned, unsigned*))                 \
  X(nvmlDeviceGetPcieReplayCounter, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                        \
  X(nvmlDeviceGetCurrPcieLinkGeneration, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                   \
  X(nvmlDeviceGetCurrPcieLinkWidth, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                        \
  X(nvmlDeviceGetMaxPcieLinkGeneration, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                    \
  X(nvmlDeviceGetMaxPcieLinkWidth, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                         \
  X(nvmlDeviceGetTotalEccErrors, false, nvmlReturn_t,                                                      \
    (nvmlDevice_t, unsigned, unsigned, unsigned long long*))                                               \
  X(nvmlDeviceGetRetiredPages, false, nvmlReturn_t,                                                        \
    (nvmlDevice_t, unsigned, unsigned*, unsigned long long*))                                              \
  X(nvmlDeviceGetRetiredPagesPendingStatus, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                \
  X(nvmlDeviceGetRemappedRows, false, nvmlReturn_t, (nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)) \
  X(nvmlDeviceGetEncoderUtilization, false, nvmlReturn_t, (nvmlDevice_t, unsigned*, unsigned*))            \
  X(nvmlDeviceGetDecoderUtilization, false, nvmlReturn_t, (nvmlDevice_t, unsigned*, unsigned*))            \
  X(nvmlDeviceGetComputeRunningProcesses_v3, false, nvmlReturn_t,                                          \
    (nvmlDevice_t, unsigned*, nvmlProcessInfo_t*))                                                         \
  X(nvmlDeviceGetGraphicsRunningProcesses_v3, false, nvmlReturn_t,                                         \
    (nvmlDevice_t, unsigned*, nvmlProcessInfo_t*))                                                         \
  X(nvmlDeviceGetComputeRunningProcesses_v2, false, nvmlReturn_t,                                          \
    (nvmlDevice_t, unsigned*, nvmlProcessInfo_t*))                                                         \
  X(nvmlDeviceGetGraphicsRunningProcesses_v2, false, nvmlReturn_t,                                         \
    (nvmlDevice_t, unsigned*, nvmlProcessInfo_t*))                                                         \
  X(nvmlDeviceGetProcessUtilization, false, nvmlReturn_t,                                                  \
    (nvmlDevice_t, nvmlProcessUtilizationSample_t*, unsigned*, unsigned long long))                        \
  X(nvmlDeviceGetFieldValues, false, nvmlReturn_t, (nvmlDevice_t, int, nvmlFieldValue_t*))                 \
  X(nvmlDeviceGetNvLinkState, false, nvmlReturn_t, (nvmlDevice_t, unsigned, unsigned*))                    \
  X(nvmlDeviceGetGpuFabricInfo, false, nvmlReturn_t, (nvmlDevice_t, nvmlGpuFabricInfo_t*))                 \
  X(nvmlEventSetCreate, false, nvmlReturn_t, (nvmlEventSet_t*))                                            \
  X(nvmlDeviceGetSupportedEventTypes, false, nvmlReturn_t, (nvmlDevice_t, unsigned long long*))            \
  X(nvmlDeviceRegisterEvents, false, nvmlReturn_t, (nvmlDevice_t, unsigned long long, nvmlEventSet_t))     \
  X(nvmlEventSetWait_v2, false, nvmlReturn_t, (nvmlEventSet_t, nvmlEventData_t*, unsigned))                \
  X(nvmlEventSetFree, false, nvmlReturn_t, (nvmlEventSet_t))                                               \
  X(nvmlDeviceGetMigMode, false, nvmlReturn_t, (nvmlDevice_t, unsigned*, unsigned*))                       \
  X(nvmlDeviceGetMaxMigDeviceCount, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                        \
  X(nvmlDeviceGetMigDeviceHandleByIndex, false, nvmlReturn_t, (nvmlDevice_t, unsigned, nvmlDevice_t*))     \
  X(nvmlDeviceIsMigDeviceHandle, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                           \
  X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, false, nvmlReturn_t, (nvmlDevice_t, nvmlDevice_t*))      \
  X(nvmlDeviceGetGpuInstanceId, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                            \
  X(nvmlDeviceGetComputeInstanceId, false, nvmlReturn_t, (nvmlDevice_t, unsigned*))                        \
  X(nvmlGpmQueryDeviceSupport, false, nvmlReturn_t, (nvmlDevice_t, nvmlGpmSupport_t*))                     \
  X(nvmlGpmSampleAlloc, false, nvmlReturn_t, (nvmlGpmSample_t*))                                           \
  X(nvmlGpmSampleFree, false, nvmlReturn_t, (nvmlGpmSample_t))                                             \
  X(nvmlGpmSampleGet, false, nvmlReturn_t, (nvmlDevice_t, nvmlGpmSample_t))                                \
  X(nvmlGpmMigSampleGet, false, nvmlReturn_t, (nvmlDevice_t, unsigned, nvmlGpmSample_t))                   \
  X(nvmlGpmMetricsGet, false, nvmlReturn_t, (nvmlGpmMetricsGet_t*))
// clang-format on

// Simulator-only entry points (absent from the real library): scenario time, for lockstep tests and for
// the agent's clock when it runs on the simulator.
//   int gpuwatchSimGetTime(double* unix_seconds)   scenario time as Unix seconds
//   int gpuwatchSimSetTime(double unix_seconds)    lockstep only: move scenario time forward (never back)
//   int gpuwatchSimIsLockstep(int* lockstep)
//   int gpuwatchSimParkedCalls(unsigned* hung, unsigned* event_waits)
//                                                       calls blocked until a scenario time still ahead
//   int gpuwatchSimLastError(char* buf, unsigned len)   why the last nvmlInit_v2 failed (scenario error)
//   int gpuwatchSimWriteProcTree(const char* dir)       fake /proc entries of the scenario's processes
//   int gpuwatchSimPodResources(char* buf, unsigned len) the scenario's pods as a kubelet lists them
//   int gpuwatchSimWriteSysfsTree(const char* dir)      fake /sys PCI tree of the scenario's GPUs and
//   switches
