// The JSON view of a snapshot, served at /api/v1/gpus and printed by `gpuwatch status --json`. Its schema is
// documented in docs/metrics.md ("JSON schema") and versioned by schema_version: fields may be added within a
// version; a field is never renamed, retyped or removed without raising it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/snapshot.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

inline constexpr int kJsonSchemaVersion = 1;

// What a client asked /api/v1/gpus to leave out: a page that shows only each GPU's process count, or one
// GPU's processes, should not pay for every process on the node (1,000 of them are half a megabyte).
struct GpusSelection {
  bool processes = true;           // false: each GPU's `processes` is left out; `process_count` stays
  std::optional<std::string> gpu;  // an index (the GPU and its MIG instances) or a UUID; unset: every GPU
};

// The selection from the query parameters `processes` (`true` or `false`) and `gpu` (an index or a UUID),
// each absent when not given. Throws std::invalid_argument with the message a 400 answers.
GpusSelection parse_gpus_selection(std::optional<std::string_view> processes,
                                   std::optional<std::string_view> gpu);

// Each GPU's `health` is assess_health() with these settings (the detectors'). Throws std::invalid_argument
// when `selection` names a GPU the snapshot does not have.
nlohmann::json snapshot_to_json(const Snapshot& snapshot, const rules::DetectorSettings& settings = {},
                                const GpusSelection& selection = {});

// The schema section of docs/metrics.md, kept next to the code that must honour it.
std::string_view json_schema_markdown();

}  // namespace gpuwatch
