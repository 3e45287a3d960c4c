// Timestamps stored apart (time_column.h): the column round-trips any strictly increasing timestamps exactly
// and refuses damage; a block that keeps its timestamps apart decodes only with them; the store keeps one
// column for every block of a window whose series were read together, however irregular the timestamps,
// also when those series arrive one after another (an import); retention and downsampling delete a column
// with the last block that names it; a missing or damaged column degrades only the blocks that name it, and
// the integrity check says which; a data dir from before time columns opens and checks as it is.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_series_store.h"
#include "store/chunk_codec.h"
#include "store/label_index.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_check.h"
#include "store/time_column.h"
#include "stored_damage.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace time_column_test {

using test::TempDir;
using testing::blocks_of_samples;
using testing::gpu_labels;
using testing::read_gpu_series;

constexpr std::int64_t kStartMs = 1'795'824'000'000;
constexpr const char* kMetrics[] = {"gpu_utilization_ratio", "gpu_temperature_celsius", "gpu_power_watts",
                                    "gpu_memory_used_bytes", "gpu_sm_clock_hertz"};

// A reading a second, each 0..50 ms late, as a GPU's read group lands from tick to tick.
std::vector<std::int64_t> jittered(std::size_t n, std::uint64_t seed, std::int64_t start_ms = kStartMs) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> late(0, 50);
  std::vector<std::int64_t> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(start_ms + static_cast<std::int64_t>(i) * 1000 + late(rng));
  return t;
}

double value_of(std::size_t metric, int gpu, std::size_t i) {
  return static_cast<double>((metric + 1) * 1000 + static_cast<std::size_t>(gpu) * 100 + i % 37) / 8;
}

StoreOptions options(const std::string& dir) {
  StoreOptions o = blocks_of_samples(dir, 500);
  o.downsample_after_ms = 0;
  return o;
}

void expect_series(const Store& store, std::size_t metric, int gpu, const std::vector<std::int64_t>& t) {
  const auto got = read_gpu_series(store, kMetrics[metric], gpu);
  ASSERT_EQ(got.size(), t.size()) << kMetrics[metric] << " gpu " << gpu;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ASSERT_EQ(got[i].t_ms, t[i]) << kMetrics[metric] << " gpu " << gpu << " sample " << i;
    ASSERT_EQ(got[i].value, value_of(metric, gpu, i))
        << kMetrics[metric] << " gpu " << gpu << " sample " << i;
  }
}

struct Counts {
  std::int64_t time_columns = 0;
  std::int64_t blocks = 0;
  std::int64_t blocks_apart = 0;
  std::int64_t unused_time_columns = 0;
};

Counts counts(const std::string& dir) {
  SqliteDb db(dir + "/store.db", false);
  const auto one = [&](const char* sql) {
    auto s = db.prepare(sql);
    return s.step() ? s.column_int(0) : -1;
  };
  return Counts{one("SELECT COUNT(*) FROM time_columns"), one("SELECT COUNT(*) FROM blocks"),
                one("SELECT COUNT(*) FROM blocks WHERE time_id != 0"),
                one("SELECT COUNT(*) FROM time_columns WHERE id NOT IN (SELECT time_id FROM blocks)")};
}

// Every GPU's series appended tick by tick, as the agent does, with a pass of the flusher now and then.
void fill_by_tick(Store& store, const std::vector<std::vector<std::int64_t>>& times) {
  for (std::size_t i = 0; i < times[0].size(); ++i) {
    for (int gpu = 0; gpu < static_cast<int>(times.size()); ++gpu) {
      for (std::size_t m = 0; m < std::size(kMetrics); ++m)
        ASSERT_EQ(store.append(gpu_labels(kMetrics[m], gpu), times[gpu][i], value_of(m, gpu, i)), "");
    }
    if (i % 170 == 169) store.maintain();
  }
  store.seal_all();
}

