// Downsampling of old blocks: one block's samples become one point a minute (step_ms) per rollup. The
// point's timestamp is that of the last sample in the minute, so the "last" rollup is an exact sample
// (counters and rate() stay exact); min, max and avg ignore NaN (stale markers), count counts the others.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace gpuwatch::store {

// Suffixes of the rollup series' names: "gpu_power_watts" keeps one sample a minute (the last) under its own
// name, and gets gpu_power_watts:1m_min, :1m_max, :1m_avg and :1m_count beside it.
inline constexpr std::array<std::string_view, 4> kRollupSuffixes = {":1m_min", ":1m_max", ":1m_avg",
                                                                    ":1m_count"};

struct Rollup {
  std::vector<std::int64_t> t;
  std::vector<double> last;
  std::array<std::vector<double>, 4> by_suffix;  // in kRollupSuffixes order
};

Rollup roll_up(std::span<const std::int64_t> t, std::span<const double> v, std::int64_t step_ms);

}  // namespace gpuwatch::store
