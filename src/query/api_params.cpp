#include "query/api_params.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/duration.h"
#include "core/rfc3339.h"
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
  return parse_rfc3339_ms(text);
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
