// NVML handles the simulator hands out are tokens, not pointers: a tag in the (non-canonical) top bits, the
// kind of object, the init generation and the object's indices. A handle is checked by decoding it against
// the simulator's tables, so a foreign or stale handle is rejected without ever being dereferenced.
#pragma once

#include <cstdint>
#include <optional>

namespace gpuwatch::sim {

// MIG slots per GPU (NVML allows 7 instances); a MIG handle's b is layout * kMigSlots + slot.
constexpr unsigned kMigSlots = 8;

enum class HandleKind : unsigned { kGpu = 1, kMig = 2, kEventSet = 3, kGpmSample = 4 };

struct HandleFields {
  HandleKind kind;
  std::uint32_t generation;  // 20 bits: for devices, init generation << 4 | driver loads (mod 16)
  std::uint32_t a;           // GPU index, or the id of an event set / GPM sample (24 bits with b)
  std::uint32_t b;           // MIG layout and instance index (see kMigSlots)
};

inline std::uintptr_t encode_handle(HandleFields f) {
  return (std::uintptr_t{0x6E76} << 48) | (std::uintptr_t{static_cast<unsigned>(f.kind)} << 44) |
         (std::uintptr_t{f.generation & 0xFFFFFU} << 24) | (std::uintptr_t{f.a & 0xFFFU} << 12) |
         (f.b & 0xFFFU);
}

inline std::optional<HandleFields> decode_handle(std::uintptr_t v) {
  if ((v >> 48) != 0x6E76) return std::nullopt;
  const auto kind = static_cast<unsigned>((v >> 44) & 0xF);
  if (kind < 1 || kind > 4) return std::nullopt;
  return HandleFields{static_cast<HandleKind>(kind), static_cast<std::uint32_t>((v >> 24) & 0xFFFFF),
                      static_cast<std::uint32_t>((v >> 12) & 0xFFF), static_cast<std::uint32_t>(v & 0xFFF)};
}

template <typename Handle>
Handle to_handle(HandleFields f) {
  return reinterpret_cast<Handle>(encode_handle(f));
}
template <typename Handle>
std::optional<HandleFields> from_handle(Handle h) {
  return decode_handle(reinterpret_cast<std::uintptr_t>(h));
}

}  // namespace gpuwatch::sim
