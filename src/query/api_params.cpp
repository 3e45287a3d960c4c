#include "query/api_params.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/duration.h"
#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

std::optional<double> parse_float(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// 2015-07-01T20:10:51.781Z or with a +hh:mm / -hh:mm offset.
std::optional<std::int64_t> parse_rfc3339(const std::string& text) {
  int year, month, day, hour, minute, second;
  int used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute, &second,
                  &used) != 6 ||
      used != 19) {
    return std::nullopt;
  }
  std::size_t i = 19;
  std::int64_t millis = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int digits = 0;
    std::int64_t scale = 100;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (digits < 3) millis += (text[i] - '0') * scale;
      scale /= 10;
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
  }
  int offset_minutes = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int oh, om;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2 || i + 6 != text.size())
      return std::nullopt;
    offset_minutes = (text[i] == '+' ? 1 : -1) * (oh * 60 + om);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(year),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  const auto days = std::chrono::sys_days(ymd).time_since_epoch().count();
  const std::int64_t seconds =
      static_cast<std::int64_t>(days) * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

// Times are int64 milliseconds: a unix time in seconds must lie within this of 1970 (about 290 million
// years; Prometheus's own bounds are about the same).
constexpr double kMaxApiSeconds = 9.2e15;

bool out_of_range(const std::optional<double>& seconds) {
  return seconds && std::isfinite(*seconds) && std::fabs(*seconds) > kMaxApiSeconds;
}

}  // namespace

std::optional<std::int64_t> parse_api_time(const std::string& text) {
  if (const auto f = parse_float(text)) {
    if (!std::isfinite(*f) || std::fabs(*f) > kMaxApiSeconds) return std::nullopt;
    double whole = 0;
    const double fraction = std::modf(*f, &whole);
    return static_cast<std::int64_t>(whole) * 1000 + static_cast<std::int64_t>(std::round(fraction * 1000));
  }
  return parse_rfc3339(text);
}

std::optional<std::int64_t> parse_api_duration(const std::string& text) {
  if (const auto f = parse_float(text)) {
    if (!std::isfinite(*f) || std::fabs(*f) > kMaxApiSeconds) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(*f * 1000));
  }
  if (const auto d = gpuwatch::parse_duration(text)) return d->count();
  return std::nullopt;
}

std::int64_t time_param(const std::string& name, const std::string& text) {
  if (const auto t = parse_api_time(text)) return *t;
  if (out_of_range(parse_float(text))) {
    throw bad_data("invalid parameter \"" + name + "\": \"" + text +
                   "\" is out of range (times must be within 9.2e15 seconds of 1970)");
  }
  throw bad_data("invalid parameter \"" + name + "\": cannot parse \"" + text + "\" to a valid timestamp");
}

std::int64_t duration_param(const std::string& name, const std::string& text) {
  if (const auto d = parse_api_duration(text)) return *d;
  if (out_of_range(parse_float(text))) {
    throw bad_data("invalid parameter \"" + name + "\": \"" + text +
                   "\" is out of range (durations must be within 9.2e15 seconds)");
  }
  throw bad_data("invalid parameter \"" + name + "\": cannot parse \"" + text + "\" to a valid duration");
}

}  // namespace gpuwatch::query
