// Corruption and truncation: a damaged block is refused with CodecError, never decoded wrongly.
#include <zlib.h>

#include "series_fixtures.h"

namespace gpuwatch::store {
namespace {

using testing::every_second;

enum class Payload { kVarint, kZstd, kEntropy };
constexpr Payload kPayloads[] = {Payload::kVarint, Payload::kZstd, Payload::kEntropy};

// One block of each payload kind, so that every decoder path meets the damage.
std::vector<std::uint8_t> sample_block(Payload kind) {
  std::mt19937_64 rng(7);
  std::vector<double> v = testing::decimal_walk(rng, 300, 3, 100.0);
  if (kind == Payload::kZstd) {
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>((i * 7919) % 13);  // repeats: zstd's case
  }
  const EncodeOptions options{.zstd_level = kind == Payload::kZstd ? 3 : 0,
                              .entropy_coding = kind == Payload::kEntropy};
  auto block = encode_block(every_second(v.size()), v, options);
  EXPECT_EQ(inspect_block(block).zstd, kind == Payload::kZstd);
  if (kind == Payload::kEntropy) {
    EXPECT_LT(block.size(),
              encode_block(every_second(v.size()), v, {.zstd_level = 0, .entropy_coding = false}).size());
  }
  return block;
}

void expect_refused(const std::vector<std::uint8_t>& bad, const std::string& must_mention,
                    const std::string& what) {
  try {
    decode_block(bad);
    ADD_FAILURE() << what << ": decoded without an error";
  } catch (const CodecError& e) {
    EXPECT_NE(std::string(e.what()).find(must_mention), std::string::npos) << what << ": " << e.what();
  }
}

TEST(ChunkCodecCorruption, EveryFlippedBitIsAChecksumError) {
  for (const Payload kind : kPayloads) {
    const auto good = sample_block(kind);
    for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
      auto bad = good;
      bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      expect_refused(bad, "checksum mismatch", "bit " + std::to_string(bit));
    }
  }
}

TEST(ChunkCodecCorruption, EveryTruncationIsRefused) {
  for (const Payload kind : kPayloads) {
    const auto good = sample_block(kind);
    for (std::size_t len = 0; len < good.size(); ++len) {
      const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
      EXPECT_THROW(decode_block(cut), CodecError) << "length " << len;
    }
    auto longer = good;
    longer.push_back(0);
    EXPECT_THROW(decode_block(longer), CodecError);
  }
}

// Damage that a checksum cannot see (a block rewritten with a matching CRC) is still refused or
// decoded without crashing: the decoder bounds-checks everything it reads.
TEST(ChunkCodecCorruption, ResealedGarbageNeverCrashes) {
  std::mt19937_64 rng(11);
  int refused = 0;
  for (int round = 0; round < 6000; ++round) {
    const auto good = sample_block(kPayloads[round % 3]);
    auto bad = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) bad[rng() % (bad.size() - 4)] = static_cast<std::uint8_t>(rng());
    const auto crc = static_cast<std::uint32_t>(
        crc32(crc32(0L, Z_NULL, 0), bad.data(), static_cast<uInt>(bad.size() - 4)));
    for (int i = 0; i < 4; ++i)
      bad[bad.size() - 4 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (8 * i));
    try {
      const DecodedBlock d = decode_block(bad);
      EXPECT_EQ(d.timestamps_ms.size(), d.values.size());
    } catch (const CodecError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

TEST(ChunkCodecCorruption, NotABlockAndWrongVersionAreNamed) {
  auto block = sample_block(Payload::kVarint);
  auto reseal = [](std::vector<std::uint8_t>& b) {
    const auto crc =
        static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), b.data(), static_cast<uInt>(b.size() - 4)));
    for (int i = 0; i < 4; ++i)
      b[b.size() - 4 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (8 * i));
  };
  auto magic = block;
  magic[0] = 'X';
  reseal(magic);
  expect_refused(magic, "bad magic", "magic");
  auto version = block;
  version[3] = 99;
  reseal(version);
  expect_refused(version, "unsupported block format version 99", "version");
  expect_refused({}, "truncated", "empty input");
}

}  // namespace
}  // namespace gpuwatch::store
