// Number spellings of the exposition formats: sample values (Go's float syntax as Prometheus accepts it:
// decimal or exponent, a leading '+', Inf, +Inf, -Inf, NaN in any case), integer millisecond timestamps
// (text 0.0.4) and decimal second timestamps (OpenMetrics). Each returns false unless the whole token is a
// number of that kind.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpuwatch::ingest {

bool parse_sample_value(std::string_view token, double& out);
bool parse_timestamp_ms(std::string_view token, std::int64_t& out);
// Seconds with an optional fraction, to milliseconds: exact for up to three decimals, rounded to the
// nearest millisecond (half away from zero) beyond; exponent forms go through a double.
bool parse_timestamp_seconds(std::string_view token, std::int64_t& out_ms);

}  // namespace gpuwatch::ingest
