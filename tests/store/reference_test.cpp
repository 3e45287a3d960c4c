// Blocks coded against a reference series (an energy counter against the power it integrates) and against
// a moving level: bit-exact round trips, the gain they exist for, and refusal without the right reference.
#include "series_fixtures.h"

namespace gpuwatch::store {
namespace {

using testing::bits_of;
using testing::every_second;

struct PowerAndEnergy {
  std::vector<std::int64_t> t;
  std::vector<double> power;   // W, mW resolution
  std::vector<double> energy;  // J, mJ resolution: the trapezoid integral of power plus counter noise
};

PowerAndEnergy power_and_energy(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> power_noise(0, 15.0);
  std::normal_distribution<double> counter_noise(0, 400.0);
  PowerAndEnergy s{every_second(n), {}, {}};
  std::int64_t e_mj = 33289293653;
  std::int64_t prev_mw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double level = (i / 600) % 2 == 0 ? 620.0 : 80.0;  // training and idle phases
    const auto mw = static_cast<std::int64_t>(std::llround((level + power_noise(rng)) * 1000));
    if (i > 0) e_mj += (prev_mw + mw) / 2 + static_cast<std::int64_t>(std::llround(counter_noise(rng)));
    prev_mw = mw;
    s.power.push_back(static_cast<double>(mw) / 1000);
    s.energy.push_back(static_cast<double>(e_mj) / 1000);
  }
  return s;
}

TEST(ChunkCodecReference, EnergyAgainstPowerRoundTripsAndCostsOnlyTheCounterNoise) {
  const auto s = power_and_energy(7200, 5);
  const SeriesReference power{s.t, s.power};
  const auto alone = encode_block(s.t, s.energy);
  const auto paired = encode_block(s.t, s.energy, {}, power);
  EXPECT_FALSE(inspect_block(alone).needs_reference);
  ASSERT_TRUE(inspect_block(paired).needs_reference);
  const DecodedBlock d = decode_block(paired, power);
  EXPECT_EQ(d.timestamps_ms, s.t);
  EXPECT_EQ(bits_of(d.values), bits_of(s.energy));
  // Counter noise of 400 mJ has an entropy near 10.7 bits; alone, the block also pays for the power noise.
  EXPECT_LT(paired.size(), 7200u * 12 / 8) << "paired block should cost about the counter's own noise";
  EXPECT_LT(paired.size() * 10, alone.size() * 8) << "pairing should save at least a fifth";
}

TEST(ChunkCodecReference, AReferencedBlockRefusesToDecodeWithoutItsReference) {
  const auto s = power_and_energy(3600, 6);
  const auto block = encode_block(s.t, s.energy, {}, SeriesReference{s.t, s.power});
  ASSERT_TRUE(inspect_block(block).needs_reference);
  EXPECT_THROW(decode_block(block), CodecError);
  auto other_power = s.power;
  other_power[1000] += 0.001;
  try {
    decode_block(block, SeriesReference{s.t, other_power});
    ADD_FAILURE() << "decoded against another reference";
  } catch (const CodecError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  auto shifted = s.t;
  for (auto& t : shifted) t += 1;
  EXPECT_THROW(decode_block(block, SeriesReference{shifted, s.power}), CodecError);
}

TEST(ChunkCodecReference, AReferenceThatDoesNotHelpOrDoesNotFitIsIgnored) {
  const auto s = power_and_energy(3600, 7);
  // Power against energy: no relation in that direction.
  const auto block = encode_block(s.t, s.power, {}, SeriesReference{s.t, s.energy});
  EXPECT_FALSE(inspect_block(block).needs_reference);
  EXPECT_EQ(bits_of(decode_block(block).values), bits_of(s.power));
  // Different timestamps: the reference cannot be used.
  auto later = s.t;
  for (auto& t : later) t += 500;
  const auto unfit = encode_block(s.t, s.energy, {}, SeriesReference{later, s.power});
  EXPECT_FALSE(inspect_block(unfit).needs_reference);
  EXPECT_EQ(bits_of(decode_block(unfit).values), bits_of(s.energy));
}

TEST(ChunkCodecReference, NoiseAroundAShiftingLevelRoundTrips) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> noise(0, 1000.0);
  std::vector<double> v(7200);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double level = 1e6 * static_cast<double>(1 + (i / 450) % 3);
    v[i] = std::round(level + noise(rng)) * 1024;  // KiB/s in bytes/s, as PCIe rates are read
  }
  for (const bool entropy : {true, false}) {
    EncodeOptions options;
    options.entropy_coding = entropy;
    const auto block = testing::expect_round_trip(every_second(v.size()), v, options);
    EXPECT_EQ(inspect_block(block).values, ValueEncoding::kDecimal);
  }
}

}  // namespace
}  // namespace gpuwatch::store
