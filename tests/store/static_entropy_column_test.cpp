// The static-model entropy column (integer column form 3): exact round trips of any int64 numbers, a size
// near the adaptive coder's on telemetry noise, and refusal (never a read past the end) of any
// truncation or damage.
#include "store/static_entropy_column.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "store/codec_error.h"
#include "store/entropy_column.h"

#include "series_fixtures.h"

namespace gpuwatch::store {
namespace {

std::vector<std::uint8_t> encode(const std::vector<std::int64_t>& numbers) {
  std::vector<std::uint8_t> bytes;
  ByteWriter out(bytes);
  encode_static_entropy_column(numbers, out);
  return bytes;
}

std::vector<std::int64_t> decode(const std::vector<std::uint8_t>& bytes, std::size_t n) {
  ByteReader in(bytes, "test");
  std::vector<std::int64_t> back(n);
  decode_static_entropy_column(in, back);
  EXPECT_EQ(in.remaining(), 0u);
  return back;
}

// Noise whose level shifts with the phase, as power or PCIe rates do.
std::vector<std::int64_t> phased_noise(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::int64_t> v(n);
  double sigma = 20;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 600 == 0) sigma = rng() % 2 ? 3.0 : 4000.0;
    v[i] = static_cast<std::int64_t>(std::normal_distribution<double>(0, sigma)(rng));
  }
  return v;
}

TEST(StaticEntropyColumn, KeepsExtremeNumbers) {
  const std::vector<std::int64_t> numbers = testing::extreme_numbers(6);
  EXPECT_EQ(decode(encode(numbers), numbers.size()), numbers);
}

TEST(StaticEntropyColumn, RoundTripsAnyLengthAndSpread) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const std::size_t n = rng() % 5000;
    const int spread = static_cast<int>(rng() % 63);
    std::vector<std::int64_t> numbers(n);
    for (auto& x : numbers)
      x = static_cast<std::int64_t>(rng() >> (63 - spread)) - (std::int64_t{1} << spread) / 2;
    if (seed % 3 == 0) numbers = phased_noise(rng, n);
    ASSERT_EQ(decode(encode(numbers), n), numbers);
  }
}

TEST(StaticEntropyColumn, NearTheAdaptiveCodersSizeOnPhasedNoise) {
  std::mt19937_64 rng(9);
  const auto numbers = phased_noise(rng, 3600);
  std::vector<std::uint8_t> adaptive;
  ByteWriter out(adaptive);
  encode_entropy_column(numbers, out);
  const auto fixed = encode(numbers);
  // Well within the quarter the block encoder allows it.
  EXPECT_LE(fixed.size() * 16, adaptive.size() * 17) << fixed.size() << " against " << adaptive.size();
}

TEST(StaticEntropyColumn, RefusesEveryTruncationAndDamage) {
  std::mt19937_64 rng(11);
  const auto numbers = phased_noise(rng, 700);
  const auto bytes = encode(numbers);
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const std::vector<std::uint8_t> part(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    ByteReader in(part, "test");
    std::vector<std::int64_t> back(numbers.size());
    EXPECT_THROW(decode_static_entropy_column(in, back), CodecError) << "cut at " << cut;
  }
  // A flipped bit either throws or decodes to other numbers; it never reads outside the column (ASan).
  std::size_t refused = 0;
  for (std::size_t i = 0; i < bytes.size() * 8; i += 7) {
    auto damaged = bytes;
    damaged[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
    ByteReader in(damaged, "test");
    std::vector<std::int64_t> back(numbers.size());
    try {
      decode_static_entropy_column(in, back);
      EXPECT_NE(back, numbers) << "bit " << i;
    } catch (const CodecError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace gpuwatch::store
