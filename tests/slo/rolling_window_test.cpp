#include <gtest/gtest.h>

#include "slo/rolling_window.h"

namespace gpuwatch::slo {
namespace {

TEST(RollingWindow, EventsLeaveAfterTheWindow) {
  RollingWindow w(std::chrono::minutes(5));  // 5 s buckets
  for (int s = 0; s < 600; ++s) w.add(s * 1000LL, {s >= 300 ? 1.0 : 0.0, 1});
  const EventCounts c = w.sum(599'999);
  // The last 5 minutes, within one bucket: every event bad.
  EXPECT_NEAR(c.total, 300, 5);
  EXPECT_NEAR(c.bad, c.total, 1e-9);
  EXPECT_DOUBLE_EQ(w.sum(599'999 + 10 * 60'000).total, 0);
}

TEST(RollingWindow, AGapLongerThanTheWindowEmptiesIt) {
  RollingWindow w(std::chrono::hours(1));
  w.add(0, {1, 10});
  EXPECT_DOUBLE_EQ(w.sum(30 * 60'000).total, 10);
  w.add(5 * 3'600'000LL, {0, 4});
  EXPECT_DOUBLE_EQ(w.sum(5 * 3'600'000LL).total, 4);
  EXPECT_DOUBLE_EQ(w.sum(5 * 3'600'000LL).bad, 0);
}

}  // namespace
}  // namespace gpuwatch::slo
