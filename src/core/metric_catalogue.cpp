#include "core/metric_catalogue.h"

namespace gpuwatch {

static_assert(
    [] {
      for (std::size_t i = 0; i < kMetricCatalogue.size(); ++i) {
        if (static_cast<std::size_t>(kMetricCatalogue[i].id) != i) return false;
      }
      return true;
    }(),
    "catalogue rows must be in enum order");

std::optional<Metric> find_metric(std::string_view name) {
  for (const auto& def : kMetricCatalogue) {
    if (def.name == name) return def.id;
  }
  return std::nullopt;
}

}  // namespace gpuwatch
