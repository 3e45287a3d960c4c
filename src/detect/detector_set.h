// All detectors, evaluated together on each snapshot. The table in detector_set.cpp lists them
// (docs/detection.md shows the same table with rules and defaults); each keeps its own window state between
// evaluations.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "detect/detector.h"
#include "rules/detector_settings.h"

namespace gpuwatch::detect {

using rules::DetectorSettings;

struct DetectorInfo {
  std::string_view name;        // e.g. "xid"
  std::string_view alertnames;  // the alerts it raises, comma separated
  std::function<std::unique_ptr<Detector>(const DetectorSettings&)> make;
};

std::span<const DetectorInfo> detector_table();

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
