#include "query/date_functions.h"

#include <cstdint>

namespace gpuwatch::query::date {
namespace {

constexpr std::uint64_t kSecondsPerMinute = 60;
constexpr std::uint64_t kSecondsPerHour = 60 * kSecondsPerMinute;
constexpr std::uint64_t kSecondsPerDay = 24 * kSecondsPerHour;
constexpr std::uint64_t kSecondsPerWeek = 7 * kSecondsPerDay;
constexpr std::uint64_t kDaysPer400Years = 365 * 400 + 97;
constexpr std::uint64_t kDaysPer100Years = 365 * 100 + 24;
constexpr std::uint64_t kDaysPer4Years = 365 * 4 + 1;
// Go counts seconds from an "absolute" zero year far in the past (-292277022399, 1 mod 400) so that dates
// are unsigned arithmetic; Unix time 0 is this many seconds after it.
constexpr std::int64_t kAbsoluteZeroYear = -292277022399;
constexpr std::uint64_t kUnixToAbsolute = 9223372028715321600ULL;
// Days before each month of a common year (index 12: the whole year).
constexpr int kDaysBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};

// Go's int64(v) on amd64: truncation toward zero; NaN and values outside int64 give its smallest value.
std::int64_t whole_seconds(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<std::int64_t>(v);
}

// Seconds since the absolute zero, wrapping as Go's uint64(sec + offset) does.
std::uint64_t absolute(double seconds) {
  return static_cast<std::uint64_t>(whole_seconds(seconds)) + kUnixToAbsolute;
}

bool is_leap(std::int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

struct Civil {
  std::int64_t year;
  int month;     // 1..12
  int day;       // 1..31
  int year_day;  // 0..365
};

Civil civil(std::uint64_t abs) {
  std::uint64_t d = abs / kSecondsPerDay;
  // 400-year cycles, then 100-year ones (the last has an extra leap day, so 4 is cut back to 3), 4-year
  // ones, and years within those (the same correction for the leap year at their end).
  std::uint64_t n = d / kDaysPer400Years;
  std::uint64_t y = 400 * n;
  d -= kDaysPer400Years * n;
  n = d / kDaysPer100Years;
  n -= n >> 2;
  y += 100 * n;
  d -= kDaysPer100Years * n;
  n = d / kDaysPer4Years;
  y += 4 * n;
  d -= kDaysPer4Years * n;
  n = d / 365;
  n -= n >> 2;
  y += n;
  d -= 365 * n;
  Civil c{static_cast<std::int64_t>(y) + kAbsoluteZeroYear, 0, 0, static_cast<int>(d)};
  int day = c.year_day;
  if (is_leap(c.year)) {
    if (day == 31 + 29 - 1) {
      c.month = 2;
      c.day = 29;
      return c;
    }
    if (day > 31 + 29 - 1) --day;  // after the leap day: as in a common year
  }
  int month = day / 31;  // at most one month too low
  int begin = kDaysBefore[month];
  if (day >= kDaysBefore[month + 1]) {
    begin = kDaysBefore[month + 1];
    ++month;
  }
  c.month = month + 1;
  c.day = day - begin + 1;
  return c;
}

}  // namespace

double minute(double seconds, double, double) {
  return static_cast<double>(absolute(seconds) % kSecondsPerHour / kSecondsPerMinute);
}

double hour(double seconds, double, double) {
  return static_cast<double>(absolute(seconds) % kSecondsPerDay / kSecondsPerHour);
}

double day_of_week(double seconds, double, double) {
  // The absolute zero is a Monday.
  return static_cast<double>((absolute(seconds) + kSecondsPerDay) % kSecondsPerWeek / kSecondsPerDay);
}

double day_of_month(double seconds, double, double) {
  return civil(absolute(seconds)).day;
}

double day_of_year(double seconds, double, double) {
  return civil(absolute(seconds)).year_day + 1;
}

double days_in_month(double seconds, double, double) {
  const Civil c = civil(absolute(seconds));
  if (c.month == 2) return is_leap(c.year) ? 29 : 28;
  return kDaysBefore[c.month] - kDaysBefore[c.month - 1];
}

double month(double seconds, double, double) {
  return civil(absolute(seconds)).month;
}

double year(double seconds, double, double) {
  return static_cast<double>(civil(absolute(seconds)).year);
}

}  // namespace gpuwatch::query::date
