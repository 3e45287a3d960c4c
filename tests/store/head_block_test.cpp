// A series' open block in the head: whatever its samples' count (inside the raw tail, in small chunks, in
// merged chunks), a read gives back exactly what was added, whole or by time range.
#include <gtest/gtest.h>

#include <random>

#include "store/head_block.h"

namespace gpuwatch::store {
namespace {

TEST(HeadBlock, ReadsBackEverySampleAtEveryCountAcrossTailSmallAndMergedChunks) {
  BlockEncoder encoder(EncodeOptions{0, false});
  BlockDecoder decoder;
  std::mt19937_64 rng(19);
  std::uniform_real_distribution<double> noise(0, 1e9);
  HeadBlock block(1, 0);
  std::vector<std::int64_t> want_t, got_t;
  std::vector<double> want_v, got_v;
  std::int64_t t = 1'000'000;
  for (std::size_t n = 1; n <= 3 * kChunkSamples + kTailSamples + 3; ++n) {
    t += 1000 + static_cast<std::int64_t>(rng() % 7);
    const double v = n % 5 == 0 ? 42.0 : noise(rng);
    block.add(t, v, encoder, decoder);
    want_t.push_back(t);
    want_v.push_back(v);
    block.decode(decoder, got_t, got_v);
    ASSERT_EQ(got_t, want_t) << "after " << n << " samples";
    ASSERT_EQ(got_v, want_v) << "after " << n << " samples";
    ASSERT_EQ(block.size(), n);
  }
  // A range that starts inside a merged chunk and ends inside the small ones.
  const std::int64_t min_t = want_t[kChunkSamples + 5], max_t = want_t[2 * kChunkSamples + kTailSamples + 2];
  std::vector<Point> points;
  block.append_points(min_t, max_t, decoder, points);
  ASSERT_EQ(points.size(), kChunkSamples + kTailSamples - 2);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].t_ms, want_t[kChunkSamples + 5 + i]);
    EXPECT_EQ(points[i].value, want_v[kChunkSamples + 5 + i]);
  }
}

// The raw tail is bounded by kTailSamples whatever the count: what an hour of a thousand series costs.
TEST(HeadBlock, HoldsAtMostATailOfRawSamples) {
  BlockEncoder encoder(EncodeOptions{0, false});
  BlockDecoder decoder;
  HeadBlock block(1, 0);
  std::size_t most = 0;
  for (std::int64_t i = 0; i < 3600; ++i) {
    block.add(i * 1000, static_cast<double>(i % 100), encoder, decoder);
    most = std::max(most, block.memory_bytes());
  }
  // 16 raw samples (256 bytes), seven small chunks and 28 merged ones of a slowly moving gauge: 3,030 bytes
  // at most. A raw tail of a whole chunk (128 samples, 2 KiB) and chunks grown by doubling were over 4 KiB.
  EXPECT_LT(most, 3584u) << most;
}

}  // namespace
}  // namespace gpuwatch::store
