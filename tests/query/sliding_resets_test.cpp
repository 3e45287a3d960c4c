// The sliding reset count (used by rate and increase over range queries) must say what a walk over each
// window says, and rate/increase of a window it clears must be bit-for-bit the full functions' answer.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "query/sliding_resets.h"
#include "query/window_functions.h"

namespace gpuwatch::query {
namespace {

// A counter that climbs with noise, resets now and then (sometimes twice close together), holds NaN at
// places, and starts below zero in one variant.
std::vector<store::Point> counter_with_resets(unsigned seed, bool negative_start) {
  std::vector<store::Point> p;
  unsigned x = seed;
  double v = negative_start ? -5 : 0;
  for (int i = 0; i < 3000; ++i) {
    x = x * 1103515245 + 12345;
    v += static_cast<double>((x >> 8) % 1000) / 7;
    if ((x >> 4) % 211 == 3) v = static_cast<double>((x >> 10) % 50);
    const double stored = (x >> 4) % 101 == 5 ? std::numeric_limits<double>::quiet_NaN() : v;
    p.push_back({i * 1000LL, stored});
  }
  return p;
}

bool walked_reset(std::span<const store::Point> w) {
  bool any = w.front().value < 0;
  for (std::size_t i = 1; i < w.size(); ++i) any = any || w[i].value < w[i - 1].value;
  return any;
}

TEST(SlidingResetsTest, AgreesWithAWalkOverEveryWindow) {
  std::size_t with = 0;
  std::size_t without = 0;
  for (const bool negative : {false, true}) {
    for (const auto& [range, step] : {std::pair{300, 60}, {30, 1}, {30, 7}, {5, 20}, {1, 1}, {600, 600}}) {
      SCOPED_TRACE(std::to_string(range) + "/" + std::to_string(step) + (negative ? " negative" : ""));
      const auto pts = counter_with_resets(static_cast<unsigned>(range * 31 + step), negative);
      SlidingResets resets;
      resets.reset();
      std::size_t lo = 0, hi = 0;
      for (std::int64_t t = 0; t < 3100 * 1000; t += step * 1000) {
        while (hi < pts.size() && pts[hi].t_ms <= t) ++hi;
        while (lo < hi && pts[lo].t_ms < t - range * 1000) ++lo;
        if (hi == lo) continue;
        const std::span<const store::Point> window(pts.data() + lo, hi - lo);
        const bool any = resets.any(window);
        ASSERT_EQ(any, walked_reset(window)) << "window " << lo << ".." << hi;
        ++(any ? with : without);
        if (any) continue;
        const Window w{t - range * 1000, t, t, static_cast<double>(range), 0, 0};
        const auto full = window::rate(window, w);
        const auto cleared = window::rate_without_resets(window, w);
        ASSERT_EQ(full.has_value(), cleared.has_value());
        if (full && !std::isnan(*full)) {
          EXPECT_EQ(*cleared, *full);
        }
        const auto inc = window::increase(window, w);
        const auto inc_cleared = window::increase_without_resets(window, w);
        ASSERT_EQ(inc.has_value(), inc_cleared.has_value());
        if (inc && !std::isnan(*inc)) {
          EXPECT_EQ(*inc_cleared, *inc);
        }
      }
    }
  }
  // Both kinds of window occur, so both paths were compared.
  EXPECT_GT(with, 100u);
  EXPECT_GT(without, 100u);
}

}  // namespace
}  // namespace gpuwatch::query
