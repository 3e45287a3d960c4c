#pragma once
// Which series a series' blocks are coded against (chunk_codec.h, SeriesReference): the one table of such
// pairs. An energy counter is the running integral of the power of the same device, so its increments are
// coded against the power readings and cost only the counter's own noise. The reference is the series with
// the same labels and the paired metric name.
#include <string_view>

namespace gpuwatch::store {

struct ReferencePair {
  std::string_view metric;     // the series coded against a reference
  std::string_view reference;  // the metric of its reference, same labels otherwise
};

inline constexpr ReferencePair kReferencePairs[] = {
    {"gpu_energy_joules_total", "gpu_power_watts"},
};

// The reference metric for `metric`, or "" when it has none.
inline std::string_view reference_metric_for(std::string_view metric) {
  for (const auto& p : kReferencePairs) {
    if (p.metric == metric) return p.reference;
  }
  return {};
}

}  // namespace gpuwatch::store
