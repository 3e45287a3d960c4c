// What the detectors read besides the snapshot, gathered once per evaluation: new kernel-log events, the
// GPUs' PCIe AER counters, the PCIe links they share and the loaded driver module's version, from the roots
// the agent was given (--kmsg, --sysfs-root). A missing source leaves its part of the input empty.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "detect/detector.h"
#include "sources/kernel/kmsg_reader.h"
#include "sources/procfs/workload.h"

namespace gpuwatch::detect {

struct DetectionSourceOptions {
  std::string kmsg = "/dev/kmsg";   // "" = do not read the kernel log
  std::string sysfs_root = "/sys";  // "" = do not read sysfs
  std::string proc_root = "/proc";  // "" = do not read processes' mapped libraries
};

class DetectionSources {
 public:
  explicit DetectionSources(DetectionSourceOptions options);
  DetectionInput gather(const Snapshot& snapshot);
  // The container, pod and Slurm job of a process, from its cgroup: read once, then kept until
  // keep_workloads() no longer lists the pid, so an alert's labels stay the same while it lasts even after
  // its process is gone. Empty when /proc is not read or the process was gone before it was read.
  const procfs::Workload& workload(unsigned pid);
  void keep_workloads(const std::set<unsigned>& pids);
  // Null when the kernel log is not read.
  const kernel::KmsgStatus* kmsg_status() const { return kmsg_ ? &kmsg_->status() : nullptr; }

 private:
  DetectionSourceOptions options_;
  std::optional<kernel::KmsgReader> kmsg_;
  std::map<unsigned, std::vector<std::string>> libraries_;  // by pid; a process's mappings are read once
  std::map<unsigned, procfs::Workload> workloads_;          // by pid
  // The shared PCIe links, re-read when the GPUs change and every kTopologyRefreshMs (a link can retrain).
  std::vector<std::string> topology_gpus_;
  std::int64_t topology_read_ms_ = 0;
  std::vector<kernel::SharedPcieLink> shared_links_;
};

}  // namespace gpuwatch::detect
