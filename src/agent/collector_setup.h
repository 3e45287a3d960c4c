// From the user's settings to a collector. Running on the bundled simulator: `--sim-scenario FILE` hands the
// scenario to libnvml-sim through its environment variable and, when no NVML library was named, picks the
// simulator next to the binary (the build tree's sim-lib/, or the installed PREFIX/lib/gpuwatch/sim/).
#pragma once

#include <string>

#include "collector/collector.h"
#include "config/agent_options.h"

namespace gpuwatch {

// Call before the NVML library is opened. Returns an error message, or "" when all is well.
std::string prepare_simulator(AgentOptions& options);
// The part of prepare_simulator that touches no environment (safe once threads run, as on reload): with a
// scenario and no NVML library named, the simulator next to gpuwatch.
std::string locate_simulator(AgentOptions& options);

// The collector's share of the user's settings; `replaced` is the last snapshot of the collector this one
// replaces (a reload), null at start.
CollectorOptions collector_options(const AgentOptions& options, const SnapshotPtr& replaced = nullptr);

}  // namespace gpuwatch
