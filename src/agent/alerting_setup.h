// Builds the agent's alerting from its options (tokens, maintenance windows, URLs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "alerting/alerting_service.h"
#include "config/agent_options.h"

namespace gpuwatch {

// Null with `error` set when a file the options name cannot be read or parsed (file and reason), or the
// data dir cannot be used.
std::unique_ptr<alerting::AlertingService> make_alerting(const AgentOptions& options,
                                                         std::function<std::int64_t()> now,
                                                         std::string& error);

}  // namespace gpuwatch
