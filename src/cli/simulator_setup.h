// Running on the bundled simulator: `--sim-scenario FILE` hands the scenario to libnvml-sim through its
// environment variable and, when no NVML library was named, picks the simulator built next to the binary.
#pragma once

#include <string>

#include "config/agent_options.h"

namespace gpuwatch {

// Call before the NVML library is opened. Returns an error message, or "" when all is well.
std::string prepare_simulator(AgentOptions& options);

}  // namespace gpuwatch
