// The store seals energy counters against the power series of the same GPU (block_reference.h): values come
// back bit for bit through sealing, reopening and WAL replay; retention and downsampling never leave a block
// without the block it is coded against; the integrity check and reads report a missing or damaged reference
// block and degrade only the series coded against it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gpu_series_store.h"
#include "store/chunk_codec.h"
#include "store/label_index.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_check.h"
#include "stored_damage.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace reference_store_test {

using test::TempDir;
using testing::blocks_of_samples;
using testing::flip_stored_byte;
using testing::gpu_labels;
using testing::read_gpu_series;

constexpr const char* kPower = "gpu_power_watts";
constexpr const char* kEnergy = "gpu_energy_joules_total";
constexpr const char* kTemperature = "gpu_temperature_celsius";
constexpr std::int64_t kStartMs = 1'795'824'000'000;

// A GPU's power (W, mW resolution) and energy counter (J, mJ resolution: the trapezoid integral of the power
// plus the counter's own noise), a sample a second, as NVML reports them.
struct Readings {
  std::vector<std::int64_t> t;
  std::vector<double> power;
  std::vector<double> energy;
};

Readings gpu_readings(std::size_t n, std::uint64_t seed, std::int64_t start_ms = kStartMs) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> power_noise(0, 15.0);
  std::normal_distribution<double> counter_noise(0, 400.0);
  Readings r;
  std::int64_t e_mj = 33'289'293'653;
  std::int64_t prev_mw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double level = (i / 300) % 2 == 0 ? 620.0 : 80.0;
    const auto mw = static_cast<std::int64_t>(std::llround((level + power_noise(rng)) * 1000));
    if (i > 0) e_mj += (prev_mw + mw) / 2 + static_cast<std::int64_t>(std::llround(counter_noise(rng)));
    prev_mw = mw;
    r.t.push_back(start_ms + static_cast<std::int64_t>(i) * 1000);
    r.power.push_back(static_cast<double>(mw) / 1000);
    r.energy.push_back(static_cast<double>(e_mj) / 1000);
  }
  return r;
}

StoreOptions paired_options(const std::string& dir) {
  return blocks_of_samples(dir, 500);
}

// Every timestamp and every value bit of samples [from, to) of `values`.
void expect_exact(const std::vector<Point>& got, const Readings& r, const std::vector<double>& values,
                  std::size_t from, std::size_t to) {
  ASSERT_EQ(got.size(), to - from);
  for (std::size_t i = from; i < to; ++i) {
    ASSERT_EQ(got[i - from].t_ms, r.t[i]) << i;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got[i - from].value), std::bit_cast<std::uint64_t>(values[i]))
        << i;
  }
}

struct BlockFacts {
  std::int64_t row = 0;
  std::string series;  // labels_to_string
  std::int64_t series_id = 0;
  std::int64_t min_t = 0;
  std::int64_t max_t = 0;
  std::int64_t count = 0;
  std::int64_t resolution_ms = 0;
  std::size_t bytes = 0;
  bool needs_reference = false;
};

// The blocks table as it is on disk, in retention's order (oldest last sample first, then row).
std::vector<BlockFacts> blocks_on_disk(const std::string& dir) {
  SqliteDb db(dir + "/store.db", false);
  std::map<std::int64_t, std::string> names;
  auto series = db.prepare("SELECT id, labels FROM series");
  while (series.step()) names[series.column_int(0)] = labels_to_string(decode_labels(series.column_blob(1)));
  std::vector<BlockFacts> out;
  auto s = db.prepare(
      "SELECT id, series_id, min_t, max_t, count, resolution_ms, data FROM blocks ORDER BY max_t, id");
  while (s.step()) {
    BlockFacts f{s.column_int(0), names[s.column_int(1)], s.column_int(1), s.column_int(2),
                 s.column_int(3), s.column_int(4),        s.column_int(5), s.column_blob(6).size()};
    f.needs_reference = inspect_block(s.column_blob(6)).needs_reference;
    out.push_back(f);
  }
  return out;
}

std::vector<BlockFacts> blocks_of(const std::vector<BlockFacts>& all, const char* name, int gpu) {
  std::vector<BlockFacts> out;
  const std::string series = labels_to_string(gpu_labels(name, gpu));
  for (const auto& b : all) {
    if (b.series == series) out.push_back(b);
  }
  return out;
}

