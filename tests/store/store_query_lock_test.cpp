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

TEST(StoreLocking, AppendsKeepTheirPaceWhileASlowQueryMatches) {
  test::TempDir dir;
  StoreOptions o;
  o.data_dir = dir.path();
  o.background_flusher = false;
  auto store = Store::open(o);
  // Values of a and b that a regex must read to the end, where RE2 leaves its DFA for the (slower, still
  // linear) NFA: a query that takes long on purpose.
  std::uint32_t seed = 1;
  for (int s = 0; s < 500; ++s) {
    std::string value(2048, 'a');
    for (auto& c : value) {
      seed = seed * 1103515245 + 12345;
      c = (seed >> 16) & 1 ? 'a' : 'b';
    }
    ASSERT_EQ(
        store->append({{"__name__", "proc_info"}, {"cmdline", value}, {"n", std::to_string(s)}}, 1000, 1),
        "");
  }
  const std::vector<LabelMatcher> slow{{"cmdline", LabelMatcher::Op::kRegexMatch, ".*a.{40}c.*"}};

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
    ASSERT_EQ(store->append({{"__name__", "gpu_power_watts"}, {"gpu", "0"}}, t_ms += 1000, 100), "");
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

}  // namespace
}  // namespace gpuwatch::store
