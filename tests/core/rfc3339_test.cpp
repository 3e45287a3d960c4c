#include "core/rfc3339.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(Rfc3339, ParsesUtcOffsetsAndFractions) {
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339_ms("2026-12-01T02:00:00Z"), 1'796'090'400'000);
  EXPECT_EQ(parse_rfc3339_ms("2026-12-01T03:00:00+01:00"), 1'796'090'400'000);
  EXPECT_EQ(parse_rfc3339_ms("2026-11-30T21:30:00-04:30"), 1'796'090'400'000);
  EXPECT_EQ(parse_rfc3339_ms("2026-12-01t02:00:00.5z"), 1'796'090'400'500);
  EXPECT_EQ(parse_rfc3339_ms("2026-12-01T02:00:00.123456789Z"), 1'796'090'400'123);
  EXPECT_EQ(parse_rfc3339_ms("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(parse_rfc3339_ms("2024-02-29T00:00:00Z"), 1'709'164'800'000);  // a leap day
}

TEST(Rfc3339, RefusesWhatIsNotATime) {
  for (const char* bad :
       {"", "2026-12-01", "2026-12-01T02:00:00", "2026-12-01 02:00:00Z", "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T23:60:00Z", "2026-12-01T23:59:60Z",
        "2026-12-01T02:00:00.Z", "2026-12-01T02:00:00+0100", "2026-12-01T02:00:00+01:00x",
        "2026-12-01T02:00:00Zjunk", "+2026-12-01T02:00:00Z", "2026-12-01T02:00:00+99:00",
        "99999-12-01T02:00:00Z", "2026-1-01T02:00:00Z"}) {
    EXPECT_EQ(parse_rfc3339_ms(bad), std::nullopt) << bad;
  }
}

TEST(Rfc3339, FormatsInUtcWithMilliseconds) {
  EXPECT_EQ(format_rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339_ms(1'796'090'400'123), "2026-12-01T02:00:00.123Z");
  EXPECT_EQ(format_rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_rfc3339_ms(INT64_MAX), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(format_rfc3339_ms(INT64_MIN), "0000-01-01T00:00:00.000Z");
  for (std::int64_t ms : {0LL, 1'796'090'400'123LL, -86'400'001LL, 253'402'300'799'999LL}) {
    EXPECT_EQ(parse_rfc3339_ms(format_rfc3339_ms(ms)), ms);
  }
}

}  // namespace
}  // namespace gpuwatch
