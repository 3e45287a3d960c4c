// The XID detector's tunables, each an option detect.xid.<name> (docs/configuration.md); the detector
// reads them, and so does the health verdict where it judges the same thing.
#pragma once

#include <array>

#include "rules/tunable.h"

namespace gpuwatch::rules {

struct XidSettings {
  milliseconds hold = 1h;
  unsigned repeat_count = 3;
  milliseconds repeat_window = 10min;
};

inline constexpr std::array<TunableField<XidSettings>, 3> kXidTunables = {{
    {"hold", &XidSettings::hold, TunableUnit::kDuration,
     "An XID alert holds this long after the XID (like increase(...[1h]) > 0)", 1000},
    {"repeat_count", &XidSettings::repeat_count, TunableUnit::kCount,
     "Application XIDs this often within repeat_window escalate to a page", 2},
    {"repeat_window", &XidSettings::repeat_window, TunableUnit::kDuration,
     "The window repeat_count is counted over", 1000},
}};

}  // namespace gpuwatch::rules
