// The detector table: one row per detector, in the order they are evaluated and their options are listed
// (docs/detection.md shows the same detectors with rules and defaults). Each detector's file makes its own
// row (its name, the alerts it raises, its tunables and how to build it from the settings), so adding a
// detector is its file and one line in the list in detector_table.cpp.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "detect/detector.h"
#include "rules/detector_settings.h"

namespace gpuwatch::detect {

using rules::DetectorSettings;
// What a detector's file writes its settings and tunables with.
using namespace std::chrono_literals;
using rules::Tunables;
using rules::TunableUnit;
using std::chrono::milliseconds;

struct DetectorInfo {
  std::string_view name;        // e.g. "xid"; its options are detect.<name>.<tunable>
  std::string_view alertnames;  // the alerts it raises, comma separated
  std::vector<rules::Tunable> tunables;
  std::function<std::unique_ptr<Detector>(const DetectorSettings&)> make;
};

std::span<const DetectorInfo> detector_table();

// A row's alert names, one each.
std::vector<std::string> alertnames_of(const DetectorInfo& info);

// The row of a detector built from its settings struct, which it reads from the settings by its tunables.
template <typename D, const auto& kTunables>
DetectorInfo detector_row(std::string_view alertnames) {
  return {kTunables.detector, alertnames, rules::describe<kTunables>(),
          [](const DetectorSettings& s) -> std::unique_ptr<Detector> {
            return std::make_unique<D>(s.read(kTunables));
          }};
}

// The row of a detector without tunables.
template <typename D>
DetectorInfo detector_row(std::string_view name, std::string_view alertnames) {
  return {name, alertnames, {}, [](const DetectorSettings&) -> std::unique_ptr<Detector> {
            return std::make_unique<D>();
          }};
}

}  // namespace gpuwatch::detect
