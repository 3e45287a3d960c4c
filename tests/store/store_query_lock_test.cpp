// Queries never hold the lock appends take while they match or decode: a slow selector over many series
// runs in one thread while another keeps appending at its pace. (std::regex ran under that lock: one
// query with (.*){6}Z stopped ticks and scrapes for about 100 s.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "store/store.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Values of a and b that a regex must read to the end, where RE2 leaves its DFA for the (slower, still
// linear) NFA: a query that takes long on purpose.
std::shared_ptr<Store> store_with_long_values(const std::string& dir, int series) {
  StoreOptions o;
  o.data_dir = dir;
  o.background_flusher = false;
  auto store = Store::open(o);
  std::uint32_t seed = 1;
  for (int s = 0; s < series; ++s) {
    std::string value(2048, 'a');
    for (auto& c : value) {
      seed = seed * 1103515245 + 12345;
      c = (seed >> 16) & 1 ? 'a' : 'b';
    }
    EXPECT_EQ(
        store->append({{"__name__", "proc_info"}, {"cmdline", value}, {"n", std::to_string(s)}}, 1000, 1),
        "");
  }
  return store;
}

const std::vector<LabelMatcher> kSlow{{"cmdline", LabelMatcher::Op::kRegexMatch, ".*a.{40}c.*"}};

TEST(StoreLocking, AppendsKeepTheirPaceWhileASlowQueryMatches) {
  test::TempDir dir;
  auto store = store_with_long_values(dir.path(), 500);
  const auto& slow = kSlow;

  auto t = Clock::now();
  EXPECT_TRUE(store->select(slow, 0, 10'000).empty());
  const double query_s = seconds_since(t);

  std::atomic<bool> querying{true};
  std::thread query([&] {
    const auto start = Clock::now();
    while (seconds_since(start) < std::max(1.0, query_s * 2)) store->select(slow, 0, 10'000);
    querying = false;
  });
  double worst_s = 0;
  std::int64_t t_ms = 2000;
  int appends = 0;
  while (querying) {
    t = Clock::now();
    EXPECT_EQ(store->append({{"__name__", "gpu_power_watts"}, {"gpu", "0"}}, t_ms += 1000, 100), "");
    worst_s = std::max(worst_s, seconds_since(t));
    ++appends;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  query.join();
  std::printf("one query over 500 series: %.3f s; %d appends meanwhile, the slowest %.4f s\n", query_s,
              appends, worst_s);
  // Generous: scheduling on a busy machine may delay one append, never by a whole query.
  EXPECT_LT(worst_s, std::max(0.25, query_s / 2));
  EXPECT_GT(appends, 10);
}

struct Stop {};

// The query engine passes its deadline as a checkpoint: the store calls it while it matches, so a timeout
// stops a slow selection in the middle instead of after it.
TEST(StoreLocking, ACheckpointStopsASlowSelectionInTheMiddle) {
  test::TempDir dir;
  auto store = store_with_long_values(dir.path(), 500);
  auto t = Clock::now();
  EXPECT_TRUE(store->select(kSlow, 0, 10'000).empty());
  const double whole_s = seconds_since(t);
  t = Clock::now();
  int checks = 0;
  EXPECT_THROW(store->for_each_series_checked(
                   kSlow, 0, 10'000, [](const Labels&, std::span<const Point>) {},
                   [&] {
                     if (++checks == 2) throw Stop{};
                   }),
               Stop);
  const double stopped_s = seconds_since(t);
  std::printf("selection over 500 series: %.3f s whole, stopped at the second checkpoint after %.3f s\n",
              whole_s, stopped_s);
  EXPECT_LT(stopped_s, whole_s / 2);
  // The store reads normally afterwards.
  ASSERT_EQ(store->append({{"__name__", "gpu_power_watts"}, {"gpu", "0"}}, 2000, 100), "");
  const std::vector<LabelMatcher> power{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"}};
  EXPECT_EQ(store->select(power, 0, 10'000).size(), 1u);
}

}  // namespace
}  // namespace gpuwatch::store
