#pragma once
// The CRC-32 (zlib's polynomial) that blocks, time columns and WAL records carry, and the one check of a byte
// string that ends in its own: blocks and time columns are verified this way before any other byte is read.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "store/byte_io.h"
#include "store/codec_error.h"

namespace gpuwatch::store {

inline constexpr std::size_t kChecksumBytes = 4;

inline std::uint32_t crc32_of(std::span<const std::uint8_t> bytes) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), bytes.data(), static_cast<uInt>(bytes.size())));
}

// The CRC-32 stored in the last four bytes of `bytes` (at least that many), not verified.
inline std::uint32_t stored_checksum(std::span<const std::uint8_t> bytes) {
  ByteReader tail(bytes.last(kChecksumBytes), "checksum");
  return static_cast<std::uint32_t>(tail.fixed(4, "CRC-32"));
}

struct ChecksummedBody {
  std::span<const std::uint8_t> body;  // every byte before the checksum
  std::uint32_t checksum = 0;
};

// The bytes of `what` (a "block", a "time column") before its trailing CRC-32, once that matches them. Throws
// CodecError when there are fewer than `min_bytes` (truncated) or the checksum differs (corrupt or
// truncated).
inline ChecksummedBody checksummed_body(std::span<const std::uint8_t> bytes, std::size_t min_bytes,
                                        const std::string& what) {
  if (bytes.size() < min_bytes) {
    throw CodecError(what + " of " + std::to_string(bytes.size()) + " bytes is shorter than the smallest " +
                     what + " (" + std::to_string(min_bytes) + "): truncated");
  }
  const ChecksummedBody out{bytes.first(bytes.size() - kChecksumBytes), stored_checksum(bytes)};
  if (const std::uint32_t computed = crc32_of(out.body); computed != out.checksum) {
    char hex[48];
    std::snprintf(hex, sizeof hex, "stored 0x%08x, computed 0x%08x", out.checksum, computed);
    throw CodecError(what + " checksum mismatch (" + hex + "): the " + what + " is corrupt or truncated");
  }
  return out;
}

}  // namespace gpuwatch::store
