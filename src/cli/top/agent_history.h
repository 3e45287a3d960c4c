// The history an agent already holds, for `top --url` to plot from its first frame: range queries of the
// agent's Prometheus API over the last points at the interval, as each GPU's utilization, memory, power and
// temperature ratios (gpu_history.h).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "cli/top/gpu_history.h"

namespace gpuwatch::top {

// The expressions asked, in GpuHistory's order: utilization, memory, power, temperature (each 0..1).
inline constexpr std::array<std::string_view, 4> kHistoryQueries = {
    "gpu_utilization_ratio",
    "gpu_memory_used_bytes / gpu_memory_total_bytes",
    "gpu_power_watts / gpu_power_limit_watts",
    "gpu_temperature_celsius / 100",
};

// By GPU UUID, from the four /api/v1/query_range answers (start, step in seconds, `points` steps): a step
// without a value is NaN, so gaps stay gaps. A GPU's series are MIG instances' too; the answers' other series
// (without a uuid label) are left out.
std::map<std::string, GpuHistory> history_from_agent(const std::array<nlohmann::json, 4>& answers,
                                                     double start, double step, std::size_t points);

}  // namespace gpuwatch::top
