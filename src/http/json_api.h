// The JSON view of a snapshot, served at /api/v1/gpus and printed by `gpuwatch status --json`. Its schema is
// documented in docs/metrics.md ("JSON schema") and versioned by schema_version: fields may be added within a
// version; a field is never renamed, retyped or removed without raising it.
#pragma once

#include <nlohmann/json.hpp>

#include "core/snapshot.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

inline constexpr int kJsonSchemaVersion = 1;

// Each GPU's `health` is assess_health() with these settings (the detectors').
nlohmann::json snapshot_to_json(const Snapshot& snapshot, const rules::DetectorSettings& settings = {});

// The schema section of docs/metrics.md, kept next to the code that must honour it.
std::string_view json_schema_markdown();

}  // namespace gpuwatch
