// Lossless round trips for every value class and timestamp shape, and seeded property tests.
#include <bit>
#include <limits>

#include "store/entropy_column.h"

#include "series_fixtures.h"

namespace gpuwatch::store {
namespace {

using testing::bits_of;
using testing::every_second;
using testing::expect_round_trip;
using testing::from_bits;

TEST(ChunkCodecRoundTrip, ConstantSeriesIsNearlyFree) {
  const auto t = every_second(7200);
  const std::vector<double> v(7200, 143771.0 * 1048576.0);
  const auto block = expect_round_trip(t, v);
  EXPECT_EQ(inspect_block(block).values, ValueEncoding::kConstant);
  EXPECT_LE(block.size(), 40u) << "7200 constant samples at 1 s should cost a header and little else";
}

TEST(ChunkCodecRoundTrip, IntegerSeriesUsesScaleZero) {
  std::mt19937_64 rng(1);
  const auto v = testing::decimal_walk(rng, 7200, 0, 1.0);
  const auto block = expect_round_trip(every_second(7200), v);
  EXPECT_EQ(inspect_block(block).values, ValueEncoding::kDecimal);
  EXPECT_LT(block.size(), 7200u * 2) << "small integer steps should take under 2 bytes a sample";
}

TEST(ChunkCodecRoundTrip, DecimalSeriesStoredAsScaledIntegers) {
  std::mt19937_64 rng(2);
  for (const int decimals : {1, 2, 3, 6}) {
    const auto v = testing::decimal_walk(rng, 3600, decimals, 10.0);
    const auto block = expect_round_trip(every_second(3600), v);
    EXPECT_EQ(inspect_block(block).values, ValueEncoding::kDecimal) << decimals << " decimals";
  }
  // The exact shapes the catalogue produces: utilization percent / 100, milliwatts in watts.
  expect_round_trip(every_second(4), {0.87, 0.01, 1.0, 0.0});
  expect_round_trip(every_second(3), {612.345, 612.346, 699.999});
}

TEST(ChunkCodecRoundTrip, NoisyFloatsFallBackToXor) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(300.0, 25.0);
  std::vector<double> v(2000);
  for (auto& o : v) o = noise(rng);
  const auto block = expect_round_trip(every_second(v.size()), v);
  EXPECT_EQ(inspect_block(block).values, ValueEncoding::kXor);
}

TEST(ChunkCodecRoundTrip, SpecialValuesKeepEveryBit) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {
      from_bits(0x7ff0000000000002),  // Prometheus stale marker
      std::numeric_limits<double>::quiet_NaN(),
      from_bits(0xfff8000000000001),  // negative NaN with a payload
      from_bits(0x7ff4000000000000),  // signalling NaN
      inf,
      -inf,
      -0.0,
      0.0,
      std::numeric_limits<double>::denorm_min(),
      -std::numeric_limits<double>::denorm_min(),
      from_bits(0x000fffffffffffff),  // largest denormal
      std::numeric_limits<double>::max(),
      std::numeric_limits<double>::lowest(),
      std::numeric_limits<double>::min(),
      1.0,
  };
  expect_round_trip(every_second(v.size()), v);
  // A decimal block with one special value cannot be decimal: it must still round-trip.
  expect_round_trip(every_second(4), {0.5, -0.0, 0.25, 0.75});
  expect_round_trip(every_second(3), {1.0, from_bits(0x7ff0000000000002), 1.0});
  // Constant runs of a special value.
  expect_round_trip(every_second(100), std::vector<double>(100, from_bits(0x7ff0000000000002)));
  expect_round_trip(every_second(100), std::vector<double>(100, -0.0));
}

TEST(ChunkCodecRoundTrip, RandomBitPatterns) {
  std::mt19937_64 rng(4);
  for (int round = 0; round < 20; ++round) {
    std::vector<double> v(1 + rng() % 3000);
    for (auto& o : v) o = from_bits(rng());
    expect_round_trip(every_second(v.size()), v);
  }
}

TEST(ChunkCodecRoundTrip, DecodePointsAppendsEverySampleExactly) {
  std::mt19937_64 rng(6);
  std::vector<double> v(777);
  for (auto& o : v) o = from_bits(rng());
  const std::vector<std::int64_t> t = every_second(v.size());
  const std::vector<std::uint8_t> block = encode_block(t, v);
  BlockDecoder decoder;
  std::vector<Point> out = {Point{1, 2.0}};
  decoder.decode_points(block, out);
  ASSERT_EQ(out.size(), v.size() + 1);
  EXPECT_EQ(out[0].t_ms, 1);
  for (std::size_t k = 0; k < v.size(); ++k) {
    EXPECT_EQ(out[k + 1].t_ms, t[k]);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(out[k + 1].value), std::bit_cast<std::uint64_t>(v[k]));
  }
  // A corrupt block leaves what the caller had.
  std::vector<std::uint8_t> corrupt = block;
  corrupt[corrupt.size() / 2] ^= 0x10;
  EXPECT_THROW(decoder.decode_points(corrupt, out), CodecError);
  EXPECT_EQ(out.size(), v.size() + 1);
}

