#include "store/decimal_values.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "store/checksum.h"
#include "store/int_column.h"

namespace gpuwatch::store {
namespace {

constexpr double kPow10[kMaxDecimalScale + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
constexpr double kTwoTo53 = 9007199254740992.0;

enum Order : std::uint8_t {
  kFromFirst = 0,
  kFromPrevious = 1,
  kSecondDifference = 2,
  kFromLevel = 3,
  kAgainstReference = 4,
};
constexpr int kOrders = 5;

// The moving level of order 3 follows the values with weight 1/4: it forgets a phase change in a few
// samples, and its own noise costs under a tenth of a bit a sample.
constexpr int kLevelShift = 2;
// Order 4 is defined for scales of counter and reference at most 10^6 apart and steps under 2^32 ms, which
// keeps its arithmetic inside 128 bits for any input.
constexpr int kMaxReferenceScaleGap = 6;
constexpr std::int64_t kMaxReferenceStepMs = std::int64_t{1} << 32;
constexpr std::int64_t kPow10Int[kMaxReferenceScaleGap + 1] = {1, 10, 100, 1000, 10000, 100000, 1000000};

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
  ints.resize(values.size());
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

// Unsigned arithmetic throughout: a malformed block may wrap around, but never has undefined behaviour.
struct MovingLevel {
  std::uint64_t scaled = 0;  // the level times 2^kLevelShift
  std::int64_t predict() const { return static_cast<std::int64_t>(scaled) >> kLevelShift; }
  void update(std::uint64_t q) { scaled += q - static_cast<std::uint64_t>(predict()); }
};

// The reference series as scaled integers; k < 0 when it is not decimal.
struct ScaledReference {
  std::vector<std::int64_t> ints;
  int k = -1;
};

ScaledReference scale_reference(const ValueContext& context, std::size_t n) {
  ScaledReference r;
  if (context.reference.size() == n && context.timestamps_ms.size() == n)
    r.k = find_scale(context.reference, r.ints);
  return r;
}

// What a counter at scale k gains from sample j-1 to j when it integrates the reference (per second) by the
// trapezoid rule, rounded down; false where order 4 is not defined.
bool predicted_step(const ScaledReference& r, std::span<const std::int64_t> t, std::size_t j, int k,
                    std::uint64_t& out) {
  const std::int64_t dt =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(t[j]) - static_cast<std::uint64_t>(t[j - 1]));
  const int gap = k - r.k;
  if (r.k < 0 || dt <= 0 || dt >= kMaxReferenceStepMs || gap > kMaxReferenceScaleGap ||
      -gap > kMaxReferenceScaleGap) {
    return false;
  }
  // Nearly always the product fits in 64 bits, whose division costs a fraction of a 128-bit one; the result
  // is the same floor either way.
  const std::int64_t sum = r.ints[j - 1] + r.ints[j];  // |sum| < 2^54
  std::int64_t num64 = 0;
  if (!__builtin_mul_overflow(sum, dt, &num64) &&
      (gap < 0 || !__builtin_mul_overflow(num64, kPow10Int[gap], &num64))) {
    const std::int64_t den64 = gap < 0 ? 2000 * kPow10Int[-gap] : 2000;
    std::int64_t q = num64 / den64;
    if (num64 % den64 != 0 && num64 < 0) --q;
    out = static_cast<std::uint64_t>(q);
    return true;
  }
  __int128 num = static_cast<__int128>(sum);
  num *= dt;
  __int128 den = 2000;  // two samples averaged, milliseconds to seconds
  if (gap >= 0) {
    num *= kPow10Int[gap];
  } else {
    den *= kPow10Int[-gap];
  }
  __int128 q = num / den;
  if (num % den != 0 && num < 0) --q;
  out = static_cast<std::uint64_t>(q);
  return true;
}

// A block coded against a reference carries the CRC-32 of its values' bits, so that decoding it with another
// reference than the one it was written with is an error, not wrong values.
std::uint32_t values_crc(std::span<const double> values) {
  return crc32_of({reinterpret_cast<const std::uint8_t*>(values.data()), values.size_bytes()});
}

// Bits the column will take: its varint size, or for entropy coding (range_coder.h) the empirical entropy
// of the numbers' bit lengths plus the bits under each leading one, which is what the coder spends, near
// enough, or its runs when those are smaller.
double estimated_bits(std::span<const std::int64_t> column, IntPacking packing) {
  const double as_varints = 8.0 * static_cast<double>(int_column_size(column));
  if (packing == IntPacking::kVarint || column.empty()) return as_varints;
  std::size_t lengths[65] = {};
  double raw = 0;
  for (const std::int64_t v : column) {
    const int len = static_cast<int>(std::bit_width(zigzag(v)));
    ++lengths[len];
    raw += len > 1 ? len - 1 : 0;
  }
  const double n = static_cast<double>(column.size());
  double h = 0;
  for (const std::size_t c : lengths) {
    if (c != 0) h -= static_cast<double>(c) * std::log2(static_cast<double>(c) / n);
  }
  return std::min(as_varints, h + raw);
}

}  // namespace

bool encode_decimal_values(std::span<const double> values, ByteWriter& out, IntPacking packing,
                           ValueContext& context) {
  std::vector<std::int64_t> ints;
  const int k = find_scale(values, ints);
  if (k < 0) return false;

  // |ints| < 2^53, so these differences cannot overflow int64.
  const std::size_t n = ints.size();
  std::vector<std::int64_t> columns[kOrders];
  for (std::size_t i = 0; i + 1 < n; ++i) {
    columns[kFromFirst].push_back(ints[i + 1] - ints[0]);
    columns[kFromPrevious].push_back(ints[i + 1] - ints[i]);
  }
  const auto& d1 = columns[kFromPrevious];
  const std::int64_t first_delta = d1.empty() ? 0 : d1[0];
  for (std::size_t i = 0; i + 1 < d1.size(); ++i) columns[kSecondDifference].push_back(d1[i + 1] - d1[i]);

  std::uint64_t divisors[kOrders];
  double bits[kOrders];
  for (const int order : {kFromFirst, kFromPrevious, kSecondDifference}) {
    divisors[order] = common_divisor(columns[order]);
    divide(columns[order], divisors[order]);
  }
  // Order 3: the order-0 numbers (already divided) less their moving level.
  divisors[kFromLevel] = divisors[kFromFirst];
  MovingLevel level;
  for (const std::int64_t q : columns[kFromFirst]) {
    columns[kFromLevel].push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(q) -
                                                            static_cast<std::uint64_t>(level.predict())));
    level.update(static_cast<std::uint64_t>(q));
  }
  // Order 4: increments less what the reference predicts.
  bool have_reference = n >= 2;
  if (have_reference) {
    const ScaledReference ref = scale_reference(context, n);
    std::uint64_t predicted = 0;
    for (std::size_t j = 1; j < n && have_reference; ++j) {
      have_reference = predicted_step(ref, context.timestamps_ms, j, k, predicted);
      columns[kAgainstReference].push_back(
          static_cast<std::int64_t>(static_cast<std::uint64_t>(ints[j] - ints[j - 1]) - predicted));
    }
  }
  divisors[kAgainstReference] = have_reference ? common_divisor(columns[kAgainstReference]) : 1;
  if (have_reference) divide(columns[kAgainstReference], divisors[kAgainstReference]);

  for (int o = 0; o < kOrders; ++o) {
    const bool available =
        !(o == kSecondDifference && d1.empty()) && !(o == kAgainstReference && !have_reference);
    bits[o] = available
                  ? estimated_bits(columns[o], packing) + 8.0 * static_cast<double>(varint_size(divisors[o]))
                  : HUGE_VAL;
  }
  bits[kSecondDifference] += 8.0 * static_cast<double>(varint_size(zigzag(first_delta)));
  int order = kFromPrevious;
  for (const int o : {kFromFirst, kSecondDifference, kFromLevel, kAgainstReference}) {
    if (bits[o] < bits[order]) order = o;
  }
  // A block coded against its reference cannot be read without it: only worth a clear gain.
  if (order == kAgainstReference) {
    int best_alone = kFromPrevious;
    for (const int o : {kFromFirst, kSecondDifference, kFromLevel}) {
      if (bits[o] < bits[best_alone]) best_alone = o;
    }
    if (bits[kAgainstReference] > 0.9 * bits[best_alone]) order = best_alone;
  }
  context.used_reference = order == kAgainstReference;

  out.u8(static_cast<std::uint8_t>(k));
  out.u8(static_cast<std::uint8_t>(order));
  out.varint(divisors[order]);
  out.svarint(ints[0]);
  if (order == kSecondDifference) out.svarint(first_delta);
  encode_int_column(columns[order], out, packing);
  if (order == kAgainstReference) out.fixed(values_crc(values), 4);
  return true;
}

