// Durations as users write them in flags, configs and scenarios: Prometheus style, a sequence of
// <number><unit> with units ms, s, m, h, d, w ("90s", "1h30m", "100ms").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

// Returns nullopt when the text is not a duration; an empty string is not a duration.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// The shortest spelling parse_duration() reads back to the same value ("1m30s", "250ms").
std::string format_duration(std::chrono::milliseconds d);

}  // namespace gpuwatch
