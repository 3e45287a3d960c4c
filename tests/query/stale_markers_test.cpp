// Stale markers (Prometheus's special NaN that ends a series): windows leave them out, and an instant
// selector whose newest sample is one has no value there instead of falling back to older samples.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "query/engine.h"
#include "query/memory_series_source.h"

namespace gpuwatch::query {
namespace {

const double kStale = std::bit_cast<double>(0x7ff0000000000002ULL);

// One series every 10 s for 10 minutes; `with_marker` puts a stale marker at 300 s (in place of a sample).
MemorySeriesSource source(bool with_marker) {
  MemorySeriesSource s;
  for (int i = 0; i < 60; ++i) {
    const bool marker = i == 30;
    if (marker && !with_marker) continue;
    s.add({{"__name__", "x"}}, i * 10'000, marker ? kStale : i);
  }
  return s;
}

std::vector<std::pair<std::size_t, double>> points(const QueryResult& r) {
  std::vector<std::pair<std::size_t, double>> out;
  for (const auto& s : r.value.vector) {
    for (std::size_t k = 0; k < s.present.size(); ++k) {
      if (s.present[k]) out.emplace_back(k, s.values[k]);
    }
  }
  return out;
}

TEST(StaleMarkersTest, WindowsLeaveThemOut) {
  const Steps steps{0, 600'000, 5'000};
  for (const char* q : {"count_over_time(x[1m])", "max_over_time(x[1m])", "rate(x[2m])", "changes(x[1m])"}) {
    SCOPED_TRACE(q);
    EXPECT_EQ(points(range_query(source(true), q, steps)), points(range_query(source(false), q, steps)));
  }
}

TEST(StaleMarkersTest, AnInstantSelectorEndsAtTheMarker) {
  const MemorySeriesSource with = source(true);
  EXPECT_TRUE(instant_query(with, "x", 300'000).value.vector.empty());  // the marker is the newest sample
  EXPECT_TRUE(instant_query(with, "x", 305'000).value.vector.empty());
  ASSERT_EQ(instant_query(with, "x", 310'000).value.vector.size(), 1u);  // a new sample brings it back
  EXPECT_EQ(instant_query(with, "x", 310'000).value.vector[0].values[0], 31);
  // Without the marker the lookback finds the sample before the gap.
  EXPECT_EQ(instant_query(source(false), "x", 305'000).value.vector[0].values[0], 29);
}

}  // namespace
}  // namespace gpuwatch::query
