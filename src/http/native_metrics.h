// Renders a snapshot with gpuwatch's native metric names (text 0.0.4 or OpenMetrics), driven by the metric
// catalogue: every catalogue metric becomes one family, in catalogue order, plus the info families
// gpu_info, gpu_driver_info and gpuwatch_build_info.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "http/exposition.h"

namespace gpuwatch {

// gpuwatch's own version, as gpuwatch_build_info reports it.
std::string_view gpuwatch_version();

// Every native family of the snapshot, in exposition order. A lost GPU contributes gpu_up 0 and gpu_stale 0
// only (nothing stale); a stale GPU contributes gpu_up 0, gpu_stale 1 and its last values.
std::vector<Family> native_families(const Snapshot& snapshot);

// The families about the agent itself (collector errors, ticks, collection time, build info). They are
// valid before the first collection (an empty Snapshot) and are rendered in dcgm naming too.
std::vector<Family> agent_families(const Snapshot& snapshot);

// `extra`: families of other parts of the agent (the history store's health), appended after the agent's own.
std::string render_native(const Snapshot& snapshot, ExpositionFormat format,
                          std::span<const Family> extra = {});

}  // namespace gpuwatch
