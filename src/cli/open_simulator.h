// The simulator as the `sim` subcommands load it: the library next to gpuwatch (or --nvml-library), with the
// scenario of --sim-scenario, initialised so that it has loaded (and validated) the scenario.
#pragma once

#include <memory>

#include "config/agent_options.h"
#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

// Null after printing why to stderr, with exit_code set (kExitUsage, kExitNoGpu). The caller shuts it down.
std::shared_ptr<NvmlLibrary> open_simulator(AgentOptions& options, int& exit_code);

}  // namespace gpuwatch
