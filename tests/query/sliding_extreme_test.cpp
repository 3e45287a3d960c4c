// The sliding min/max (used by range queries) must give what the per-window functions give (used as the
// definition: Prometheus's loop) for every window, NaN and infinities included, whatever the step/range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "query/sliding_extreme.h"
#include "query/window_functions.h"

namespace gpuwatch::query {
namespace {

std::vector<store::Point> points_with_nans(unsigned seed) {
  std::vector<store::Point> p;
  unsigned x = seed;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1103515245 + 12345;
    double v = static_cast<double>((x >> 8) % 1000) / 7;
    if ((x >> 4) % 17 == 0) v = std::numeric_limits<double>::quiet_NaN();
    if ((x >> 4) % 97 == 1) v = ((x >> 12) % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    // A run of NaN only, so some windows hold nothing else.
    if (i >= 500 && i < 540) v = std::numeric_limits<double>::quiet_NaN();
    p.push_back({i * 1000LL, v});
  }
  return p;
}

void same(std::optional<double> a, std::optional<double> b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  if (std::isnan(*b)) {
    EXPECT_TRUE(std::isnan(*a));
  } else {
    EXPECT_EQ(*a, *b);
  }
}

TEST(SlidingExtremeTest, AgreesWithThePerWindowDefinition) {
  for (const bool max : {true, false}) {
    for (const auto& [range, step] : {std::pair{30, 1}, {30, 7}, {5, 20}, {300, 60}, {1, 1}}) {
      SCOPED_TRACE(std::to_string(range) + "/" + std::to_string(step) + (max ? " max" : " min"));
      const auto pts = points_with_nans(static_cast<unsigned>(range * 31 + step));
      SlidingExtreme sliding(max);
      sliding.reset();
      std::size_t lo = 0, hi = 0;
      for (std::int64_t t = 0; t < 2100 * 1000; t += step * 1000) {
        while (hi < pts.size() && pts[hi].t_ms <= t) ++hi;
        while (lo < hi && pts[lo].t_ms < t - range * 1000) ++lo;
        const std::span<const store::Point> window(pts.data() + lo, hi - lo);
        const Window w{};
        same(sliding.next(window), max ? window::max_over_time(window, w) : window::min_over_time(window, w));
      }
    }
  }
}

}  // namespace
}  // namespace gpuwatch::query
