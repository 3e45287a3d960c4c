// A detector watches for one failure mode. On every snapshot the DetectorSet hands each detector the
// snapshot, the host's readings published with it and the kernel-log events logged since the previous
// evaluation; the detector updates whatever window of recent values it keeps and appends the Conditions
// that hold now. It never decides whether or
// where an alert is sent: that is the alert engine's job (src/alerting).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/condition.h"
#include "core/snapshot.h"
#include "sources/kernel_log/kernel_event.h"
#include "sources/sysfs/pcie_aer.h"
#include "sources/sysfs/pcie_topology.h"

namespace gpuwatch::detect {

using gpuwatch::Condition;
using gpuwatch::Severity;

// What one evaluation sees: the snapshot and the host's readings published with it (Snapshot::host), by
// reference. Everything but the snapshot may be empty: a detector whose source is missing degrades (no pid on
// an XID, no AER counters), it does not fail.
struct DetectionInput {
  const Snapshot& snapshot;
  const std::vector<kernel::KernelEvent>& kernel_events;    // logged since the last evaluation
  const std::map<std::string, kernel::AerCounters>& aer;    // by normalised bus id, for GPUs with AER files
  const std::optional<std::string>& kernel_module_version;  // /sys/module/nvidia/version
  // CUDA libraries (libcuda.so.*, libcudart.so.*) each GPU process maps, from /proc/<pid>/maps, by pid.
  const std::map<unsigned, std::vector<std::string>>& process_libraries;
  // PCIe links two or more of the snapshot's GPUs share (switch uplinks), from sysfs.
  const std::vector<kernel::SharedPcieLink>& shared_pcie_links;
};

class Detector {
 public:
  virtual ~Detector() = default;
  virtual void evaluate(const DetectionInput& in, std::vector<Condition>& out) = 0;
};

}  // namespace gpuwatch::detect
