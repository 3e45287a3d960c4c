// The detectors' window: the points it gives back are those added within its span, times and values exact.
#include <gtest/gtest.h>

#include <vector>

#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

std::vector<Point> all(const ValueWindow& w) {
  std::vector<Point> out;
  w.for_each([&](const Point& p) { out.push_back(p); });
  return out;
}

TEST(ValueWindow, KeepsThePointsWithinItsSpanWithExactTimesAndValues) {
  ValueWindow w;
  const std::int64_t t0 = 1'796'000'000'000;  // a 2026 time in ms: more than 32 bits
  for (std::int64_t i = 0; i < 100; ++i) w.add(t0 + i * 1000 + i % 3, 1e10 + static_cast<double>(i), 30'000);
  w.add(t0 + 99 * 1000, 5, 30'000);  // not newer than the last: ignored
  const auto points = all(w);
  ASSERT_EQ(points.size(), 31u);
  for (std::size_t k = 0; k < points.size(); ++k) {
    const std::int64_t i = 69 + static_cast<std::int64_t>(k);
    EXPECT_EQ(points[k].t_ms, t0 + i * 1000 + i % 3);
    EXPECT_EQ(points[k].value, 1e10 + static_cast<double>(i));
  }
  EXPECT_EQ(w.front().t_ms, points.front().t_ms);
  EXPECT_EQ(w.back().value, 1e10 + 99);
  EXPECT_EQ(w.span_ms(), points.back().t_ms - points.front().t_ms);
  EXPECT_DOUBLE_EQ(w.mean(INT64_MIN).value, 1e10 + 84);
  EXPECT_NEAR(*w.slope_per_second(), 1.0, 1e-2);
}

TEST(ValueWindow, APointAfterAGapOfMoreThan32BitsOfMillisecondsStartsItAgain) {
  ValueWindow w;
  w.add(1000, 1, INT64_MAX / 2);
  w.add(2000, 2, INT64_MAX / 2);
  w.add(2000 + (std::int64_t{1} << 32), 3, INT64_MAX / 2);
  const auto points = all(w);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].t_ms, 2000 + (std::int64_t{1} << 32));
  w.add(points[0].t_ms + 5, 4, INT64_MAX / 2);
  EXPECT_EQ(w.span_ms(), 5);
}

}  // namespace
}  // namespace gpuwatch::detect
