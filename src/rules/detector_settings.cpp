#include "rules/detector_settings.h"

namespace gpuwatch::rules {
namespace {

std::string value_key(std::string_view detector, std::string_view tunable) {
  std::string key(detector);
  key += '.';
  key += tunable;
  return key;
}

}  // namespace

void DetectorSettings::set(std::string_view detector, std::string_view tunable, double value) {
  values_.insert_or_assign(value_key(detector, tunable), value);
}

std::optional<double> DetectorSettings::find(std::string_view detector, std::string_view tunable) const {
  const auto it = values_.find(value_key(detector, tunable));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

}  // namespace gpuwatch::rules
