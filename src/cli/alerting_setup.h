// Builds the agent's alerting from its options (tokens, maintenance windows, URLs) and feeds it snapshots.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "alerting/alerting_service.h"
#include "config/agent_options.h"
#include "core/snapshot.h"

namespace gpuwatch {

// Null with `error` set when a file the options name cannot be read or parsed (file and reason), or the
// data dir cannot be used.
std::unique_ptr<alerting::AlertingService> make_alerting(const AgentOptions& options,
                                                         std::function<std::int64_t()> now,
                                                         std::string& error);

// One evaluation on a snapshot: the conditions that hold in it, at its timestamp (the agent's clock).
void evaluate_alerts(alerting::AlertingService& alerting, const Snapshot& snapshot);

}  // namespace gpuwatch
