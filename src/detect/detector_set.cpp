#include "detect/detector_set.h"

namespace gpuwatch::detect {

DetectorSet::DetectorSet(const DetectorSettings& settings) {
  for (const auto& info : detector_table()) detectors_.push_back(info.make(settings));
}

std::vector<Condition> DetectorSet::evaluate(const DetectionInput& input) {
  std::vector<Condition> out;
  for (auto& d : detectors_) d->evaluate(input, out);
  return out;
}

}  // namespace gpuwatch::detect
