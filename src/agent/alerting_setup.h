// Builds the agent's alerting from its options (tokens, maintenance windows, URLs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "alerting/alerting_service.h"
#include "config/agent_options.h"

namespace gpuwatch {

// The bearer token in `path` (surrounding whitespace trimmed); "" with `error` set (file and reason) when
// the file cannot be read or holds no token.
std::string read_api_token(const std::string& path, std::string& error);

// `external_url` is how users reach the agent, for the alerts' links (the agent's external_url, or the
// default for the address it bound). Null with `error` set when a URL is malformed. A token file or a
// maintenance-window file that cannot be used degrades only its part: each problem is logged, mutations are
// refused with the reason, and the windows concerned are left out (gpuwatch_silences_load_errors counts
// them).
std::unique_ptr<alerting::AlertingService> make_alerting(const AgentOptions& options,
                                                         const std::string& external_url,
                                                         std::function<std::int64_t()> now,
                                                         std::string& error);

}  // namespace gpuwatch