void append_tick(Store& store, int gpu, const Readings& r, std::size_t i) {
  ASSERT_EQ(store.append(gpu_labels(kPower, gpu), r.t[i], r.power[i]), "");
  ASSERT_EQ(store.append(gpu_labels(kEnergy, gpu), r.t[i], r.energy[i]), "");
}

// One GPU's power and energy, blocks sealed as the agent's flusher would between ticks, and a temperature
// series beside them that has no reference.
void fill_gpu(Store& store, int gpu, const Readings& r) {
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    append_tick(store, gpu, r, i);
    ASSERT_EQ(store.append(gpu_labels(kTemperature, gpu), r.t[i], 40 + static_cast<double>(i % 7)), "");
    if (i % 100 == 99) store.maintain();
  }
  store.seal_all();
}

// The data dir is clean by the integrity check, and GPU 0's energy and power hold samples [from, to) exactly.
void expect_pair_intact(const StoreOptions& o, const Readings& r, std::size_t from, std::size_t to) {
  const CheckReport check = check_store(o.data_dir);
  EXPECT_TRUE(check.clean()) << check.summary();
  auto store = Store::open(o);
  expect_exact(read_gpu_series(*store, kEnergy, 0), r, r.energy, from, to);
  expect_exact(read_gpu_series(*store, kPower, 0), r, r.power, from, to);
  EXPECT_EQ(store->health().corrupt_blocks, 0u);
}

TEST(StoreReference, EnergyIsSealedAgainstPowerAndReadsBackBitExactAfterReopen) {
  TempDir dir;
  std::vector<Readings> gpus;
  for (int gpu = 0; gpu < 3; ++gpu) gpus.push_back(gpu_readings(3000, 10 + static_cast<std::uint64_t>(gpu)));
  {
    auto store = Store::open(paired_options(dir.path()));
    for (std::size_t i = 0; i < 3000; ++i) {
      // GPU 0: a pass seals power's full block before energy's is cut (energy then reads its reference from
      // SQLite); GPU 1: energy's block is cut first and takes power's along; GPU 2: both cut, then sealed.
      ASSERT_EQ(store->append(gpu_labels(kPower, 0), gpus[0].t[i], gpus[0].power[i]), "");
      if (i % 500 == 0) store->maintain();
      ASSERT_EQ(store->append(gpu_labels(kEnergy, 0), gpus[0].t[i], gpus[0].energy[i]), "");
      ASSERT_EQ(store->append(gpu_labels(kEnergy, 1), gpus[1].t[i], gpus[1].energy[i]), "");
      if (i % 500 == 0) store->maintain();
      ASSERT_EQ(store->append(gpu_labels(kPower, 1), gpus[1].t[i], gpus[1].power[i]), "");
      append_tick(*store, 2, gpus[2], i);
      if (i % 250 == 249) store->maintain();
    }
    store->seal_all();
  }
  const auto on_disk = blocks_on_disk(dir.path());
  std::size_t paired_bytes = 0, alone_bytes = 0;
  for (int gpu = 0; gpu < 3; ++gpu) {
    const auto energy = blocks_of(on_disk, kEnergy, gpu);
    ASSERT_EQ(energy.size(), 6u) << "gpu " << gpu;
    for (const auto& b : energy) {
      EXPECT_TRUE(b.needs_reference) << "gpu " << gpu << " block " << b.row << " [" << b.min_t << ", "
                                     << b.max_t << "]";
      paired_bytes += b.bytes;
      const auto from = static_cast<std::size_t>((b.min_t - kStartMs) / 1000);
      const auto to = static_cast<std::size_t>((b.max_t - kStartMs) / 1000) + 1;
      alone_bytes += encode_block(std::span(gpus[gpu].t).subspan(from, to - from),
                                  std::span(gpus[gpu].energy).subspan(from, to - from))
                         .size();
    }
    for (const auto& b : blocks_of(on_disk, kPower, gpu)) EXPECT_FALSE(b.needs_reference);
  }
  EXPECT_LT(paired_bytes * 10, alone_bytes * 9)
      << "coded against power: " << paired_bytes << " bytes, alone: " << alone_bytes;
  const CheckReport check = check_store(dir.path());
  EXPECT_TRUE(check.clean()) << check.summary();

  auto store = Store::open(paired_options(dir.path()));
  for (int gpu = 0; gpu < 3; ++gpu) {
    expect_exact(read_gpu_series(*store, kEnergy, gpu), gpus[gpu], gpus[gpu].energy, 0, 3000);
    expect_exact(read_gpu_series(*store, kPower, gpu), gpus[gpu], gpus[gpu].power, 0, 3000);
    // Again, from the decoded-block cache.
    expect_exact(read_gpu_series(*store, kEnergy, gpu), gpus[gpu], gpus[gpu].energy, 0, 3000);
  }
  // A range inside one block, and one across two.
  const std::vector<LabelMatcher> energy0{{"__name__", LabelMatcher::Op::kEqual, kEnergy},
                                          {"gpu", LabelMatcher::Op::kEqual, "0"}};
  const auto part = store->select(energy0, gpus[0].t[480], gpus[0].t[520]);
  ASSERT_EQ(part.size(), 1u);
  ASSERT_EQ(part[0].points.size(), 41u);
  EXPECT_EQ(part[0].points.front(), (Point{gpus[0].t[480], gpus[0].energy[480]}));
  EXPECT_EQ(part[0].points.back(), (Point{gpus[0].t[520], gpus[0].energy[520]}));
  EXPECT_EQ(store->health().corrupt_blocks, 0u);
}

