// Declarations of every symbol libnvml-sim exports, generated from the NVML symbol tables (the one gpuwatch
// calls and the simulator's rows for other clients): a definition whose signature differs from its row fails
// to compile, and exports.cpp takes the address of each one, so a missing definition fails to link.
#pragma once

#include "sim/client_symbols.h"
#include "sources/nvml/nvml_symbols.h"

#define GPUWATCH_SIM_EXPORT __attribute__((visibility("default")))

extern "C" {

#define GPUWATCH_SIM_DECLARE(name, required, ret, params) GPUWATCH_SIM_EXPORT ret name params;
GPUWATCH_NVML_SYMBOLS(GPUWATCH_SIM_DECLARE)
GPUWATCH_SIM_CLIENT_SYMBOLS(GPUWATCH_SIM_DECLARE)
#undef GPUWATCH_SIM_DECLARE

// Simulator-only entry points.
GPUWATCH_SIM_EXPORT int gpuwatchSimGetTime(double* unix_seconds);
GPUWATCH_SIM_EXPORT int gpuwatchSimSetTime(double unix_seconds);
GPUWATCH_SIM_EXPORT int gpuwatchSimIsLockstep(int* lockstep);
GPUWATCH_SIM_EXPORT int gpuwatchSimParkedCalls(unsigned* hung, unsigned* event_waits);
GPUWATCH_SIM_EXPORT int gpuwatchSimLastError(char* buf, unsigned len);
GPUWATCH_SIM_EXPORT int gpuwatchSimGetHostname(char* buf, unsigned len);
GPUWATCH_SIM_EXPORT int gpuwatchSimWriteProcTree(const char* dir);
GPUWATCH_SIM_EXPORT int gpuwatchSimWriteSysfsTree(const char* dir);
GPUWATCH_SIM_EXPORT int gpuwatchSimWriteKernelLog(const char* path);
// The scenario's model servers (sim/services.cpp): how many, one's port, pid and kind, and its /metrics text
// now (NVML's INSUFFICIENT_SIZE dance with *needed; GPU_IS_LOST while its GPU is lost: refuse connections).
GPUWATCH_SIM_EXPORT int gpuwatchSimServiceCount(unsigned* count);
GPUWATCH_SIM_EXPORT int gpuwatchSimServiceInfo(unsigned index, unsigned* port, unsigned* pid, char* kind,
                                               unsigned kind_len);
GPUWATCH_SIM_EXPORT int gpuwatchSimServiceMetrics(unsigned index, char* buf, unsigned len, unsigned* needed);
GPUWATCH_SIM_EXPORT int gpuwatchSimPodResources(char* buf, unsigned len);

}  // extern "C"