TEST(ChunkCodecRoundTrip, TimestampShapes) {
  const std::vector<double> v3 = {1.0, 2.0, 3.0};
  expect_round_trip({std::numeric_limits<std::int64_t>::min(), 0, std::numeric_limits<std::int64_t>::max()},
                    v3);
  expect_round_trip({-5000, -4000, -1}, v3);
  expect_round_trip({42}, {7.5});
  std::mt19937_64 rng(5);
  std::vector<std::int64_t> jittered(5000);
  std::int64_t t = 1795824000000;
  for (auto& o : jittered) o = (t += 1000 + static_cast<std::int64_t>(rng() % 25) - 12);
  expect_round_trip(jittered, std::vector<double>(jittered.size(), 1.0));
  std::vector<std::int64_t> sparse(500);
  t = 0;
  for (auto& o : sparse) o = (t += 1 + static_cast<std::int64_t>(rng() % (std::int64_t{1} << 40)));
  expect_round_trip(sparse, std::vector<double>(sparse.size(), 0.0));
}

TEST(ChunkCodecRoundTrip, OneSecondCadenceCostsAlmostNothing) {
  const auto t = every_second(7200);
  const auto with = encode_block(t, std::vector<double>(7200, 1.0), {.zstd_level = 0});
  EXPECT_LE(with.size(), 40u);
}

TEST(ChunkCodecRoundTrip, EntropyColumnKeepsExtremeNumbers) {
  const std::vector<std::int64_t> numbers = testing::extreme_numbers(6);
  std::vector<std::uint8_t> bytes;
  ByteWriter out(bytes);
  encode_entropy_column(numbers, out);
  ByteReader in(bytes, "test");
  std::vector<std::int64_t> back(numbers.size());
  decode_entropy_column(in, back);
  EXPECT_EQ(back, numbers);
  EXPECT_EQ(in.remaining(), 0u);
}

TEST(ChunkCodecRoundTrip, EntropyCodingShrinksNoisyValues) {
  std::mt19937_64 rng(8);
  const auto v = testing::decimal_walk(rng, 7200, 3, 300.0);
  const auto t = every_second(v.size());
  const auto entropy = expect_round_trip(t, v, {.zstd_level = 3, .entropy_coding = true});
  const auto varint = expect_round_trip(t, v, {.zstd_level = 3, .entropy_coding = false});
  EXPECT_LT(entropy.size() * 10, varint.size() * 9) << "entropy coding should save over 10% on noise";
}

// Property: any mix of the value classes, any length, any increasing timestamps, zstd on or off.
TEST(ChunkCodecProperty, SeededRandomSeriesRoundTrip) {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const std::size_t n = 1 + rng() % 2500;
    std::vector<std::int64_t> t(n);
    std::int64_t now = static_cast<std::int64_t>(rng() >> 20) - (std::int64_t{1} << 42);
    const std::int64_t cadence = 1 + static_cast<std::int64_t>(rng() % 60000);
    const std::uint64_t jitter = rng() % 3 == 0 ? 1 + rng() % 50 : 0;
    for (auto& o : t) o = (now += cadence + static_cast<std::int64_t>(jitter ? rng() % jitter : 0));
    std::vector<double> v;
    switch (rng() % 5) {
      case 0:
        v.assign(n, testing::from_bits(rng()));
        break;
      case 1:
        v = testing::decimal_walk(rng, n, static_cast<int>(rng() % 7),
                                  1.0 + static_cast<double>(rng() % 1000));
        break;
      case 2:
        v.resize(n);
        for (auto& o : v) o = testing::from_bits(rng());
        break;
      case 3: {
        v = testing::decimal_walk(rng, n, 2, 1.0);
        for (int k = 0; k < 3; ++k) v[rng() % n] = testing::from_bits(0x7ff0000000000002);
        break;
      }
      default: {
        std::uniform_real_distribution<double> u(-1e6, 1e6);
        v.resize(n);
        double x = u(rng);
        for (auto& o : v) o = rng() % 4 == 0 ? (x = u(rng)) : x;
        break;
      }
    }
    expect_round_trip(t, v,
                      {.zstd_level = static_cast<int>(rng() % 2) * 3, .entropy_coding = rng() % 3 != 0});
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace gpuwatch::store
