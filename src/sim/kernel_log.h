// The kernel-log records a real node would have logged for the scenario up to scenario time t: the driver
// loading, NVRM: Xid lines (with pid and process name) for every XID fault, the fallen-off-the-bus message,
// PCIe AER corrected errors while replays grow, and driver unload/load around reloads. A pure function of
// (scenario, t), written in /dev/kmsg record format so gpuwatch's kernel-log reader reads it like the real
// one.
#pragma once

#include <string>

#include "sim/simulator.h"

namespace gpuwatch::sim {

// Record times (microseconds since boot) count wall seconds: wall_per_second of them per scenario second.
std::string kernel_log_text(const Node& node, double t, double wall_per_second = 1);

// Brings the file at `path` up to the log at scenario time t by appending what it lacks (a reader that keeps
// the file open sees only new records); rewrites it when it holds something else.
bool write_kernel_log(const std::string& path, const Node& node, double t, double wall_per_second = 1);

}  // namespace gpuwatch::sim