// One retention pass with `o` over a store filled by fill_by_tick with GPU 0's timestamps `t`: every series
// keeps its samples from `first` on, `columns` time columns are left, none of them unused, and the check is
// clean.
void expect_retained(StoreOptions o, const std::vector<std::int64_t>& t, std::size_t first,
                     std::int64_t columns) {
  o.retention_check_interval = std::chrono::milliseconds(0);
  {
    auto store = Store::open(o);
    store->maintain();
    for (std::size_t m = 0; m < std::size(kMetrics); ++m) {
      const auto got = read_gpu_series(*store, kMetrics[m], 0);
      ASSERT_EQ(got.size(), t.size() - first) << kMetrics[m];
      EXPECT_EQ(got.front().t_ms, t[first]) << kMetrics[m];
    }
  }
  const Counts c = counts(o.data_dir);
  EXPECT_EQ(c.time_columns, columns);
  EXPECT_EQ(c.unused_time_columns, 0);
  EXPECT_TRUE(check_store(o.data_dir).clean()) << check_store(o.data_dir).summary();
}

// A store in `dir` with those GPUs' series (fill_by_tick), sealed and closed.
void fill_store(const std::string& dir, const std::vector<std::vector<std::int64_t>>& times) {
  auto store = Store::open(options(dir));
  fill_by_tick(*store, times);
}

TEST(TimeColumn, RoundTripsIrregularTimestampsExactlyAndEncodesEqualOnesEqually) {
  for (const auto& t : {jittered(3600, 1), std::vector<std::int64_t>{42},
                        std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1, 0, 1,
                                                  std::numeric_limits<std::int64_t>::max()}}) {
    const auto column = encode_time_column(t);
    std::vector<std::int64_t> back;
    decode_time_column(column, back);
    EXPECT_EQ(back, t);
    EXPECT_EQ(encode_time_column(back), column);
    const TimeColumnInfo info = inspect_time_column(column);
    EXPECT_EQ(info.samples, t.size());
    EXPECT_EQ(info.first_ms, t.front());
    EXPECT_EQ(info.last_ms, t.back());
  }
  // 3,600 readings up to 50 ms late take about a byte each; a steady cadence stays inline.
  EXPECT_LT(encode_time_column(jittered(3600, 2)).size(), 3600u);
  EXPECT_GE(encode_time_column(jittered(3600, 2)).size(), kMinTimeColumnBytesApart);
  std::vector<std::int64_t> steady;
  for (int i = 0; i < 3600; ++i) steady.push_back(kStartMs + i * 1000);
  EXPECT_LT(encode_time_column(steady).size(), kMinTimeColumnBytesApart);
  EXPECT_THROW(encode_time_column(std::vector<std::int64_t>{}), CodecError);
  EXPECT_THROW(encode_time_column(std::vector<std::int64_t>{5, 5}), CodecError);
}

TEST(TimeColumn, AFlippedBitOrATruncationIsRefused) {
  const auto column = encode_time_column(jittered(500, 3));
  std::vector<std::int64_t> out;
  for (std::size_t byte = 0; byte < column.size(); byte += 7) {
    auto damaged = column;
    damaged[byte] ^= 0x10;
    EXPECT_THROW(decode_time_column(damaged, out), CodecError) << "byte " << byte;
  }
  for (const std::size_t keep : {std::size_t{0}, std::size_t{5}, column.size() - 1}) {
    EXPECT_THROW(decode_time_column(std::span(column).first(keep), out), CodecError) << keep;
  }
}

TEST(TimeColumn, ABlockWithItsTimestampsApartDecodesOnlyWithThem) {
  const auto t = jittered(500, 4);
  std::vector<double> v;
  for (std::size_t i = 0; i < t.size(); ++i) v.push_back(value_of(0, 0, i));
  const auto inline_block = encode_block(t, v);
  const auto apart = BlockEncoder().encode(t, v, {}, true);
  EXPECT_TRUE(inspect_block(apart).times_apart);
  EXPECT_FALSE(inspect_block(inline_block).times_apart);
  EXPECT_LT(apart.size() + 300, inline_block.size()) << "the time column is most of a jittered block";
  const DecodedBlock d = decode_block(apart, {}, t);
  EXPECT_EQ(d.timestamps_ms, t);
  EXPECT_EQ(d.values, v);
  EXPECT_THROW(decode_block(apart), CodecError);
  const auto other = jittered(500, 5);
  EXPECT_THROW(decode_block(apart, {}, other), CodecError) << "another window's timestamps";
  EXPECT_THROW(decode_block(apart, {}, std::span(t).first(499)), CodecError);
}

