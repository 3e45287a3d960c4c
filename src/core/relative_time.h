// Times relative to now as users type them on the command line: "now", "now-1h", "now+30s" (the duration
// in parse_duration's spelling).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch {

// Milliseconds since the epoch, from `now_ms`; nullopt when the text does not start with "now" or what
// follows is not a sign and a duration.
std::optional<std::int64_t> parse_relative_time(std::string_view text, std::int64_t now_ms);

}  // namespace gpuwatch
