#include "core/utf8.h"

namespace gpuwatch {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "...";

// The length of the well-formed character at the start of `s`, or 0 when it is ill-formed (RFC 3629's table).
std::size_t character_length(std::string_view s) {
  const auto byte = [&s](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](std::size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return i < s.size() && byte(i) >= lo && byte(i) <= hi;
  };
  const unsigned c = byte(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return continuation(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const unsigned hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
    return continuation(1, lo, hi) && continuation(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80;  // no overlong forms
    const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    return continuation(1, lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = character_length(text.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes && is_valid_utf8(text)) return std::string(text);
  // Repair first (a replaced byte grows to three), reading no more of the input than can end up in the
  // result.
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && out.size() <= max_bytes) {
    const std::size_t n = character_length(text.substr(i));
    if (n == 0) {
      out += kReplacement;
      i += 1;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  if (out.size() <= max_bytes && i == text.size()) return out;
  // Too long: cut at a character boundary, leaving room for the ellipsis.
  std::size_t end = max_bytes > kEllipsis.size() ? max_bytes - kEllipsis.size() : 0;
  while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80) --end;
  out.resize(end);
  if (max_bytes >= kEllipsis.size()) out += kEllipsis;
  return out;
}

}  // namespace gpuwatch
