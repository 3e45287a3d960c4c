#include "sim/identity.h"

#include <array>
#include <cstdio>

#include "sim/shape.h"

namespace gpuwatch::sim {
namespace {

std::string uuid_text(const char* prefix, std::uint64_t hi, std::uint64_t lo) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s-%08x-%04x-%04x-%04x-%012llx", prefix, static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

// Bus numbers of the eight GPUs of a typical HGX board.
constexpr std::array<unsigned, 8> kHgxBuses = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};

}  // namespace

std::string gpu_uuid(std::uint64_t seed, unsigned gpu) {
  return uuid_text("GPU", mix(seed, 0x6770, gpu), mix(seed, 0x6771, gpu));
}

std::string mig_uuid(std::uint64_t seed, unsigned gpu, unsigned inst) {
  return uuid_text("MIG", mix(seed, 0x6d69 + gpu, inst), mix(seed, 0x6d6a + gpu, inst));
}

std::string gpu_serial(std::uint64_t seed, unsigned gpu) {
  return "165" + std::to_string(1000000000ULL + mix(seed, 0x5e, gpu) % 9000000000ULL);
}

unsigned pci_bus(unsigned gpu) {
  return gpu < kHgxBuses.size() ? kHgxBuses[gpu] : 0xE0 + (gpu - 8) % 0x1F;
}

std::string pci_bus_id(unsigned gpu) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08X:%02X:00.0", 0U, pci_bus(gpu));
  return buf;
}

}  // namespace gpuwatch::sim
