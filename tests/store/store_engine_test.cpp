// The store engine through its public interfaces: appends, selects across the head and sealed blocks,
// restarts, the clock domain, rejected samples, label matchers and retention.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "store/store.h"
#include "store/wal.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

using test::TempDir;

StoreOptions options_for(const std::string& dir) {
  StoreOptions o;
  o.data_dir = dir;
  o.background_flusher = false;
  o.block_window_ms = 60'000;
  o.block_max_samples = 50;
  return o;
}

Labels gpu_series(const std::string& name, int gpu) {
  return {{"__name__", name}, {"gpu", std::to_string(gpu)}};
}

std::vector<LabelMatcher> name_is(const std::string& name) {
  return {LabelMatcher{"__name__", LabelMatcher::Op::kEqual, name}};
}

TEST(Store, ReadsBackWhatWasAppendedAcrossHeadAndSealedBlocks) {
  TempDir dir;
  auto store = Store::open(options_for(dir.path()));
  for (int i = 0; i < 500; ++i) {
    for (int gpu = 0; gpu < 3; ++gpu) {
      ASSERT_EQ(store->append(gpu_series("gpu_power_watts", gpu), 1000 * i, 100.5 + gpu + i % 7), "");
    }
  }
  store->maintain();  // seals the blocks cut at 50 samples and at the 60 s windows
  EXPECT_GT(store->health().blocks_sealed, 0u);
  const auto all = store->select(name_is("gpu_power_watts"), 0, 1'000'000);
  ASSERT_EQ(all.size(), 3u);
  for (int gpu = 0; gpu < 3; ++gpu) {
    EXPECT_EQ(label_value(all[gpu].labels, "gpu"), std::to_string(gpu));
    ASSERT_EQ(all[gpu].points.size(), 500u);
    for (int i = 0; i < 500; ++i) {
      EXPECT_EQ(all[gpu].points[i], (Point{1000 * i, 100.5 + gpu + i % 7}));
    }
  }
  const auto range = store->select(name_is("gpu_power_watts"), 10'500, 20'000);
  ASSERT_EQ(range.size(), 3u);
  EXPECT_EQ(range[0].points.front().t_ms, 11'000);
  EXPECT_EQ(range[0].points.back().t_ms, 20'000);
  EXPECT_TRUE(store->select(name_is("gpu_power_watts"), 600'000, 700'000).empty());
}

TEST(Store, MatchersFollowPrometheusSemantics) {
  TempDir dir;
  auto store = Store::open(options_for(dir.path()));
  store->append({{"__name__", "m"}, {"gpu", "0"}, {"pid", "7"}}, 1, 1);
  store->append({{"__name__", "m"}, {"gpu", "1"}}, 1, 2);
  store->append({{"__name__", "other"}, {"gpu", "10"}}, 1, 3);
  auto count = [&](std::vector<LabelMatcher> m) { return store->series(m, 0, 10).size(); };
  EXPECT_EQ(count({{"gpu", LabelMatcher::Op::kRegexMatch, "1.*"}}), 2u);
  EXPECT_EQ(count({{"gpu", LabelMatcher::Op::kRegexMatch, "1"}}), 1u);  // anchored
  EXPECT_EQ(count({{"__name__", LabelMatcher::Op::kEqual, "m"}, {"pid", LabelMatcher::Op::kEqual, ""}}), 1u);
  EXPECT_EQ(count({{"__name__", LabelMatcher::Op::kEqual, "m"}, {"gpu", LabelMatcher::Op::kNotEqual, "0"}}),
            1u);
  EXPECT_EQ(count({{"__name__", LabelMatcher::Op::kRegexNoMatch, "m|x"}}), 1u);
  EXPECT_EQ(count({{"pid", LabelMatcher::Op::kRegexMatch, ".+"}}), 1u);
  EXPECT_EQ(store->series(name_is("m"), 5, 10).size(), 0u);  // no point in range
}

TEST(Store, RejectsOutOfOrderAndDuplicateTimestampsWithAReasonAndKeepsTheRest) {
  TempDir dir;
  auto store = Store::open(options_for(dir.path()));
  const Labels s = gpu_series("gpu_temperature_celsius", 0);
  EXPECT_EQ(store->append(s, 2000, 50), "");
  const std::string dup = store->append(s, 2000, 51);
  EXPECT_NE(dup.find("duplicate"), std::string::npos) << dup;
  const std::string back = store->append(s, 1000, 52);
  EXPECT_NE(back.find("out-of-order"), std::string::npos) << back;
  EXPECT_EQ(store->append(s, 3000, 53), "");
  EXPECT_EQ(store->append(gpu_series("gpu_temperature_celsius", 1), 1000, 40),
            "");  // other series unaffected
  const auto h = store->health();
  EXPECT_EQ(h.samples_rejected.at("duplicate"), 1u);
  EXPECT_EQ(h.samples_rejected.at("out_of_order"), 1u);
  EXPECT_EQ(h.samples_appended, 3u);
  const auto got = store->select(name_is("gpu_temperature_celsius"), 0, 10'000);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].points, (std::vector<Point>{{2000, 50}, {3000, 53}}));
}

TEST(Store, AcceptsUnsortedLabelsAsTheSameSeriesAndRefusesDuplicateNames) {
  TempDir dir;
  auto store = Store::open(options_for(dir.path()));
  EXPECT_EQ(store->append({{"gpu", "0"}, {"__name__", "m"}, {"empty", ""}}, 1, 1), "");
  EXPECT_EQ(store->append({{"__name__", "m"}, {"gpu", "0"}}, 2, 2), "");
  EXPECT_NE(store->append({{"__name__", "m"}, {"gpu", "0"}, {"gpu", "1"}}, 3, 3), "");
  const auto got = store->select(name_is("m"), 0, 10);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].points.size(), 2u);
}

TEST(Store, HistorySurvivesARestartFromBlocksAndFromTheWal) {
  TempDir dir;
  std::vector<double> values;
  {
    auto store = Store::open(options_for(dir.path()));
    for (int i = 0; i < 130; ++i) {
      const double v = i % 3 == 0 ? std::nan("") : i * 0.1;  // NaN and decimals round-trip bit-exactly
      values.push_back(v);
      ASSERT_EQ(store->append(gpu_series("gpu_utilization_ratio", 0), 1000 * i, v), "");
    }
    store->maintain();  // blocks up to the last cut go to SQLite; the tail stays in the WAL
    EXPECT_GT(store->health().blocks_sealed, 0u);
    EXPECT_GT(store->health().samples_in_memory, 0u);
  }
  auto store = Store::open(options_for(dir.path()));
  const auto got = store->select(name_is("gpu_utilization_ratio"), 0, 1'000'000);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].points.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got[0].points[i].value), std::bit_cast<std::uint64_t>(values[i]));
  }
  // Time running backwards against what is stored is refused after the restart too.
  EXPECT_NE(store->append(gpu_series("gpu_utilization_ratio", 0), 5000, 1), "");
  EXPECT_EQ(store->append(gpu_series("gpu_utilization_ratio", 0), 130'000, 1), "");
}

TEST(Store, AFlushOfManyChunksOfWalEntriesReplaysWhole) {
  TempDir dir;
  StoreOptions o = options_for(dir.path());
  o.block_window_ms = 3'600'000;  // nothing is sealed: every sample is only in the WAL
  o.block_max_samples = 1'000'000;
  constexpr int kSeries = 200;
  constexpr int kSamples = 60;  // 12,000 samples of about 13 bytes: several chunks in one flush
  {
    auto store = Store::open(o);
    for (int t = 0; t < kSamples; ++t)
      for (int gpu = 0; gpu < kSeries; ++gpu)
        ASSERT_EQ(store->append(gpu_series("gpu_power_watts", gpu), 1000 * t, t * 1.5 + gpu), "");
    store->maintain();
    EXPECT_EQ(store->health().blocks_sealed, 0u);
  }
  const WalReplayReport report = replay_wal(wal_dir(dir.path()), {}, false);
  EXPECT_GT(report.records, 1u) << "the entries were not cut into chunks";
  EXPECT_EQ(report.samples, static_cast<std::size_t>(kSeries * kSamples));
  EXPECT_TRUE(report.corruption.empty());
  auto store = Store::open(o);
  const auto got = store->select(name_is("gpu_power_watts"), 0, 1'000'000);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kSeries));
  for (const auto& series : got) {
    ASSERT_EQ(series.points.size(), static_cast<std::size_t>(kSamples));
    EXPECT_EQ(series.points.back().value,
              (kSamples - 1) * 1.5 + std::stoi(label_value(series.labels, "gpu")));
  }
}

