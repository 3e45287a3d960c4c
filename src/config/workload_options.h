// Rows of the options table for workload names and accounting (workload_options.cpp).
#pragma once

#include <vector>

#include "config/agent_options.h"

namespace gpuwatch {

std::vector<OptionSpec> workload_options();

}  // namespace gpuwatch
