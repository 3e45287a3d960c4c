// Staleness through history: the store keeps the marker's exact bits (in its head, and sealed into a block
// and read back after reopening), and the query engine treats a series as gone from its marker on, while a
// plain NaN stays a value.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>

#include "core/stale_marker.h"
#include "query/engine.h"
#include "sim_support.h"
#include "store/store.h"

namespace gpuwatch {
namespace {

std::vector<Point> points_of(const store::Store& s, const std::string& name) {
  const LabelMatcher m{"__name__", LabelMatcher::Op::kEqual, name};
  const auto found = s.select(std::span(&m, 1), 0, 1'000'000);
  return found.empty() ? std::vector<Point>{} : found[0].points;
}

TEST(StaleMarkerInHistory, TheStoreKeepsItsBitsAndQueriesTreatTheSeriesAsGone) {
  test::TempDir dir;
  store::StoreOptions o;
  o.data_dir = dir.path();
  o.background_flusher = false;
  {
    auto s = store::Store::open(o);
    const Labels gone{{"__name__", "b"}, {"job", "x"}};
    const Labels nan{{"__name__", "c"}, {"job", "x"}};
    for (std::int64_t t = 1000; t <= 10'000; t += 1000) {
      ASSERT_EQ(s->append(gone, t, t < 6000 ? 1.0 : stale_marker()), "");
      ASSERT_EQ(s->append(nan, t, std::nan("")), "");
      if (t == 6000) break;
    }
    const auto head = points_of(*s, "b");
    ASSERT_EQ(head.size(), 6u);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(head.back().value), kStaleNaNBits);

    // One second after the marker the series is gone; one second before, it was there.
    EXPECT_EQ(query::instant_query(*s, "b", 5500).value.vector.size(), 1u);
    EXPECT_TRUE(query::instant_query(*s, "b", 7000).value.vector.empty());
    // A plain NaN is a value: still there (Prometheus's five-minute lookback).
    EXPECT_EQ(query::instant_query(*s, "c", 7000).value.vector.size(), 1u);
    s->commit();
    s->seal_all();
    s->maintain();
  }
  auto reopened = store::Store::open(o);
  const auto sealed = points_of(*reopened, "b");
  ASSERT_EQ(sealed.size(), 6u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(sealed.back().value), kStaleNaNBits);
  EXPECT_TRUE(is_stale_marker(sealed.back().value));
  EXPECT_FALSE(is_stale_marker(points_of(*reopened, "c").back().value));
}

}  // namespace
}  // namespace gpuwatch
