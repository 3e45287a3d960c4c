// Builds the agent's alerting from its options (tokens, maintenance windows, URLs) and feeds it snapshots.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "alerting/alerting_service.h"
#include "config/agent_options.h"
#include "core/snapshot.h"
#include "detect/detection.h"

namespace gpuwatch {

// The bearer token in `path` (surrounding whitespace trimmed); "" with `error` set (file and reason) when
// the file cannot be read or holds no token.
std::string read_api_token(const std::string& path, std::string& error);

// Null with `error` set when a URL is malformed. A token file or a
// maintenance-window file that cannot be used degrades only its part: each problem is logged, mutations are
// refused with the reason, and the windows concerned are left out (gpuwatch_silences_load_errors counts
// them).
std::unique_ptr<alerting::AlertingService> make_alerting(const AgentOptions& options,
                                                         std::function<std::int64_t()> now,
                                                         std::string& error);

// One evaluation on a snapshot: the conditions the detectors find in it, at its timestamp (the agent's
// clock). Snapshots in time order, from one thread (the collector's).
void evaluate_alerts(alerting::AlertingService& alerting, detect::Detection& detection,
                     const Snapshot& snapshot);

}  // namespace gpuwatch
