// The agent's history adapter: what a snapshot becomes in the store.
#include "store/snapshot_history.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "store/store_check.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

using test::TempDir;

StoreOptions options_for(const std::string& dir) {
  StoreOptions o;
  o.data_dir = dir;
  o.background_flusher = false;
  return o;
}

// One GPU whose power was read at power_read_ms and whose temperature at the snapshot's time.
Snapshot snapshot_at(std::int64_t t_ms, double power, std::int64_t power_read_ms) {
  Snapshot s;
  s.timestamp_ms = t_ms;
  DeviceSnapshot d;
  d.identity.uuid = "GPU-0";
  d.last_read_ms = t_ms;
  d.samples.push_back(Sample{Metric::kPower, power, {}, power_read_ms});
  d.samples.push_back(Sample{Metric::kTemperature, 40.0 + static_cast<double>(t_ms) / 1000.0, {}, t_ms});
  s.devices.push_back(std::move(d));
  return s;
}

std::vector<Point> points_of(const Store& store, const std::string& name) {
  const std::vector<LabelMatcher> m{{"__name__", LabelMatcher::Op::kEqual, name}};
  const auto found = store.select(m, 0, 1'000'000);
  return found.empty() ? std::vector<Point>{} : found.front().points;
}

TEST(SnapshotHistory, StoresAValueOnceAtTheTimeItWasReadNotAgainWhenCarried) {
  TempDir dir;
  auto store = std::shared_ptr<Store>(Store::open(options_for(dir.path())));
  SnapshotHistory history(store, 100);
  // Power is read at 1 s and 3 s; the snapshots at 2 s carry the 1 s value.
  history.append(snapshot_at(1'000, 300, 1'000));
  history.append(snapshot_at(2'000, 300, 1'000));
  history.append(snapshot_at(3'000, 310, 3'000));

  EXPECT_EQ(points_of(*store, "gpu_power_watts"), (std::vector<Point>{{1'000, 300}, {3'000, 310}}));
  EXPECT_EQ(points_of(*store, "gpu_temperature_celsius").size(), 3U);  // read at every tick
  // Nothing was offered twice: no duplicate refused by the store.
  EXPECT_EQ(store->health().samples_rejected.count("duplicate"), 0U);
}

TEST(SnapshotHistory, ACarriedValueIsNotStoredAgainAfterTheMinuteSweep) {
  TempDir dir;
  auto store = std::shared_ptr<Store>(Store::open(options_for(dir.path())));
  SnapshotHistory history(store, 100);
  // A value read every 30 s, across the sweep of the series cache at each minute.
  for (std::int64_t t = 1'000; t <= 150'000; t += 1'000) {
    const std::int64_t read = 1'000 + (t - 1'000) / 30'000 * 30'000;
    history.append(snapshot_at(t, static_cast<double>(read), read));
  }
  const auto power = points_of(*store, "gpu_power_watts");
  ASSERT_EQ(power.size(), 5U);
  EXPECT_EQ(power.back().t_ms, 121'000);
  EXPECT_EQ(store->health().samples_rejected.count("duplicate"), 0U);
}

TEST(SnapshotHistory, AReadTimeIsNeverAheadOfItsSnapshot) {
  TempDir dir;
  auto store = std::shared_ptr<Store>(Store::open(options_for(dir.path())));
  SnapshotHistory history(store, 100);
  history.append(snapshot_at(5'000, 300, 9'000));
  EXPECT_EQ(points_of(*store, "gpu_power_watts"), (std::vector<Point>{{5'000, 300}}));
}

// Two GPUs read in turn at every tick, each tick up to 40 ms late and each GPU's read group at its own moment
// (the second GPU 3-5 ms after the first), as the collector stamps samples: each GPU's series share one time
// column a block, kept once, however irregular their timestamps.
TEST(SnapshotHistory, EachGpusReadGroupSharesOneTimeColumnABlock) {
  TempDir dir;
  StoreOptions o = options_for(dir.path());
  o.block_window_ms = 1'000'000'000;
  o.block_max_samples = 400;
  auto store = std::shared_ptr<Store>(Store::open(o));
  SnapshotHistory history(store, 100);
  for (std::int64_t i = 0; i < 800; ++i) {
    const std::int64_t t = 1'000'000 + i * 1000 + (i * 7919) % 41;
    Snapshot s;
    s.timestamp_ms = t + 6;
    for (int gpu = 0; gpu < 2; ++gpu) {
      const std::int64_t read = t + gpu * (3 + i % 3);
      DeviceSnapshot d;
      d.identity.uuid = "GPU-" + std::to_string(gpu);
      d.identity.index = static_cast<unsigned>(gpu);
      d.last_read_ms = read;
      d.samples.push_back(Sample{Metric::kPower, 300.0 + static_cast<double>(i % 17), read});
      d.samples.push_back(Sample{Metric::kTemperature, 40.0 + static_cast<double>(i % 5), read});
      d.samples.push_back(Sample{Metric::kUtilization, static_cast<double>(i % 100) / 100, read});
      s.devices.push_back(std::move(d));
    }
    history.append(s);
    if (i % 150 == 149) store->maintain();
  }
  store->seal_all();
  const CheckReport check = check_store(dir.path());
  EXPECT_TRUE(check.clean()) << check.summary();
  // Two blocks of 400 readings a series; a column a block for each GPU's read group and one for the series
  // stamped with the snapshot's own time (gpu_up and the like): 6 columns for the 28 blocks.
  EXPECT_EQ(check.time_columns, 6u) << check.summary();
  EXPECT_EQ(check.blocks_with_times_apart, 28u) << check.summary();
  for (int gpu = 0; gpu < 2; ++gpu) {
    const std::vector<LabelMatcher> m{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"},
                                      {"uuid", LabelMatcher::Op::kEqual, "GPU-" + std::to_string(gpu)}};
    const auto found = store->select(m, 0, INT64_MAX);
    ASSERT_EQ(found.size(), 1u);
    ASSERT_EQ(found[0].points.size(), 800u);
    EXPECT_EQ(found[0].points[799].t_ms, 1'000'000 + 799 * 1000 + (799 * 7919) % 41 + gpu * (3 + 799 % 3));
  }
}

}  // namespace
}  // namespace gpuwatch::store
