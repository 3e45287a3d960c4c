// The human view of one snapshot for `gpuwatch status`: a table of GPUs, then their processes.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "core/condition.h"
#include "core/snapshot.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

struct StatusTableStyle {
  bool colour = false;    // ANSI colours (on a terminal, unless NO_COLOR is set)
  std::size_t width = 0;  // the terminal's columns: less telling columns are left out to fit; 0: no limit
};

// The GPU as status names it: its index, or index/GPU instance/compute instance for a MIG instance.
std::string gpu_label(const DeviceSnapshot& device);

// Each GPU's verdict is assess_health() with the detectors' settings, as the exit code.
std::string render_status_table(const Snapshot& snapshot, const StatusTableStyle& style,
                                const rules::DetectorSettings& settings = {});

// The alert conditions that hold in this one reading, per GPU (status evaluates the rules itself, without an
// agent, so an alert's for: duration cannot have passed: these are what would be pending or firing).
std::string render_status_alerts(std::span<const alerting::Condition> conditions,
                                 const StatusTableStyle& style);

}  // namespace gpuwatch
