// The ECC and memory-repair detector's tunables, each an option detect.ecc.<name> (docs/configuration.md);
// the detector reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct EccSettings {
  unsigned corrected_storm_count = 10;
  milliseconds storm_window = 10min;
  unsigned retired_pages_limit = 63;
  unsigned uncorrectable_remapped_rows_limit = 512;
};

inline constexpr Tunables<EccSettings, 4> kEccTunables = {
    "ecc",
    {{
        {"corrected_storm_count", &EccSettings::corrected_storm_count, TunableUnit::kCount,
         "Corrected errors within storm_window that make a storm", 1},
        {"storm_window", &EccSettings::storm_window, TunableUnit::kDuration,
         "The window corrected errors are counted over", 60000},
        {"retired_pages_limit", &EccSettings::retired_pages_limit, TunableUnit::kCount,
         "Retired pages at which the memory repair budget is used up (DCGM's threshold)", 1},
        {"uncorrectable_remapped_rows_limit", &EccSettings::uncorrectable_remapped_rows_limit,
         TunableUnit::kCount,
         "Rows remapped for uncorrectable errors at which the repair budget is used up (DCGM's)", 1},
    }}};

}  // namespace gpuwatch::rules
