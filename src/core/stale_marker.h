// Prometheus's staleness marker: a NaN with one exact bit pattern (value.StaleNaN), written when a series
// stops being scraped. The store keeps the bits as they are and the query engine treats the point as "no
// value from here on" (a plain NaN is a value), so the marker is compared by its bits, never with isnan.
#pragma once

#include <bit>
#include <cstdint>

namespace gpuwatch {

inline constexpr std::uint64_t kStaleNaNBits = 0x7ff0000000000002ULL;

inline double stale_marker() {
  return std::bit_cast<double>(kStaleNaNBits);
}
inline bool is_stale_marker(double v) {
  return std::bit_cast<std::uint64_t>(v) == kStaleNaNBits;
}

}  // namespace gpuwatch
