#include "core/duration.h"
#include "core/spelling.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;

TEST(Duration, ParsesPrometheusStyle) {
  EXPECT_EQ(parse_duration("100ms"), milliseconds(100));
  EXPECT_EQ(parse_duration("1s"), milliseconds(1000));
  EXPECT_EQ(parse_duration("1h30m"), milliseconds(5'400'000));
  EXPECT_EQ(parse_duration("2d"), milliseconds(172'800'000));
  EXPECT_EQ(parse_duration("1w"), milliseconds(604'800'000));
}

TEST(Duration, RejectsMalformed) {
  for (const char* bad : {"", "s", "10", "10x", "1.5s", "-1s", "1s ", "ms"}) {
    EXPECT_EQ(parse_duration(bad), std::nullopt) << bad;
  }
}

// Milliseconds past the range of int64 are refused, not wrapped (a fuzzed config found the overflow).
TEST(Duration, RejectsWhatOverflows) {
  for (const char* huge : {"199999999999999999w", "9223372036854775807s", "9223372036854775807ms1ms",
                           "15250284452w15250284452w"}) {
    EXPECT_EQ(parse_duration(huge), std::nullopt) << huge;
  }
  EXPECT_EQ(parse_duration("9223372036854775807ms"), std::chrono::milliseconds(INT64_MAX));
}

TEST(Duration, FormatsShortestAndRoundTrips) {
  EXPECT_EQ(format_duration(milliseconds(90'000)), "1m30s");
  EXPECT_EQ(format_duration(milliseconds(250)), "250ms");
  EXPECT_EQ(format_duration(milliseconds(0)), "0s");
  for (long ms : {1L, 999L, 1000L, 61'001L, 3'600'000L, 90'061'001L}) {
    EXPECT_EQ(parse_duration(format_duration(milliseconds(ms))), milliseconds(ms));
  }
}

TEST(Spelling, SuggestsPlausibleTyposOnly) {
  const std::string_view keys[] = {"interval", "listen", "naming", "deadline"};
  EXPECT_EQ(closest_match("intervall", keys), "interval");
  EXPECT_EQ(closest_match("lsiten", keys), "listen");
  EXPECT_EQ(closest_match("completely_unrelated", keys), "");
  EXPECT_EQ(edit_distance("abc", "acb"), 1U);
}

}  // namespace
}  // namespace gpuwatch
