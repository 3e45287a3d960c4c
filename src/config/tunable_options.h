// The options generated from the tunables of the detector table (src/detect/detector_table.h): one per
// tunable, named detect.<detector>.<tunable>, parsed and range-checked by its unit (duration, fraction or
// percentage, count, size, watts, degrees), shown in the unit's spelling. The option table appends them to
// its own rows.
#pragma once

#include <vector>

#include "config/agent_options.h"

namespace gpuwatch {

std::vector<OptionSpec> tunable_options();

}  // namespace gpuwatch
