// Renders a snapshot with gpuwatch's native metric names (text 0.0.4 or OpenMetrics), driven by the metric
// catalogue: every catalogue metric becomes one family, in catalogue order, plus the info families
// gpu_info, gpu_driver_info, gpuwatch_build_info and the families of the host reading (the PCIe links GPUs
// share).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "exposition/exposition.h"

namespace gpuwatch {

// gpuwatch's own version, as gpuwatch_build_info reports it.
std::string_view gpuwatch_version();

// Every native family of the snapshot, in exposition order. A lost GPU contributes gpu_up 0 and gpu_stale 0
// only (nothing stale); a stale GPU contributes gpu_up 0, gpu_stale 1 and its last values.
std::vector<Family> native_families(const Snapshot& snapshot);

// The families about the agent itself (collector errors, ticks, collection time, build info). They are
// valid before the first collection (an empty Snapshot) and are rendered in dcgm naming too.
std::vector<Family> agent_families(const Snapshot& snapshot);

// The families /metrics serves that the history does not keep, each for a reason (docs/metrics.md,
// "Not stored"). Everything else /metrics serves in native naming is stored.
struct NotStoredFamily {
  std::string_view name;
  std::string_view reason;
};
inline constexpr std::array kNotStoredFamilies = {
    NotStoredFamily{"gpuwatch_source_error_info",
                    "its message label says what was tried and when the next try is (\"retrying in 8 s\"): "
                    "a new series every tick while a source fails; gpuwatch_source_success is stored"},
};
bool is_stored(std::string_view family);

std::string render_native(const Snapshot& snapshot, ExpositionFormat format, const ExtraFamilies& extra = {});

}  // namespace gpuwatch