TEST(Store, AppendSharedKeepsTheCallersLabelSetAndHandsItToTheNextCaller) {
  TempDir dir;
  auto store = Store::open(options_for(dir.path()));
  auto first = std::make_shared<const Labels>(gpu_series("gpu_power_watts", 0));
  ASSERT_EQ(store->append_shared(first, 1000, 1), "");
  // An equal set from elsewhere (the history's cache after a sweep, or a restart) becomes the store's one.
  auto second = std::make_shared<const Labels>(gpu_series("gpu_power_watts", 0));
  ASSERT_EQ(store->append_shared(second, 2000, 2), "");
  EXPECT_EQ(second.get(), first.get());
  EXPECT_NE(store->append_shared(second, 2000, 3), "") << "a duplicate timestamp is still refused";
  const auto got = store->select(name_is("gpu_power_watts"), 0, 10'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].points.size(), 2u);
}

TEST(Store, RefusesToOpenWithAnotherClockDomainNamingBoth) {
  TempDir dir;
  { auto store = Store::open(options_for(dir.path())); }
  StoreOptions sim = options_for(dir.path());
  sim.clock_domain = "sim:incidents-8xh200";
  try {
    Store::open(sim);
    FAIL() << "opened a wall-clock store in a simulated clock domain";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'wall'"), std::string::npos) << what;
    EXPECT_NE(what.find("'sim:incidents-8xh200'"), std::string::npos) << what;
  }
}

TEST(Store, RefusesASecondOpenOfTheSameDirectory) {
  TempDir dir;
  auto first = Store::open(options_for(dir.path()));
  EXPECT_THROW(Store::open(options_for(dir.path())), StoreError);
}

TEST(Store, DeletesWalSegmentsOnceTheirSamplesAreSealed) {
  TempDir dir;
  StoreOptions o = options_for(dir.path());
  o.wal_segment_bytes = 256;  // a new segment every few flushes
  auto store = Store::open(o);
  for (int i = 0; i < 400; ++i) {
    store->append(gpu_series("m", 0), 1000 * i, i);
    if (i % 10 == 9) store->maintain();
  }
  const auto segments = list_segments(wal_dir(dir.path()));
  // Only the segments holding samples of the open block (at most 50 samples = a few segments) remain.
  EXPECT_LE(segments.size(), 8u);
  EXPECT_GT(segments.front(), 10u);
  store.reset();
  auto again = Store::open(o);
  const auto got = again->select(name_is("m"), 0, 1'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].points.size(), 400u);
}

TEST(Store, RetentionDropsWholeOldestBlocksByAgeAndBySize) {
  TempDir dir;
  StoreOptions o = options_for(dir.path());
  o.retention_ms = 200'000;
  o.retention_check_interval = std::chrono::milliseconds(0);
  auto store = Store::open(o);
  for (int i = 0; i < 1000; ++i)
    store->append(gpu_series("m", 0), 1000 * i, i * 1.5 + (i * 7919 % 101) / 8.0);
  store->seal_all();
  store->maintain();
  auto got = store->select(name_is("m"), 0, 10'000'000);
  ASSERT_EQ(got.size(), 1u);
  // Blocks wholly older than newest - 200 s are gone; the block straddling the limit stays whole.
  EXPECT_GE(got[0].points.front().t_ms, 999'000 - 200'000 - 60'000);
  EXPECT_LE(got[0].points.front().t_ms, 999'000 - 200'000);
  EXPECT_EQ(got[0].points.back().t_ms, 999'000);
  const std::size_t by_age = got[0].points.size();
  store.reset();

  o.retention_bytes = 150;  // two or three blocks' worth
  store = Store::open(o);
  store->maintain();
  got = store->select(name_is("m"), 0, 10'000'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_LT(got[0].points.size(), by_age);
  EXPECT_GE(got[0].points.size(), 50u);
  EXPECT_EQ(got[0].points.back().t_ms, 999'000);  // the newest data is what stays
}

}  // namespace
}  // namespace gpuwatch::store
