#include "core/rfc3339.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace gpuwatch {
namespace {

using std::chrono::days;
using std::chrono::sys_days;

constexpr std::int64_t kMsPerDay = 86'400'000;

// Reads exactly `width` digits at text[pos]; nullopt when any is not a digit.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool is_separator(std::string_view text, std::size_t pos, char c) {
  return pos < text.size() && text[pos] == c;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text) {
  const auto year = digits(text, 0, 4);
  const auto month = digits(text, 5, 2);
  const auto day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2);
  const auto minute = digits(text, 14, 2);
  const auto second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (!is_separator(text, 4, '-') || !is_separator(text, 7, '-') || !is_separator(text, 13, ':') ||
      !is_separator(text, 16, ':') || !(is_separator(text, 10, 'T') || is_separator(text, 10, 't')))
    return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*year),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;

  std::size_t i = 19;
  std::int64_t millis = 0;
  if (is_separator(text, i, '.')) {
    ++i;
    std::size_t count = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++count) {
      if (count < 3) millis = millis * 10 + (text[i] - '0');
    }
    if (count == 0) return std::nullopt;
    for (; count < 3; ++count) millis *= 10;
  }
  std::int64_t offset_ms = 0;
  if (is_separator(text, i, 'Z') || is_separator(text, i, 'z')) {
    ++i;
  } else if (is_separator(text, i, '+') || is_separator(text, i, '-')) {
    const auto oh = digits(text, i + 1, 2);
    const auto om = digits(text, i + 4, 2);
    if (!oh || !om || !is_separator(text, i + 3, ':') || *oh > 23 || *om > 59) return std::nullopt;
    offset_ms = (text[i] == '+' ? 1 : -1) * (std::int64_t{*oh} * 60 + *om) * 60'000;
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  const std::int64_t day_number = sys_days(date).time_since_epoch().count();
  return day_number * kMsPerDay + ((std::int64_t{*hour} * 60 + *minute) * 60 + *second) * 1000 + millis -
         offset_ms;
}

std::string format_rfc3339_ms(std::int64_t ms) {
  constexpr std::int64_t kFirst = -62'167'219'200'000;  // 0000-01-01T00:00:00Z
  constexpr std::int64_t kLast = 253'402'300'799'999;   // 9999-12-31T23:59:59.999Z
  ms = std::clamp(ms, kFirst, kLast);
  // Floor division, so times before 1970 land on the right day and a positive time of day.
  std::int64_t day_number = ms / kMsPerDay;
  std::int64_t in_day = ms % kMsPerDay;
  if (in_day < 0) {
    in_day += kMsPerDay;
    --day_number;
  }
  const std::chrono::year_month_day date{sys_days(days(day_number))};
  const auto seconds = in_day / 1000;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(seconds / 3600), static_cast<int>(seconds / 60 % 60),
                static_cast<int>(seconds % 60), static_cast<int>(in_day % 1000));
  return buf;
}

}  // namespace gpuwatch
