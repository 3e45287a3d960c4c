// The cache of decoded blocks: bounded by bytes (least recently used out), found only under the block's
// full key, and never refilled with a block read before rows were deleted. Through the store: queries
// served from it return exactly what a fresh store returns, before and after downsampling rewrites blocks.
#include "store/decoded_block_cache.h"

#include <gtest/gtest.h>

#include <cmath>

#include "store/store.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

CachedPoints points_of(std::size_t n, double value) {
  auto p = std::make_shared<std::vector<Point>>();
  for (std::size_t i = 0; i < n; ++i) p->push_back(Point{static_cast<std::int64_t>(i) * 1000, value});
  return p;
}

BlockKey key_of(std::int64_t row) {
  return BlockKey{row, 7, 0, 999'000, 1000};
}

TEST(DecodedBlockCache, KeepsTheMostRecentlyUsedWithinItsBound) {
  // Room for two blocks of 1000 points (16 kB each, plus bookkeeping), not three.
  DecodedBlockCache cache(40'000);
  cache.insert(key_of(1), points_of(1000, 1), cache.generation());
  cache.insert(key_of(2), points_of(1000, 2), cache.generation());
  ASSERT_NE(cache.find(key_of(1)), nullptr);  // 1 is now the most recently used
  cache.insert(key_of(3), points_of(1000, 3), cache.generation());
  EXPECT_EQ(cache.find(key_of(2)), nullptr);
  ASSERT_NE(cache.find(key_of(1)), nullptr);
  ASSERT_NE(cache.find(key_of(3)), nullptr);
  EXPECT_EQ(cache.find(key_of(3))->front().value, 3);
  EXPECT_LE(cache.bytes(), 40'000u);
  // A block larger than the whole bound is not kept, and evicts nothing.
  cache.insert(key_of(4), points_of(5000, 4), cache.generation());
  EXPECT_EQ(cache.find(key_of(4)), nullptr);
  EXPECT_NE(cache.find(key_of(1)), nullptr);
}

TEST(DecodedBlockCache, FindsABlockOnlyUnderItsWholeKey) {
  DecodedBlockCache cache(1 << 20);
  cache.insert(key_of(1), points_of(10, 1), cache.generation());
  BlockKey other = key_of(1);
  other.series = 8;  // the same row id, another block (the row was deleted and its id reused)
  EXPECT_EQ(cache.find(other), nullptr);
  other = key_of(1);
  other.count = 11;
  EXPECT_EQ(cache.find(other), nullptr);
  EXPECT_NE(cache.find(key_of(1)), nullptr);
}

TEST(DecodedBlockCache, IgnoresBlocksReadBeforeRowsWereDeleted) {
  DecodedBlockCache cache(1 << 20);
  cache.insert(key_of(1), points_of(10, 1), cache.generation());
  cache.insert(key_of(2), points_of(10, 2), cache.generation());
  const std::uint64_t before = cache.generation();
  cache.forget({1});
  EXPECT_EQ(cache.find(key_of(1)), nullptr);
  EXPECT_NE(cache.find(key_of(2)), nullptr);
  cache.insert(key_of(1), points_of(10, 1), before);  // a query that read row 1 before it was deleted
  EXPECT_EQ(cache.find(key_of(1)), nullptr);
  cache.clear();
  EXPECT_EQ(cache.find(key_of(2)), nullptr);
  EXPECT_EQ(cache.bytes(), 0u);
  cache.insert(key_of(5), points_of(10, 5), cache.generation());
  EXPECT_NE(cache.find(key_of(5)), nullptr);
}

double power(std::int64_t i) {
  return std::round((350 + 80 * std::sin(static_cast<double>(i) / 300.0) + (i * 7919 % 97) / 10.0) * 1000) /
         1000;
}

std::vector<SeriesPoints> all_power(const Store& store) {
  return store.select(std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"}}, 0,
                      INT64_MAX);
}

TEST(DecodedBlockCache, StoreQueriesFromItMatchAFreshStoreAcrossDownsampling) {
  test::TempDir dir;
  constexpr std::int64_t kSeconds = 6 * 3600;
  StoreOptions o;
  o.data_dir = dir.path();
  o.background_flusher = false;
  o.downsample_after_ms = 0;  // not before the test asks
  auto store = Store::open(o);
  for (std::int64_t i = 0; i < kSeconds; ++i) {
    for (const char* gpu : {"0", "1"})
      store->append({{"__name__", "gpu_power_watts"}, {"gpu", gpu}}, i * 1000, power(i));
  }
  store->seal_all();
  const auto first = all_power(*store);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(first[0].points.size(), static_cast<std::size_t>(kSeconds));
  for (std::int64_t i = 0; i < kSeconds; i += 997) EXPECT_EQ(first[1].points[i], (Point{i * 1000, power(i)}));
  EXPECT_EQ(all_power(*store)[1].points, first[1].points);  // from the cache, the same

  // A time range inside one block, cut from the cached block.
  const auto part =
      store->select(std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"},
                                              {"gpu", LabelMatcher::Op::kEqual, "1"}},
                    1'800'500, 1'805'000);
  ASSERT_EQ(part.size(), 1u);
  EXPECT_EQ(part[0].points,
            std::vector<Point>(first[1].points.begin() + 1801, first[1].points.begin() + 1806));

  store.reset();
  o.downsample_after_ms = 3'600'000;
  o.retention_check_interval = std::chrono::milliseconds(0);
  store = Store::open(o);
  const auto raw = all_power(*store);  // fills the cache with the raw blocks
  EXPECT_EQ(raw[0].points, first[0].points);
  store->maintain();  // downsamples the 4 h wholly older than newest - 1 h
  ASSERT_GT(store->health().blocks_downsampled, 0u);
  const auto rolled = all_power(*store);
  store.reset();
  const auto fresh = all_power(*Store::open(o));
  ASSERT_EQ(rolled.size(), 2u);
  EXPECT_EQ(rolled[0].points.size(), 4u * 60 + 2 * 3600);
  EXPECT_EQ(rolled[0].points, fresh[0].points);
  EXPECT_EQ(rolled[1].points, fresh[1].points);
}

}  // namespace
}  // namespace gpuwatch::store
