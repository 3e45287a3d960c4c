// Parameters of Prometheus's HTTP API: times as unix seconds (float) or RFC 3339, durations as float
// seconds or Prometheus durations ("30s", "1m"). Errors are QueryError(bad_data) with Prometheus's words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::query {

// Milliseconds since the epoch, or nullopt when the text is neither form.
std::optional<std::int64_t> parse_api_time(const std::string& text);
std::optional<std::int64_t> parse_api_duration(const std::string& text);

// The same, throwing `invalid parameter "NAME": cannot parse "TEXT" to a valid timestamp|duration`.
std::int64_t time_param(const std::string& name, const std::string& text);
std::int64_t duration_param(const std::string& name, const std::string& text);

}  // namespace gpuwatch::query
