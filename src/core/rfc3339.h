// RFC 3339 times, the one spelling of instants in the APIs (query start/end, silences, alerts) and scenarios.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

// "2026-12-01T02:00:00Z", "2026-12-01T02:00:00.123456789+01:00", lower-case t and z allowed: milliseconds
// since the Unix epoch (a finer fraction is truncated). nullopt for anything else, including fields out of
// range (month 13, February 30, hour 24, a leap second) and years outside 0000..9999.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text);

// Milliseconds since the epoch in UTC with three fraction digits, "2026-12-01T02:00:00.000Z". Times outside
// the years 0000..9999 are clamped to them.
std::string format_rfc3339_ms(std::int64_t ms);

}  // namespace gpuwatch
