// Link-time proof that every symbol of both NVML tables and every simulator-only entry point is defined:
// taking each address makes a missing definition an undefined reference (the library links with
// --no-undefined).
#include "sim/exports.h"

namespace gpuwatch::sim {

#define GPUWATCH_SIM_ADDRESS(name, required, ret, params) reinterpret_cast<const void*>(&name),
[[gnu::used]] const void* const kExportedSymbols[] = {
    GPUWATCH_NVML_SYMBOLS(GPUWATCH_SIM_ADDRESS)
        GPUWATCH_SIM_CLIENT_SYMBOLS(GPUWATCH_SIM_ADDRESS) reinterpret_cast<const void*>(&gpuwatchSimGetTime),
    reinterpret_cast<const void*>(&gpuwatchSimSetTime),
    reinterpret_cast<const void*>(&gpuwatchSimIsLockstep),
    reinterpret_cast<const void*>(&gpuwatchSimParkedCalls),
    reinterpret_cast<const void*>(&gpuwatchSimLastError),
    reinterpret_cast<const void*>(&gpuwatchSimGetHostname),
    reinterpret_cast<const void*>(&gpuwatchSimWriteProcTree),
    reinterpret_cast<const void*>(&gpuwatchSimWriteSysfsTree),
    reinterpret_cast<const void*>(&gpuwatchSimWriteKernelLog),
    reinterpret_cast<const void*>(&gpuwatchSimServiceCount),
    reinterpret_cast<const void*>(&gpuwatchSimServiceInfo),
    reinterpret_cast<const void*>(&gpuwatchSimServiceMetrics),
    reinterpret_cast<const void*>(&gpuwatchSimPodResources),
};
#undef GPUWATCH_SIM_ADDRESS

}  // namespace gpuwatch::sim
