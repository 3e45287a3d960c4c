// All detectors of the table (detector_table.h), evaluated together on each snapshot; each keeps its own
// window state between evaluations.
#pragma once

#include <memory>
#include <vector>

#include "detect/detector.h"
#include "detect/detector_table.h"

namespace gpuwatch::detect {

class DetectorSet {
 public:
  explicit DetectorSet(const DetectorSettings& settings = {});
  // Every condition that holds after this snapshot (and these kernel events), in table order. Call with
  // snapshots in time order, from one thread.
  std::vector<Condition> evaluate(const DetectionInput& input);

 private:
  std::vector<std::unique_ptr<Detector>> detectors_;
};

}  // namespace gpuwatch::detect
