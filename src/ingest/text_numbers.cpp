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

constexpr double kExactPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Plain decimals ("41", "-0", "612.345"), the common case, without the general parser: when the digits make
// an integer under 2^53 and there are at most 22 decimals, one IEEE division of two exact numbers is the
// correctly rounded value (Clinger's fast path), the same double the general parser returns.
bool parse_plain_decimal(std::string_view s, double& out) {
  std::size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) i = 1;
  std::uint64_t mantissa = 0;
  int digits = 0;
  int decimals = -1;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (is_digit(c)) {
      if (++digits > 16) return false;
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
      if (decimals >= 0) ++decimals;
    } else if (c == '.' && decimals < 0) {
      decimals = 0;
    } else {
      return false;
    }
  }
  if (digits == 0 || mantissa > (std::uint64_t{1} << 53) || decimals > 22) return false;
  double v = static_cast<double>(mantissa);
  if (decimals > 0) v /= kExactPow10[decimals];
  out = negative ? -v : v;
  return true;
}

}  // namespace

bool parse_sample_value(std::string_view s, double& out) {
  if (parse_plain_decimal(s, out)) return true;
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
  if (s.size() <= 18 && is_digit(s[0])) {  // the common case: no sign, no overflow possible
    std::int64_t v = 0;
    for (const char c : s) {
      if (!is_digit(c)) return false;
      v = v * 10 + (c - '0');
    }
    out = v;
    return true;
  }
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
  if (whole.size() <= 15) {  // digits only (checked above), so no overflow: the common case, quickly
    for (const char c : whole) sec = sec * 10 + (c - '0');
  } else {
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
