// Text that came from outside the agent (process names, cmdlines, cgroup paths, hostnames, kernel-log lines,
// imported or scraped label values) is made valid UTF-8 and bounded in length here, once, before it reaches a
// label, a JSON document or a file: Prometheus rejects a whole scrape over one invalid label value, and
// nlohmann::json throws on one when dumping.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuwatch {

// The longest text the agent keeps from one outside string, unless a caller asks for less.
inline constexpr std::size_t kMaxOutsideTextBytes = 4096;

// Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text);

// `text` with every ill-formed sequence replaced by U+FFFD, cut at a character boundary so that the result
// holds at most `max_bytes` bytes; a cut text ends in "..." within that bound. Valid text within the bound is
// returned unchanged.
std::string to_valid_utf8(std::string_view text, std::size_t max_bytes = kMaxOutsideTextBytes);

}  // namespace gpuwatch