TEST(StoreTimeColumns, SeriesReadTogetherShareOneColumnPerBlockAndReadBackExactly) {
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> times{jittered(2000, 10), jittered(2000, 11)};
  {
    auto store = Store::open(options(dir.path()));
    fill_by_tick(*store, times);
    // A steady series beside them keeps its timestamps inline.
    for (int i = 0; i < 2000; ++i)
      ASSERT_EQ(store->append(gpu_labels("steady", 0), kStartMs + i * 1000, 1), "");
    store->seal_all();
  }
  const Counts c = counts(dir.path());
  EXPECT_EQ(c.time_columns, 2 * 4) << "one a GPU and block";
  EXPECT_EQ(c.blocks_apart, 2 * 4 * static_cast<std::int64_t>(std::size(kMetrics)));
  EXPECT_EQ(c.blocks, c.blocks_apart + 4) << "the steady series' 4 blocks inline";
  EXPECT_EQ(c.unused_time_columns, 0);
  const CheckReport check = check_store(dir.path());
  EXPECT_TRUE(check.clean()) << check.summary();
  EXPECT_EQ(check.time_columns, 8u);
  EXPECT_EQ(check.blocks_with_times_apart, 40u);
  EXPECT_NE(check.summary().find("time columns: 8"), std::string::npos) << check.summary();

  auto store = Store::open(options(dir.path()));
  for (int pass = 0; pass < 2; ++pass) {  // decoded, then from the decoded-block cache
    for (int gpu = 0; gpu < 2; ++gpu) {
      for (std::size_t m = 0; m < std::size(kMetrics); ++m) expect_series(*store, m, gpu, times[gpu]);
    }
  }
  // A range across two blocks.
  const std::vector<LabelMatcher> power{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"}};
  const auto part = store->select(power, times[1][480], times[1][520]);
  ASSERT_EQ(part.size(), 2u);
  EXPECT_EQ(part[1].points.front().t_ms, times[1][480]);
  EXPECT_EQ(part[1].points.back().t_ms, times[1][520]);
  EXPECT_EQ(store->health().corrupt_blocks, 0u);
}

TEST(StoreTimeColumns, SeriesThatArriveOneAfterAnotherStillShareTheirColumns) {
  TempDir dir;
  const auto t = jittered(1000, 20);
  {
    auto store = Store::open(options(dir.path()));
    // As an imported file lists a family's samples one series after another, a pass of the flusher between.
    for (std::size_t m = 0; m < std::size(kMetrics); ++m) {
      std::vector<Point> points;
      for (std::size_t i = 0; i < t.size(); ++i) points.push_back(Point{t[i], value_of(m, 0, i)});
      EXPECT_TRUE(store->append_points(gpu_labels(kMetrics[m], 0), points).empty());
      store->commit();
      store->seal_all();
    }
  }
  const Counts c = counts(dir.path());
  EXPECT_EQ(c.time_columns, 2);
  EXPECT_EQ(c.blocks_apart, 2 * static_cast<std::int64_t>(std::size(kMetrics)));
  auto store = Store::open(options(dir.path()));
  for (std::size_t m = 0; m < std::size(kMetrics); ++m) expect_series(*store, m, 0, t);
}

TEST(StoreTimeColumns, RetentionDeletesAColumnWithTheLastBlockThatNamesIt) {
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> times{jittered(2000, 30)};
  fill_store(dir.path(), times);
  ASSERT_EQ(counts(dir.path()).time_columns, 4);
  StoreOptions o = options(dir.path());
  o.retention_ms = 900'000;  // blocks wholly older than newest - 900 s: the first two windows
  expect_retained(o, times[0], 1000, 2);
}

TEST(StoreTimeColumns, RetentionBySizeCountsAColumnOnceAndDeletesItWithItsWindow) {
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> times{jittered(2000, 31)};
  fill_store(dir.path(), times);
  ASSERT_EQ(counts(dir.path()).time_columns, 4);
  // The budget: everything but the first window (its five blocks and its column).
  std::uint64_t total = 0, first_window = 0;
  {
    SqliteDb db(dir.path() + "/store.db", false);
    auto s = db.prepare(
        "SELECT (SELECT SUM(LENGTH(data)) FROM blocks) + (SELECT SUM(LENGTH(data)) FROM time_columns), "
        "(SELECT SUM(LENGTH(data)) FROM blocks WHERE min_t < ?) + "
        "(SELECT SUM(LENGTH(data)) FROM time_columns WHERE min_t < ?)");
    s.bind(1, times[0][1]).bind(2, times[0][1]);
    ASSERT_TRUE(s.step());
    total = static_cast<std::uint64_t>(s.column_int(0));
    first_window = static_cast<std::uint64_t>(s.column_int(1));
    s.reset();
  }
  StoreOptions o = options(dir.path());
  o.retention_bytes = total - first_window;
  expect_retained(o, times[0], 500, 3);  // the first window only is gone
}

TEST(StoreTimeColumns, RollupsOfSeriesReadTogetherShareTheirColumnsToo) {
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> times{jittered(2000, 40)};
  fill_store(dir.path(), times);
  StoreOptions o = options(dir.path());
  o.downsample_after_ms = 1'200'000;  // the first window
  o.downsample_step_ms = 5'000;       // 100 points a 500-sample block: a column worth a row of its own
  o.retention_check_interval = std::chrono::milliseconds(0);
  {
    auto store = Store::open(o);
    store->maintain();
    EXPECT_GT(store->health().blocks_downsampled, 0u);
    const auto got = read_gpu_series(*store, kMetrics[0], 0);
    ASSERT_FALSE(got.empty());
    // The raw blocks rolled up keep the last sample of each step, at its own (late) timestamp.
    EXPECT_EQ(got.front().t_ms, times[0][4]);
    EXPECT_EQ(got.back().t_ms, times[0].back());
  }
  const Counts c = counts(dir.path());
  EXPECT_EQ(c.unused_time_columns, 0) << "the raw blocks' columns went with them";
  // Each rolled-up window: one column for the five series and their four rollups each.
  SqliteDb db(dir.path() + "/store.db", false);
  auto s = db.prepare(
      "SELECT COUNT(DISTINCT time_id), COUNT(*) FROM blocks WHERE resolution_ms != 0 AND time_id != 0");
  ASSERT_TRUE(s.step());
  EXPECT_GT(s.column_int(0), 0);
  EXPECT_EQ(s.column_int(1), s.column_int(0) * 5 * static_cast<std::int64_t>(std::size(kMetrics)));
  s.reset();
  EXPECT_TRUE(check_store(dir.path()).clean());
}

TEST(StoreTimeColumns, AMissingOrDamagedColumnDegradesOnlyTheBlocksThatNameIt) {
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> times{jittered(1000, 50), jittered(1000, 51)};
  fill_store(dir.path(), times);
  std::int64_t missing = 0, damaged = 0;
  {
    SqliteDb db(dir.path() + "/store.db", false);
    // GPU 0's first window loses its column; GPU 1's first window has one byte of its column flipped.
    auto first = db.prepare("SELECT DISTINCT time_id FROM blocks WHERE min_t < ? ORDER BY time_id");
    first.bind(1, kStartMs + 400'000);
    ASSERT_TRUE(first.step());
    missing = first.column_int(0);
    ASSERT_TRUE(first.step());
    damaged = first.column_int(0);
    first.reset();
    db.prepare("DELETE FROM time_columns WHERE id=?").bind(1, missing).run();
  }
  testing::flip_stored_byte(dir.path(), "time_columns", damaged);
  const CheckReport check = check_store(dir.path());
  ASSERT_EQ(check.problems.size(), 2u * std::size(kMetrics)) << check.summary();
  EXPECT_NE(check.summary().find("its time column (row " + std::to_string(missing) + ") is missing"),
            std::string::npos)
      << check.summary();
  EXPECT_NE(check.summary().find("its time column (row " + std::to_string(damaged) + ") is damaged"),
            std::string::npos)
      << check.summary();

  auto store = Store::open(options(dir.path()));
  for (int gpu = 0; gpu < 2; ++gpu) {
    const auto got = read_gpu_series(*store, kMetrics[1], gpu);
    ASSERT_EQ(got.size(), 500u) << "gpu " << gpu << ": the second window only";
    EXPECT_EQ(got.front().t_ms, times[gpu][500]);
  }
  EXPECT_EQ(store->health().corrupt_blocks, 2u);
}

TEST(StoreTimeColumns, EnergyCodedAgainstPowerSharesPowersColumnAndReadsBackAfterReopen) {
  TempDir dir;
  const auto t = jittered(1000, 70);
  std::vector<double> power, energy;
  std::mt19937_64 rng(71);
  std::normal_distribution<double> noise(0, 15.0);
  std::int64_t e_mj = 33'289'293'653, prev_mw = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto mw = static_cast<std::int64_t>(std::llround((400 + noise(rng)) * 1000));
    if (i > 0) e_mj += (prev_mw + mw) * (t[i] - t[i - 1]) / 2000 + static_cast<std::int64_t>(i % 5);
    prev_mw = mw;
    power.push_back(static_cast<double>(mw) / 1000);
    energy.push_back(static_cast<double>(e_mj) / 1000);
  }
  {
    auto store = Store::open(options(dir.path()));
    for (std::size_t i = 0; i < t.size(); ++i) {
      ASSERT_EQ(store->append(gpu_labels("gpu_power_watts", 0), t[i], power[i]), "");
      ASSERT_EQ(store->append(gpu_labels("gpu_energy_joules_total", 0), t[i], energy[i]), "");
      if (i % 170 == 169) store->maintain();
    }
    store->seal_all();
  }
  {
    SqliteDb db(dir.path() + "/store.db", false);
    auto s = db.prepare("SELECT data, time_id FROM blocks ORDER BY min_t, id");
    std::vector<std::int64_t> ids;
    while (s.step()) {
      ids.push_back(s.column_int(1));
      EXPECT_TRUE(inspect_block(s.column_blob(0)).times_apart);
    }
    ASSERT_EQ(ids.size(), 4u);
    EXPECT_EQ(ids[0], ids[1]);
    EXPECT_EQ(ids[2], ids[3]);
    EXPECT_NE(ids[0], ids[2]);
    auto coded = db.prepare("SELECT data FROM blocks ORDER BY min_t, id");
    int against_power = 0;
    while (coded.step()) against_power += inspect_block(coded.column_blob(0)).needs_reference ? 1 : 0;
    EXPECT_EQ(against_power, 2) << "both energy blocks";
  }
  EXPECT_TRUE(check_store(dir.path()).clean()) << check_store(dir.path()).summary();
  auto store = Store::open(options(dir.path()));
  for (const auto& [name, values] :
       {std::pair{"gpu_power_watts", &power}, std::pair{"gpu_energy_joules_total", &energy}}) {
    const auto got = read_gpu_series(*store, name, 0);
    ASSERT_EQ(got.size(), t.size()) << name;
    for (std::size_t i = 0; i < t.size(); ++i) {
      ASSERT_EQ(got[i].t_ms, t[i]) << name << " " << i;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(got[i].value), std::bit_cast<std::uint64_t>((*values)[i]))
          << name << " " << i;
    }
  }
  EXPECT_EQ(store->health().corrupt_blocks, 0u);
}

