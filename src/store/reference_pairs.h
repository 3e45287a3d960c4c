#pragma once
// Which series a series' blocks are coded against (chunk_codec.h, SeriesReference): the one table of such
// pairs. An energy counter is the running integral of the power of the same device, so its increments are
// coded against the power readings and cost only the counter's own noise. The reference is the series with
// the same labels and the paired metric name.
#include <string_view>

#include "core/series.h"

namespace gpuwatch::store {

struct ReferencePair {
  std::string_view metric;     // the series coded against a reference
  std::string_view reference;  // the metric of its reference, same labels otherwise
};

inline constexpr ReferencePair kReferencePairs[] = {
    {"gpu_energy_joules_total", "gpu_power_watts"},
};

// A reference is never itself coded against another: reading a block then needs one other block, not a chain.
constexpr bool references_are_one_step() {
  for (const auto& p : kReferencePairs) {
    for (const auto& q : kReferencePairs) {
      if (p.reference == q.metric) return false;
    }
  }
  return true;
}
static_assert(references_are_one_step());

// The reference metric for `metric`, or "" when it has none.
inline std::string_view reference_metric_for(std::string_view metric) {
  for (const auto& p : kReferencePairs) {
    if (p.metric == metric) return p.reference;
  }
  return {};
}

// The labels of the series that `labels`' series is coded against: the same with the reference metric's name;
// empty when its metric has none.
inline Labels reference_labels(const Labels& labels) {
  const std::string_view reference = reference_metric_for(label_value(labels, "__name__"));
  if (reference.empty()) return {};
  Labels out = labels;
  for (auto& [name, value] : out) {
    if (name == "__name__") value = reference;
  }
  return out;
}

}  // namespace gpuwatch::store