void decode_decimal_values(ByteReader& in, std::span<double> out, const ValueContext& context) {
  const int k = in.u8("decimal scale");
  if (k > kMaxDecimalScale) in.fail("decimal scale " + std::to_string(k) + " out of range");
  const int order = in.u8("decimal difference order");
  if (order >= kOrders) in.fail("decimal difference order " + std::to_string(order) + " unknown");
  if (order == kSecondDifference && out.size() < 2) in.fail("second differences need two values");
  ScaledReference ref;
  if (order == kAgainstReference) {
    ref = scale_reference(context, out.size());
    if (ref.k < 0)
      in.fail("the values are coded against a reference series, and none (or one not decimal) was given");
  }
  const std::uint64_t g = in.varint("decimal common divisor");
  const auto first = static_cast<std::uint64_t>(in.svarint("decimal first value"));
  std::uint64_t delta =
      order == kSecondDifference ? static_cast<std::uint64_t>(in.svarint("decimal first difference")) : 0;
  std::vector<std::int64_t> column(out.size() - (order == kSecondDifference ? 2 : 1));
  decode_int_column(in, column);

  std::uint64_t cur = first;
  out[0] = unscale(static_cast<std::int64_t>(cur), k);
  std::size_t next = 1;
  if (order == kSecondDifference) {
    cur += delta;
    out[next++] = unscale(static_cast<std::int64_t>(cur), k);
  }
  MovingLevel level;
  for (const std::int64_t d : column) {
    const std::uint64_t step = static_cast<std::uint64_t>(d) * g;
    switch (order) {
      case kFromFirst:
        cur = first + step;
        break;
      case kFromPrevious:
        cur += step;
        break;
      case kSecondDifference:
        delta += step;
        cur += delta;
        break;
      case kFromLevel: {
        const std::uint64_t q = static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(level.predict());
        level.update(q);
        cur = first + q * g;
        break;
      }
      default: {
        std::uint64_t predicted = 0;
        if (!predicted_step(ref, context.timestamps_ms, next, k, predicted)) {
          in.fail("sample " + std::to_string(next) + " is outside what a reference series can predict");
        }
        cur += step + predicted;
      }
    }
    out[next++] = unscale(static_cast<std::int64_t>(cur), k);
  }
  if (order == kAgainstReference && in.fixed(4, "values checksum") != values_crc(out)) {
    in.fail(
        "values decoded against the reference series do not match their checksum: not the reference they "
        "were written with");
  }
}

}  // namespace gpuwatch::store