TEST(StoreTimeColumns, ADataDirFromBeforeTimeColumnsChecksAndOpensAsItIs) {
  TempDir dir;
  std::vector<std::int64_t> t;
  {
    auto store = Store::open(options(dir.path()));
    for (int i = 0; i < 1000; ++i) {
      t.push_back(kStartMs + i * 1000);
      ASSERT_EQ(
          store->append(gpu_labels(kMetrics[0], 0), t.back(), value_of(0, 0, static_cast<std::size_t>(i))),
          "");
    }
    store->seal_all();
  }
  {
    // The schema an older build wrote: no time_id column, no time_columns table.
    SqliteDb db(dir.path() + "/store.db", false);
    db.exec("DROP INDEX blocks_by_time_column");
    db.exec("DROP TABLE time_columns");
    db.exec("ALTER TABLE blocks DROP COLUMN time_id");
  }
  const CheckReport check = check_store(dir.path());
  EXPECT_TRUE(check.clean()) << check.summary();
  EXPECT_EQ(check.blocks, 2u);
  auto store = Store::open(options(dir.path()));
  expect_series(*store, 0, 0, t);
  // And new blocks with their timestamps apart go beside the old ones.
  const auto late = jittered(500, 60, t.back() + 1000);
  for (std::size_t i = 0; i < late.size(); ++i)
    ASSERT_EQ(store->append(gpu_labels(kMetrics[0], 0), late[i], 1.5), "");
  store->seal_all();
  EXPECT_EQ(read_gpu_series(*store, kMetrics[0], 0).size(), 1500u);
  EXPECT_EQ(counts(dir.path()).blocks_apart, 1);
}

}  // namespace time_column_test
}  // namespace gpuwatch::store
