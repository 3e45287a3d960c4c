// Downsampling: one point a minute per rollup, exact "last" samples, NaN-aware min/max/avg/count, and the
// store rewriting old blocks so that queries see one sample a minute plus the :1m_* series. Prints the sizes.
#include "store/downsample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "store/store.h"
#include "store/store_check.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

TEST(Downsample, RollsUpEachMinuteIgnoringNaN) {
  const std::vector<std::int64_t> t = {0, 20'000, 40'000, 60'000, 61'000, 179'000};
  const std::vector<double> v = {3, std::nan(""), 1, 7, 5, 2};
  const Rollup r = roll_up(t, v, 60'000);
  EXPECT_EQ(r.t, (std::vector<std::int64_t>{40'000, 61'000, 179'000}));
  EXPECT_EQ(r.last, (std::vector<double>{1, 5, 2}));
  EXPECT_EQ(r.by_suffix[0], (std::vector<double>{1, 5, 2}));  // min
  EXPECT_EQ(r.by_suffix[1], (std::vector<double>{3, 7, 2}));  // max
  EXPECT_EQ(r.by_suffix[2], (std::vector<double>{2, 6, 2}));  // avg
  EXPECT_EQ(r.by_suffix[3], (std::vector<double>{2, 2, 1}));  // count
}

double sample(int kind, std::int64_t i) {
  switch (kind) {
    case 0:
      return 80e9;  // memory total: constant
    case 1:
      return static_cast<double>(40 + (i / 600) % 5);  // temperature: integer steps
    default:
      return std::round((350 + 80 * std::sin(i / 300.0) + (i * 7919 % 97) / 10.0) * 1000) / 1000;  // power
  }
}

TEST(Downsample, OldBlocksBecomeOnePointAMinuteAndTheRollupSeriesAppear) {
  test::TempDir dir;
  constexpr std::int64_t kDay = 86'400;
  const char* names[] = {"gpu_memory_total_bytes", "gpu_temperature_celsius", "gpu_power_watts"};
  StoreOptions o;
  o.data_dir = dir.path();
  o.background_flusher = false;
  o.downsample_after_ms = 0;
  {
    auto store = Store::open(o);
    for (std::int64_t i = 0; i < kDay; ++i) {
      for (int k = 0; k < 3; ++k)
        store->append({{"__name__", names[k]}, {"gpu", "0"}}, i * 1000, sample(k, i));
    }
    store->seal_all();
  }
  const CheckReport raw = check_store(dir.path());
  o.downsample_after_ms = 3'600'000;  // everything but the last hour
  o.retention_check_interval = std::chrono::milliseconds(0);
  auto store = Store::open(o);
  store->maintain();
  EXPECT_EQ(store->health().blocks_downsampled, 66u);  // 3 series x 22 hours wholly older than 23:00
  const CheckReport rolled = check_store(dir.path());
  EXPECT_TRUE(rolled.clean()) << rolled.summary();
  std::cout << "1 day at 1 s, 3 series: raw " << raw.block_bytes << " bytes (" << raw.block_samples
            << " samples); after downsampling all but the last hour: " << rolled.block_bytes << " bytes ("
            << rolled.block_samples << " samples in 5 series a metric)\n";
  EXPECT_LT(rolled.block_bytes, raw.block_bytes);

  const auto power = store->select(
      std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"}}, 0, INT64_MAX);
  ASSERT_EQ(power.size(), 1u);
  const auto& p = power[0].points;
  ASSERT_EQ(p.size(), 22u * 60 + 2 * 3600);         // a point a minute for 22 h, then every second
  EXPECT_EQ(p[0], (Point{59'000, sample(2, 59)}));  // the minute's last sample, exact
  const auto max = store->select(
      std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts:1m_max"}}, 0,
      INT64_MAX);
  ASSERT_EQ(max.size(), 1u);
  ASSERT_EQ(max[0].points.size(), 22u * 60);
  double expected = -1e300;
  for (std::int64_t i = 60; i < 120; ++i) expected = std::max(expected, sample(2, i));
  EXPECT_EQ(max[0].points[1], (Point{119'000, expected}));
  // The next pass finds nothing left to do.
  store->maintain();
  EXPECT_EQ(store->health().blocks_downsampled, 66u);
}

}  // namespace
}  // namespace gpuwatch::store
