#include "alerting/fingerprint.h"

#include <cstdio>

namespace gpuwatch::alerting {
namespace {

constexpr std::uint64_t kOffset = 14695981039346656037ULL;
constexpr std::uint64_t kPrime = 1099511628211ULL;
constexpr unsigned char kSeparator = 0xff;  // cannot occur in UTF-8 text, so "a"+"bc" != "ab"+"c"

std::uint64_t add_byte(std::uint64_t h, unsigned char b) {
  return (h ^ b) * kPrime;
}

std::uint64_t add(std::uint64_t h, const std::string& s) {
  for (char c : s) h = add_byte(h, static_cast<unsigned char>(c));
  return h;
}

}  // namespace

std::uint64_t fingerprint(const LabelSet& labels) {
  std::uint64_t h = kOffset;
  for (const auto& [name, value] : labels) {  // std::map iterates in name order
    h = add_byte(add(h, name), kSeparator);
    h = add_byte(add(h, value), kSeparator);
  }
  return h;
}

std::string fingerprint_hex(std::uint64_t fp) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fp));
  return buf;
}

}  // namespace gpuwatch::alerting