TEST(StoreReference, AfterACrashTheWalReplaysAndTheRestIsSealedAgainstPower) {
  TempDir dir;
  TempDir crashed;
  const Readings r = gpu_readings(1200, 21);
  {
    auto store = Store::open(paired_options(dir.path()));
    for (std::size_t i = 0; i < r.t.size(); ++i) {
      append_tick(*store, 0, r, i);
      if (i % 100 == 99) store->maintain();  // seals [0, 500) and [500, 1000); the rest is in the WAL
    }
    store->commit();
    // The data dir as a crash would leave it: blocks committed, the WAL synced, the head lost.
    std::filesystem::copy(
        dir.path(), crashed.path(),
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  }
  {
    auto store = Store::open(paired_options(crashed.path()));
    expect_exact(read_gpu_series(*store, kEnergy, 0), r, r.energy, 0, 1200);
    store->seal_all();
  }
  const auto energy = blocks_of(blocks_on_disk(crashed.path()), kEnergy, 0);
  ASSERT_EQ(energy.size(), 3u);
  for (const auto& b : energy) EXPECT_TRUE(b.needs_reference) << b.row;
  expect_pair_intact(paired_options(crashed.path()), r, 0, 1200);
}

std::uint64_t wal_bytes(const std::string& dir) {
  std::uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/wal")) total += e.file_size();
  return total;
}

TEST(StoreReference, RetentionBySizeTakesThePowerBlocksEnergyBlockAlong) {
  TempDir dir;
  const Readings r = gpu_readings(5000, 31);
  StoreOptions o = paired_options(dir.path());
  o.block_max_samples = 1000;
  {
    auto store = Store::open(o);
    fill_gpu(*store, 0, r);
  }
  const auto before = blocks_on_disk(dir.path());
  ASSERT_EQ(blocks_of(before, kEnergy, 0).size(), 5u);
  for (const auto& b : blocks_of(before, kEnergy, 0)) ASSERT_TRUE(b.needs_reference);
  // Retention's order meets the oldest power block first (cut, so inserted, before its energy block).
  ASSERT_EQ(before[0].series, labels_to_string(gpu_labels(kPower, 0)));
  std::size_t total = 0;
  for (const auto& b : before) total += b.bytes;
  // A budget that deleting that power block alone meets.
  o.retention_bytes = total - before[0].bytes + wal_bytes(dir.path());
  o.retention_check_interval = std::chrono::milliseconds(0);
  {
    auto store = Store::open(o);
    store->maintain();
  }
  const auto after = blocks_on_disk(dir.path());
  const auto energy = blocks_of(after, kEnergy, 0);
  const auto power = blocks_of(after, kPower, 0);
  ASSERT_EQ(power.size(), 4u);
  ASSERT_EQ(energy.size(), 4u) << "the energy block coded against the deleted power block goes with it";
  EXPECT_EQ(energy.front().min_t, r.t[1000]);
  EXPECT_EQ(blocks_of(after, kTemperature, 0).size(), 5u) << "nothing else is deleted for it";
  expect_pair_intact(o, r, 1000, 5000);
}

TEST(StoreReference, RetentionByAgeKeepsEveryRemainingEnergyBlockReadable) {
  TempDir dir;
  const Readings r = gpu_readings(3000, 32);
  StoreOptions o = paired_options(dir.path());
  {
    auto store = Store::open(o);
    fill_gpu(*store, 0, r);
  }
  o.retention_ms = 1'700'000;  // blocks wholly older than newest - 1700 s: [0, 500), [500, 1000)
  o.retention_check_interval = std::chrono::milliseconds(0);
  {
    auto store = Store::open(o);
    store->maintain();
  }
  expect_pair_intact(o, r, 1000, 3000);
}

TEST(StoreReference, DownsamplingRollsUpAPowerBlockOnlyWithTheEnergyBlockCodedAgainstIt) {
  TempDir dir;
  StoreOptions o = paired_options(dir.path());
  o.block_max_samples = 100;
  o.downsample_after_ms = 1'000'000;
  o.retention_check_interval = std::chrono::milliseconds(0);
  const Readings r = gpu_readings(100, 41, 100'000);
  auto store = Store::open(o);
  // 511 blocks older than the pair fill a downsampling pass (512 blocks) but for one of the pair's two.
  const Labels filler = gpu_labels(kTemperature, 9);
  for (std::int64_t t = 0; t < 511 * 100; ++t)
    ASSERT_EQ(store->append(filler, t, static_cast<double>(t % 5)), "");
  store->seal_all();
  for (std::size_t i = 0; i < r.t.size(); ++i)
    ASSERT_EQ(store->append(gpu_labels(kPower, 0), r.t[i], r.power[i]), "");
  store->seal_all();  // power first: its row comes first among the blocks ending at the same time
  for (std::size_t i = 0; i < r.t.size(); ++i)
    ASSERT_EQ(store->append(gpu_labels(kEnergy, 0), r.t[i], r.energy[i]), "");
  store->seal_all();
  const auto raw = blocks_of(blocks_on_disk(dir.path()), kEnergy, 0);
  ASSERT_EQ(raw.size(), 1u);
  ASSERT_TRUE(raw[0].needs_reference);
  expect_exact(read_gpu_series(*store, kEnergy, 0), r, r.energy, 0, 100);  // now in the decoded-block cache

  ASSERT_EQ(store->append(filler, 10'000'000, 1), "");  // everything above is now old enough
  store->maintain();
  EXPECT_EQ(store->health().blocks_downsampled, 513u) << "the filler's 511, power's and energy's in one pass";
  // The last sample of each minute the pair spans: 100-119 s, 120-179 s, 180-199 s.
  const std::vector<std::size_t> last_of_minute{19, 79, 99};
  const auto energy = read_gpu_series(*store, kEnergy, 0);
  const auto power = read_gpu_series(*store, kPower, 0);
  const auto energy_max = read_gpu_series(*store, "gpu_energy_joules_total:1m_max", 0);
  ASSERT_EQ(energy.size(), 3u) << "read again after downsampling, not from the cache";
  ASSERT_EQ(power.size(), 3u);
  ASSERT_EQ(energy_max.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t i = last_of_minute[k];
    EXPECT_EQ(energy[k], (Point{r.t[i], r.energy[i]}));
    EXPECT_EQ(power[k], (Point{r.t[i], r.power[i]}));
    EXPECT_EQ(energy_max[k], (Point{r.t[i], r.energy[i]}));  // a counter's maximum is its last sample
  }
  for (const auto& b : blocks_on_disk(dir.path())) EXPECT_FALSE(b.needs_reference) << b.series;
  EXPECT_TRUE(check_store(dir.path()).clean()) << check_store(dir.path()).summary();
  EXPECT_EQ(store->health().corrupt_blocks, 0u);
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(StoreReference, ADamagedOrMissingPowerBlockIsReportedAndDegradesOnlyTheEnergyBlockOfItsRange) {
  TempDir dir;
  const Readings r = gpu_readings(1500, 51);
  {
    auto store = Store::open(paired_options(dir.path()));
    fill_gpu(*store, 0, r);
  }
  const auto on_disk = blocks_on_disk(dir.path());
  const auto power = blocks_of(on_disk, kPower, 0);
  const auto energy = blocks_of(on_disk, kEnergy, 0);
  ASSERT_EQ(power.size(), 3u);
  ASSERT_EQ(energy.size(), 3u);
  ASSERT_TRUE(energy[1].needs_reference);
  const std::string power_block = "block " + std::to_string(power[1].row);
  const std::string energy_block = "block " + std::to_string(energy[1].row);

  flip_stored_byte(dir.path(), "blocks", power[1].row);
  CheckReport check = check_store(dir.path());
  ASSERT_EQ(check.problems.size(), 2u) << check.summary();
  EXPECT_TRUE(mentions(check.problems[0] + check.problems[1], power_block + " (series")) << check.summary();
  const std::string& energy_problem =
      mentions(check.problems[0], energy_block + " ") ? check.problems[0] : check.problems[1];
  EXPECT_TRUE(mentions(energy_problem, energy_block + " ")) << check.summary();
  EXPECT_TRUE(mentions(energy_problem, "coded against gpu_power_watts{gpu=\"0\"}")) << energy_problem;
  EXPECT_TRUE(mentions(energy_problem, "whose " + power_block + " is damaged")) << energy_problem;
  {
    auto store = Store::open(paired_options(dir.path()));
    const auto got = read_gpu_series(*store, kEnergy, 0);
    ASSERT_EQ(got.size(), 1000u);
    expect_exact(std::vector<Point>(got.begin(), got.begin() + 500), r, r.energy, 0, 500);
    expect_exact(std::vector<Point>(got.begin() + 500, got.end()), r, r.energy, 1000, 1500);
    EXPECT_EQ(read_gpu_series(*store, kPower, 0).size(), 1000u);
    EXPECT_EQ(read_gpu_series(*store, kTemperature, 0).size(), 1500u);
    EXPECT_EQ(store->health().corrupt_blocks, 2u);
  }

  {
    SqliteDb db(dir.path() + "/store.db", false);
    db.prepare("DELETE FROM blocks WHERE id=?").bind(1, power[1].row).run();
  }
  check = check_store(dir.path());
  ASSERT_EQ(check.problems.size(), 1u) << check.summary();
  EXPECT_TRUE(mentions(check.problems[0], energy_block + " ")) << check.problems[0];
  EXPECT_TRUE(mentions(check.problems[0], "which has no block of 500 samples in [" +
                                              std::to_string(r.t[500]) + ", " + std::to_string(r.t[999]) +
                                              "]"))
      << check.problems[0];
  auto store = Store::open(paired_options(dir.path()));
  EXPECT_EQ(read_gpu_series(*store, kEnergy, 0).size(), 1000u);
  EXPECT_EQ(store->health().corrupt_blocks, 1u);
}

TEST(StoreReference, EnergyBlocksWhosePowerSeriesIsGoneAreReportedAndSkipped) {
  TempDir dir;
  const Readings r = gpu_readings(1500, 61);
  {
    auto store = Store::open(paired_options(dir.path()));
    fill_gpu(*store, 0, r);
    fill_gpu(*store, 1, gpu_readings(1500, 62));
  }
  const auto power = blocks_of(blocks_on_disk(dir.path()), kPower, 0);
  ASSERT_EQ(power.size(), 3u);
  {
    SqliteDb db(dir.path() + "/store.db", false);
    db.prepare("DELETE FROM blocks WHERE series_id=?").bind(1, power[0].series_id).run();
    db.prepare("DELETE FROM series WHERE id=?").bind(1, power[0].series_id).run();
  }
  const CheckReport check = check_store(dir.path());
  ASSERT_EQ(check.problems.size(), 3u) << check.summary();
  for (const auto& p : check.problems) EXPECT_TRUE(mentions(p, "which is not in the store")) << p;
  auto store = Store::open(paired_options(dir.path()));
  EXPECT_TRUE(read_gpu_series(*store, kEnergy, 0).empty());
  EXPECT_EQ(store->health().corrupt_blocks, 3u);
  EXPECT_EQ(read_gpu_series(*store, kEnergy, 1).size(), 1500u) << "the other GPU's energy is untouched";
  EXPECT_EQ(read_gpu_series(*store, kTemperature, 0).size(), 1500u);
}

}  // namespace reference_store_test
}  // namespace gpuwatch::store
