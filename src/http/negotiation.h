// Content negotiation for /metrics: reading Accept and Accept-Encoding headers.
#pragma once

#include <string_view>

namespace gpuwatch {

// True when the comma-separated header lists `token` (compared case-insensitively, parameters ignored)
// with a quality above zero: header_accepts("gzip;q=0.5, br", "gzip") is true, "gzip;q=0" is false.
bool header_accepts(std::string_view header, std::string_view token);

}  // namespace gpuwatch
