// The agent's history adapter: what a snapshot becomes in the store.
#include "store/snapshot_history.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

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

}  // namespace
}  // namespace gpuwatch::store
