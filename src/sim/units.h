// Quantities as scenario authors write them: durations ("90s", "1h30m", or plain seconds), sizes ("80GiB",
// "512MiB", "2GB", or plain bytes), power ("700W"), and rates ("50MiB/s", "10/m").
#pragma once

#include <optional>
#include <string_view>

namespace gpuwatch::sim {

std::optional<double> parse_seconds(std::string_view text);
std::optional<double> parse_bytes(std::string_view text);
std::optional<double> parse_watts(std::string_view text);
// "<amount>/<s|m|h>" as amount per second; `amount` is read by parse_bytes when `bytes`, else as a count.
std::optional<double> parse_rate(std::string_view text, bool bytes);

}  // namespace gpuwatch::sim
