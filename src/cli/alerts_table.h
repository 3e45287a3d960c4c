// `gpuwatch alerts`' table, from the alerts of an agent's /api/v1/alerts: pages before tickets, then by GPU
// (in number order; node-wide alerts last) and alert name, so the alert to act on comes first.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuwatch {

// `alerts`: the API's data.alerts array. A muted alert's state carries a "*", explained under the table.
std::string render_alerts_table(const nlohmann::json& alerts);

}  // namespace gpuwatch
