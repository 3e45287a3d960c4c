#include "store/decimal_values.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "store/int_column.h"

namespace gpuwatch::store {
namespace {

constexpr double kPow10[kMaxDecimalScale + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
constexpr double kTwoTo53 = 9007199254740992.0;

// The decoder's formula, shared so that the encoder accepts only what decodes bit-exactly.
inline double unscale(std::int64_t i, int k) {
  return k == 0 ? static_cast<double>(i) : static_cast<double>(i) / kPow10[k];
}

bool to_scaled(double v, int k, std::int64_t& out) {
  const double s = v * kPow10[k];
  if (!(std::fabs(s) < kTwoTo53)) return false;  // NaN, infinities, too large to be exact
  out = static_cast<std::int64_t>(std::round(s));
  return std::bit_cast<std::uint64_t>(unscale(out, k)) == std::bit_cast<std::uint64_t>(v);
}

// Smallest scale that fits every value, or -1.
int find_scale(std::span<const double> values, std::vector<std::int64_t>& ints) {
  int k = 0;
  std::int64_t probe = 0;
  for (std::size_t i = 0; i < values.size();) {
    if (to_scaled(values[i], k, ints[i])) {
      ++i;
      continue;
    }
    do {
      ++k;
    } while (k <= kMaxDecimalScale && !to_scaled(values[i], k, probe));
    if (k > kMaxDecimalScale) return -1;
    i = 0;  // a finer scale must be checked against the values before this one too
  }
  return k;
}

std::uint64_t common_divisor(std::span<const std::int64_t> d) {
  std::uint64_t g = 0;
  for (const std::int64_t v : d) {
    g = std::gcd(g, static_cast<std::uint64_t>(v < 0 ? -v : v));
    if (g == 1) break;
  }
  return g == 0 ? 1 : g;
}

void divide(std::vector<std::int64_t>& d, std::uint64_t g) {
  if (g == 1) return;
  for (std::int64_t& v : d) v /= static_cast<std::int64_t>(g);
}

}  // namespace

bool encode_decimal_values(std::span<const double> values, ByteWriter& out, IntPacking packing) {
  std::vector<std::int64_t> ints(values.size());
  const int k = find_scale(values, ints);
  if (k < 0) return false;

  // |ints| < 2^53, so these differences cannot overflow int64.
  const std::size_t n = ints.size();
  std::vector<std::int64_t> d0(n - 1);
  std::vector<std::int64_t> d1(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    d0[i] = ints[i + 1] - ints[0];
    d1[i] = ints[i + 1] - ints[i];
  }
  const std::int64_t first_delta = d1.empty() ? 0 : d1[0];
  std::vector<std::int64_t> d2(d1.empty() ? 0 : d1.size() - 1);
  for (std::size_t i = 0; i + 1 < d1.size(); ++i) d2[i] = d1[i + 1] - d1[i];
  std::vector<std::int64_t>* columns[3] = {&d0, &d1, &d2};
  std::uint64_t divisors[3];
  std::size_t sizes[3];
  for (int order = 0; order < 3; ++order) {
    divisors[order] = common_divisor(*columns[order]);
    divide(*columns[order], divisors[order]);
    sizes[order] = int_column_size(*columns[order]) + varint_size(divisors[order]);
  }
  if (!d1.empty()) sizes[2] += varint_size(zigzag(first_delta));
  int order = 1;
  if (sizes[0] < sizes[order]) order = 0;
  if (!d1.empty() && sizes[2] < sizes[order]) order = 2;

  out.u8(static_cast<std::uint8_t>(k));
  out.u8(static_cast<std::uint8_t>(order));
  out.varint(divisors[order]);
  out.svarint(ints[0]);
  if (order == 2) out.svarint(first_delta);
  encode_int_column(*columns[order], out, packing);
  return true;
}

void decode_decimal_values(ByteReader& in, std::span<double> out) {
  const int k = in.u8("decimal scale");
  if (k > kMaxDecimalScale) in.fail("decimal scale " + std::to_string(k) + " out of range");
  const int order = in.u8("decimal difference order");
  if (order > 2) in.fail("decimal difference order " + std::to_string(order) + " unknown");
  if (order == 2 && out.size() < 2) in.fail("second differences need two values");
  const std::uint64_t g = in.varint("decimal common divisor");
  // Unsigned arithmetic: a malformed block may wrap around, but never has undefined behaviour.
  const auto first = static_cast<std::uint64_t>(in.svarint("decimal first value"));
  std::uint64_t delta = order == 2 ? static_cast<std::uint64_t>(in.svarint("decimal first difference")) : 0;
  std::vector<std::int64_t> column(out.size() - (order == 2 ? 2 : 1));
  decode_int_column(in, column);

  std::uint64_t cur = first;
  out[0] = unscale(static_cast<std::int64_t>(cur), k);
  std::size_t next = 1;
  if (order == 2) {
    cur += delta;
    out[next++] = unscale(static_cast<std::int64_t>(cur), k);
  }
  for (const std::int64_t d : column) {
    const std::uint64_t step = static_cast<std::uint64_t>(d) * g;
    if (order == 0) {
      cur = first + step;
    } else if (order == 1) {
      cur += step;
    } else {
      delta += step;
      cur += delta;
    }
    out[next++] = unscale(static_cast<std::int64_t>(cur), k);
  }
}

}  // namespace gpuwatch::store
