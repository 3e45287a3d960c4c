#include "store/downsample.h"

#include <cmath>
#include <limits>

namespace gpuwatch::store {
namespace {

std::int64_t bucket_of(std::int64_t t, std::int64_t step) {
  const std::int64_t q = t / step;
  return (t % step != 0 && t < 0) ? q - 1 : q;
}

}  // namespace

Rollup roll_up(std::span<const std::int64_t> t, std::span<const double> v, std::int64_t step_ms) {
  Rollup out;
  std::size_t i = 0;
  while (i < t.size()) {
    const std::int64_t bucket = bucket_of(t[i], step_ms);
    double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo, sum = 0, n = 0;
    std::size_t j = i;
    for (; j < t.size() && bucket_of(t[j], step_ms) == bucket; ++j) {
      if (std::isnan(v[j])) continue;
      lo = std::fmin(lo, v[j]);
      hi = std::fmax(hi, v[j]);
      sum += v[j];
      n += 1;
    }
    out.t.push_back(t[j - 1]);
    out.last.push_back(v[j - 1]);
    out.by_suffix[0].push_back(lo);
    out.by_suffix[1].push_back(hi);
    out.by_suffix[2].push_back(n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN());
    out.by_suffix[3].push_back(n);
    i = j;
  }
  return out;
}

}  // namespace gpuwatch::store
