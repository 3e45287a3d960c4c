// The history's memory over a long run with process churn: 30 days of snapshot time, in lockstep (no wall
// clock), on a node with 2,000 process series (1,000 processes on 8 GPUs, memory and SM utilisation each) and
// 10,000 processes started a day. Snapshots go through the real SnapshotHistory (its series cache and the
// per-process cap) into a real Store (head, label index, WAL, SQLite, downsampling, retention), driven the
// way the agent's flusher drives it. Memory is the heap in use (mallinfo2) around the two structures, so
// whatever they keep per series or per process is counted, whoever allocates it.
//
// Retention is 3 days here (the agent's default is 30) so that the run reaches the steady state in which a
// series leaves as fast as one arrives; what the store keeps scales with the series within retention, and
// docs/benchmarks.md ("Footprint") gives the figure per series and per process for any retention.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "store/snapshot_history.h"
#include "store/store.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kDayMs = 24 * 60 * kMinuteMs;
constexpr int kDays = 30;
constexpr int kRetentionDays = 3;
constexpr int kGpus = 8;
constexpr std::int64_t kLiveProcesses = 1000;  // two series each: 2,000 process series
constexpr std::int64_t kStartsPerDay = 10'000;
// A process starts every 8.64 s and runs 2.4 h, so 1,000 run at any time.
constexpr std::int64_t kStartEveryMs = kDayMs / kStartsPerDay;
// Snapshots every hour: the structures grow with series, not samples (the head's samples are bounded by its
// one-hour window, counted in samples_in_memory), every process (2.4 h) is still seen at least twice, and
// shorter ticks only make the test dearer (1 s ticks would take hours here).
constexpr std::int64_t kTickMs = 60 * kMinuteMs;
constexpr std::int64_t kT0 = 1'790'000'000'000;  // a fixed epoch: deterministic, and in the past

// The documented bound (docs/benchmarks.md, "Footprint"): heap bytes per series the store holds (a raw
// series or one of its downsampled :1m_* rollups) with everything else it keeps in memory for them:
// measured 1,243 to 1,419 on 2026-12-02 (1,757 before the head's raw tail shrank to 16 samples).
constexpr double kBytesPerSeries = 1536;

std::size_t heap_in_use() {
  const struct mallinfo2 m = ::mallinfo2();
  return m.uordblks + m.hblkhd;
}

// The node at time t: the processes started in (t - lifetime, t], each on the GPU its number picks.
Snapshot node_at(std::int64_t t) {
  Snapshot s;
  s.timestamp_ms = t;
  s.devices.resize(kGpus);
  for (int g = 0; g < kGpus; ++g) {
    auto& d = s.devices[static_cast<std::size_t>(g)];
    d.identity.index = static_cast<unsigned>(g);
    d.identity.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(g);
    d.last_read_ms = t;
  }
  const std::int64_t newest = (t - kT0) / kStartEveryMs;
  for (std::int64_t n = std::max<std::int64_t>(0, newest - kLiveProcesses + 1); n <= newest; ++n) {
    ProcessSample p;
    p.pid = static_cast<unsigned>(1000 + n % 4'000'000);
    p.name = "python3";
    p.type = "compute";
    p.user = "user" + std::to_string(n % 40);
    p.used_memory_bytes = static_cast<double>((n % 64 + 1) << 28);
    p.sm_utilization = static_cast<double>((t / kTickMs + n) % 100) / 100;
    s.devices[static_cast<std::size_t>(n % kGpus)].processes.push_back(std::move(p));
  }
  return s;
}

struct DayFigures {
  std::uint64_t series = 0;
  std::size_t heap_bytes = 0;
};

TEST(StoreFootprint, ThirtyDaysOfProcessChurnStayWithinTheBoundPerSeries) {
  // In memory (tmpfs) where there is one: the syncs of a disk shared with other builds would set the pace.
  test::TempDir dir(std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp");
  const std::size_t before = heap_in_use();
  std::vector<DayFigures> days;
  {
    StoreOptions o;
    o.data_dir = dir.path();
    o.clock_domain = "sim:footprint";
    o.background_flusher = false;  // the test drives maintain(), as the flusher would, in snapshot time
    o.retention_ms = kRetentionDays * kDayMs;
    o.retention_bytes = std::uint64_t{1} << 40;  // by time only: the figure is per series within retention
    o.retention_check_interval = std::chrono::milliseconds(0);
    // Blocks of 6 h, so that a process's series is mostly one block (sealing 300,000 processes' hourly blocks
    // would take minutes here); what the store keeps per series does not depend on it.
    o.block_window_ms = 6 * 60 * kMinuteMs;
    auto store = Store::open(o);
    SnapshotHistory history(store, 2000);
    std::int64_t t = kT0;
    for (int day = 0; day < kDays; ++day) {
      for (std::int64_t tick = 0; tick < kDayMs / kTickMs; ++tick, t += kTickMs) {
        history.append(node_at(t));
        ASSERT_TRUE(store->maintain());  // hourly, as the flusher: seal, downsample, retention
      }
      const std::size_t now = heap_in_use();
      days.push_back({store->health().series, now > before ? now - before : 0});
    }
    const auto h = store->health();
    EXPECT_EQ(h.write_errors.size(), 0u);
    EXPECT_GT(h.samples_appended, 0u);
  }

  for (std::size_t d = 0; d < days.size(); ++d) {
    std::printf("day %2zu: %7llu series, %6.2f MiB heap, %5.0f bytes/series\n", d + 1,
                static_cast<unsigned long long>(days[d].series),
                static_cast<double>(days[d].heap_bytes) / (1 << 20),
                static_cast<double>(days[d].heap_bytes) / static_cast<double>(days[d].series));
  }
  // Steady state from when the first processes left retention (and their rollups with them): what the store
  // holds on the last day is what it held a week into the run. A store that kept the series of processes
  // gone beyond retention would hold several times as many by day 30.
  const DayFigures& settled = days[kRetentionDays + 4];
  const DayFigures& last = days.back();
  EXPECT_LE(static_cast<double>(last.series), 1.05 * static_cast<double>(settled.series))
      << "series kept past retention: " << settled.series << " on day " << kRetentionDays + 5 << ", "
      << last.series << " on day " << kDays;
  EXPECT_LE(static_cast<double>(last.heap_bytes), 1.10 * static_cast<double>(settled.heap_bytes))
      << "heap grew from " << settled.heap_bytes << " to " << last.heap_bytes << " bytes";
  // The series retention keeps: processes started within it (and those running), two series each, with the
  // four rollups of each raw series once its blocks are older than the downsampling age.
  const double processes_kept =
      static_cast<double>(kStartsPerDay) * (kRetentionDays + 1.0 / 24) + static_cast<double>(kLiveProcesses);
  EXPECT_LE(static_cast<double>(last.series), processes_kept * 2 * 5 + 1000);
  for (std::size_t d = kRetentionDays; d < days.size(); ++d) {
    EXPECT_LE(static_cast<double>(days[d].heap_bytes), kBytesPerSeries * static_cast<double>(days[d].series))
        << "day " << d + 1 << ": " << days[d].heap_bytes << " bytes for " << days[d].series << " series";
  }
  // Closing the store gives it all back.
  const std::size_t after = heap_in_use();
  EXPECT_LT(after > before ? after - before : 0, std::size_t{4} << 20);
}

}  // namespace
}  // namespace gpuwatch::store
