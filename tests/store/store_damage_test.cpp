// Damage on disk: a flipped byte in a sealed block is detected by its checksum, skipped, counted and reported
// by the integrity check while the rest stays readable; a torn WAL tail is cut off; a damaged record in an
// older WAL segment is reported and the other segments still replay.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/store.h"
#include "store/store_check.h"
#include "stored_damage.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

StoreOptions small_blocks(const std::string& dir) {
  StoreOptions o;
  o.data_dir = dir;
  o.background_flusher = false;
  o.block_window_ms = 1'000'000;
  o.block_max_samples = 100;
  o.wal_segment_bytes = 1024;
  return o;
}

const std::vector<LabelMatcher> kAll{{"__name__", LabelMatcher::Op::kEqual, "m"}};

void fill(Store& store, int from, int to) {
  for (int i = from; i < to; ++i) {
    ASSERT_EQ(store.append({{"__name__", "m"}, {"gpu", "0"}}, i * 1000, i * 0.5 + (i % 13)), "");
    if (i % 50 == 0) store.maintain();
  }
}

void flip_byte(const std::string& path, std::int64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(offset);
  f.write(&c, 1);
}

TEST(StoreDamage, ACorruptBlockIsSkippedCountedAndReportedAndTheRestIsReadable) {
  test::TempDir dir;
  {
    auto store = Store::open(small_blocks(dir.path()));
    fill(*store, 0, 500);
    store->seal_all();
  }
  testing::flip_stored_byte(dir.path(), "blocks", 2);  // the second block
  const CheckReport check = check_store(dir.path());
  EXPECT_FALSE(check.clean());
  ASSERT_EQ(check.problems.size(), 1u) << check.summary();
  EXPECT_NE(check.problems[0].find("block 2"), std::string::npos) << check.problems[0];
  EXPECT_NE(check.problems[0].find("checksum"), std::string::npos) << check.problems[0];

  auto store = Store::open(small_blocks(dir.path()));
  const auto got = store->select(kAll, 0, INT64_MAX);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].points.size(), 400u);  // 500 minus the 100 of the damaged block
  for (const auto& p : got[0].points) {
    EXPECT_TRUE(p.t_ms < 100'000 || p.t_ms >= 200'000) << p.t_ms;
    EXPECT_EQ(p.value, (p.t_ms / 1000) * 0.5 + ((p.t_ms / 1000) % 13));
  }
  EXPECT_EQ(store->health().corrupt_blocks, 1u);
  store->select(kAll, 0, INT64_MAX);
  EXPECT_EQ(store->health().corrupt_blocks, 1u) << "the same block is counted once";
}

TEST(StoreDamage, ATornWalTailIsCutOffAndEverythingBeforeItReplays) {
  test::TempDir dir;
  {
    auto store = Store::open(small_blocks(dir.path()));
    fill(*store, 1, 60);  // maintains at 50: samples 1..49 reach the WAL... the rest by commit below
    store->commit();
  }
  const auto segments = list_segments(wal_dir(dir.path()));
  ASSERT_FALSE(segments.empty());
  const std::string last = segment_path(wal_dir(dir.path()), segments.back());
  const auto size = std::filesystem::file_size(last);
  std::filesystem::resize_file(last, size - 3);  // a crash in the middle of the last record
  CheckReport check = check_store(dir.path());
  EXPECT_TRUE(check.clean()) << check.summary();  // a torn tail is what a crash leaves, not damage
  EXPECT_GT(check.wal_torn_tail_bytes, 0u);
  auto store = Store::open(small_blocks(dir.path()));
  const auto got = store->select(kAll, 0, INT64_MAX);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_GE(got[0].points.size(), 40u);
  EXPECT_LT(got[0].points.size(), 59u);
  for (std::size_t k = 0; k < got[0].points.size(); ++k) EXPECT_EQ(got[0].points[k].t_ms, (k + 1) * 1000);
  EXPECT_EQ(check_store(dir.path()).wal_torn_tail_bytes, 0u);  // cut at open
}

TEST(StoreDamage, ADamagedRecordInAnOlderWalSegmentIsReportedAndTheOthersReplay) {
  test::TempDir dir;
  {
    StoreOptions o = small_blocks(dir.path());
    o.block_max_samples = 100'000;  // nothing sealed: everything stays in the WAL
    auto store = Store::open(o);
    for (int i = 1; i < 400; ++i) {
      store->append({{"__name__", "m"}, {"gpu", "0"}}, i * 1000, i);
      if (i % 20 == 0) store->commit();
    }
    store->commit();
  }
  const auto segments = list_segments(wal_dir(dir.path()));
  ASSERT_GE(segments.size(), 3u);
  flip_byte(segment_path(wal_dir(dir.path()), segments[0]), 40);
  const CheckReport check = check_store(dir.path());
  ASSERT_EQ(check.problems.size(), 1u) << check.summary();
  EXPECT_NE(check.problems[0].find("checksum"), std::string::npos) << check.problems[0];
  StoreOptions o = small_blocks(dir.path());
  o.block_max_samples = 100'000;
  auto store = Store::open(o);
  EXPECT_EQ(store->health().corrupt_wal_records, 1u);
  const auto got = store->select(kAll, 0, INT64_MAX);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_GT(got[0].points.size(), 300u);
  EXPECT_EQ(got[0].points.back().t_ms, 399'000);
}

// A live store's newest series have no sealed block yet: the check counts them from the write-ahead log.
TEST(StoreCheck, CountsTheSeriesThatAreOnlyInTheWriteAheadLogSoFar) {
  test::TempDir dir;
  auto store = Store::open(small_blocks(dir.path()));
  fill(*store, 1, 40);  // fewer than a block's worth: nothing sealed
  ASSERT_EQ(store->append({{"__name__", "m"}, {"gpu", "1"}}, 1000, 1), "");
  store->commit();
  const CheckReport check = check_store(dir.path());  // beside the open store, as beside a running agent
  EXPECT_TRUE(check.clean()) << check.summary();
  EXPECT_EQ(check.series, 2u) << check.summary();
  EXPECT_EQ(check.series_only_in_wal, 2u);
  EXPECT_NE(check.summary().find("series: 2 (2 only in the write-ahead log so far)"), std::string::npos)
      << check.summary();
}

}  // namespace
}  // namespace gpuwatch::store
