// Identity strings of simulated devices, derived deterministically from the seed and the GPU index so every
// process that loads the same scenario sees the same UUIDs, serials and bus ids.
#pragma once

#include <cstdint>
#include <string>

#include "sim/scenario.h"

namespace gpuwatch::sim {

std::string gpu_uuid(std::uint64_t seed, unsigned gpu);                 // "GPU-xxxxxxxx-xxxx-..."
std::string mig_uuid(std::uint64_t seed, unsigned gpu, unsigned inst);  // "MIG-xxxxxxxx-xxxx-..."
std::string gpu_serial(std::uint64_t seed, unsigned gpu);               // 13 digits
unsigned pci_bus(unsigned gpu);                                         // bus number of the GPU
std::string pci_bus_id(unsigned gpu);                                   // "00000000:3B:00.0"

}  // namespace gpuwatch::sim
