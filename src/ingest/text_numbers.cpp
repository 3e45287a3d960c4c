#include "ingest/text_numbers.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace gpuwatch::ingest {
namespace {

constexpr std::int64_t kMaxSecondsExact = std::numeric_limits<std::int64_t>::max() / 1000 - 1;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

bool parse_sample_value(std::string_view s, double& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (r.ec == std::errc::result_out_of_range) {
    // Go rounds overflowing literals to +-Inf and underflowing ones to zero, without an error.
    if (r.ptr != s.data() + s.size()) return false;
    const bool negative = s[0] == '-';
    const bool tiny = s.find_first_of("eE") != std::string_view::npos && s[s.find_first_of("eE") + 1] == '-';
    out = tiny ? (negative ? -0.0 : 0.0)
               : (negative ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity());
    return true;
  }
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_timestamp_ms(std::string_view s, std::int64_t& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_timestamp_seconds(std::string_view s, std::int64_t& out_ms) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  const std::size_t dot = body.find('.');
  const std::string_view whole = body.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : body.substr(dot + 1);
  bool plain = !whole.empty() || !frac.empty();
  for (const char c : whole) plain = plain && is_digit(c);
  for (const char c : frac) plain = plain && is_digit(c);
  if (!plain) {
    // Exponent forms (1.7958e9) and anything else Go's ParseFloat takes.
    double seconds = 0;
    if (!parse_sample_value(s, seconds) || !std::isfinite(seconds)) return false;
    const double ms = std::round(seconds * 1000.0);
    if (!(std::fabs(ms) < 9.2e18)) return false;
    out_ms = static_cast<std::int64_t>(ms);
    return true;
  }
  std::int64_t sec = 0;
  if (!whole.empty()) {
    const auto r = std::from_chars(whole.data(), whole.data() + whole.size(), sec);
    if (r.ec != std::errc() || sec > kMaxSecondsExact) return false;
  }
  std::int64_t ms = 0;
  for (std::size_t i = 0; i < 3; ++i) ms = ms * 10 + (i < frac.size() ? frac[i] - '0' : 0);
  if (frac.size() > 3 && frac[3] >= '5') ++ms;  // the digits after it can only push it further up
  const std::int64_t total = sec * 1000 + ms;
  out_ms = negative ? -total : total;
  return true;
}

}  // namespace gpuwatch::ingest
