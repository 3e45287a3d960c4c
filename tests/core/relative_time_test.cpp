#include "core/relative_time.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;

TEST(RelativeTime, NowAndAnOffsetEitherWay) {
  EXPECT_EQ(parse_relative_time("now", kNow), kNow);
  EXPECT_EQ(parse_relative_time("now-1h", kNow), kNow - 3'600'000);
  EXPECT_EQ(parse_relative_time("now+90s", kNow), kNow + 90'000);
  EXPECT_EQ(parse_relative_time("now-1h30m", kNow), kNow - 5'400'000);
}

TEST(RelativeTime, AnythingElseIsNotARelativeTime) {
  for (const char* text : {"", "1700000000", "2026-12-01T02:00:00Z", "now-", "now-1", "now 1h", "nowhere",
                           "now-1h ", "-1h", "Now"})
    EXPECT_FALSE(parse_relative_time(text, kNow)) << text;
}

}  // namespace
}  // namespace gpuwatch
