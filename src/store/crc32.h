#pragma once
// The CRC-32 (zlib's polynomial) that blocks, time columns and WAL records carry: one helper for all of them.
#include <zlib.h>

#include <cstdint>
#include <span>

namespace gpuwatch::store {

inline std::uint32_t crc32_of(std::span<const std::uint8_t> bytes) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), bytes.data(), static_cast<uInt>(bytes.size())));
}

}  // namespace gpuwatch::store
