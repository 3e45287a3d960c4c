// How `gpuwatch query` prints a Prometheus API answer: json (the answer as the API gives it), csv (one row
// per point) or table (one row per series; a range result adds a Unicode sparkline with min/max/last).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gpuwatch {

enum class QueryFormat { kTable, kJson, kCsv };

// `response` is a successful API answer ({"status":"success","data":{...}}).
std::string format_query_response(const nlohmann::json& response, QueryFormat format);

// Eight-level block characters for the values, scaled between their min and max; NaN as a space.
std::string sparkline(const std::vector<double>& values);

}  // namespace gpuwatch
