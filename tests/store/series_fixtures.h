#pragma once
// Seeded series generators and a bit-exact comparison shared by the codec tests.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "store/chunk_codec.h"

namespace gpuwatch::store::testing {

inline std::vector<std::int64_t> every_second(std::size_t n, std::int64_t start_ms = 1795824000000) {
  std::vector<std::int64_t> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = start_ms + static_cast<std::int64_t>(i) * 1000;
  return t;
}

// Integer-column numbers at the edges: zero, ±1, the int64 extremes, and 3,000 of every bit length and sign.
inline std::vector<std::int64_t> extreme_numbers(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> numbers = {
      0, -1, 1,    std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
      0, 0,  12345};
  for (int i = 0; i < 3000; ++i)
    numbers.push_back(static_cast<std::int64_t>(rng() >> (rng() % 64)) * (i % 2 ? 1 : -1));
  return numbers;
}

inline std::vector<std::uint64_t> bits_of(const std::vector<double>& v) {
  std::vector<std::uint64_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = std::bit_cast<std::uint64_t>(v[i]);
  return b;
}

// Encodes, decodes and requires every timestamp and every value bit back; returns the block.
inline std::vector<std::uint8_t> expect_round_trip(const std::vector<std::int64_t>& t,
                                                   const std::vector<double>& v, EncodeOptions options = {}) {
  std::vector<std::uint8_t> block = encode_block(t, v, options);
  const DecodedBlock d = decode_block(block);
  EXPECT_EQ(d.timestamps_ms, t);
  EXPECT_EQ(bits_of(d.values), bits_of(v));
  const BlockInfo info = inspect_block(block);
  EXPECT_EQ(info.samples, t.size());
  EXPECT_EQ(info.first_ms, t.front());
  EXPECT_EQ(info.last_ms, t.back());
  EXPECT_EQ(info.encoded_bytes, block.size());
  return block;
}

inline double from_bits(std::uint64_t b) {
  return std::bit_cast<double>(b);
}

// A series of GPU-like shape: a mean-reverting walk rounded to `decimals` digits.
inline std::vector<double> decimal_walk(std::mt19937_64& rng, std::size_t n, int decimals, double scale) {
  std::normal_distribution<double> step(0.0, scale);
  std::vector<double> v(n);
  double x = 50.0 * scale;
  const double p = std::pow(10.0, decimals);
  for (auto& o : v) {
    x += step(rng) - 0.01 * (x - 50.0 * scale);
    o = std::round(x * p) / p;
  }
  return v;
}

}  // namespace gpuwatch::store::testing
