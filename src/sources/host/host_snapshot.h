// What the host (not NVML) said in one tick: kernel-log events, PCIe AER counters, the PCIe links GPUs share,
// the loaded driver module, and for each GPU process its mapped CUDA libraries, its workload (cgroup), its
// user and its command line. It is published with the snapshot (Snapshot::host) and immutable: /metrics, the
// store, the JSON API and the detectors read it; none of them reads the host. Parts that rarely change are
// shared between snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sources/hpc_jobs/job_mapping.h"
#include "sources/kernel_log/kernel_event.h"
#include "sources/kernel_log/kmsg_reader.h"
#include "sources/kubelet/device_allocation.h"
#include "sources/procfs/process_details.h"
#include "sources/procfs/workload.h"
#include "sources/sysfs/pcie_aer.h"
#include "sources/sysfs/pcie_topology.h"

namespace gpuwatch {

struct HostSnapshot {
  // The newest kernel-log events, oldest first: a bounded window shared until a new event arrives, so a
  // consumer that skipped snapshots (a full queue) still finds the events it has not seen.
  std::shared_ptr<const std::vector<kernel::KernelEvent>> kernel_events;
  std::uint64_t kernel_events_read = 0;  // events read since the agent started; the window is the last ones
  std::map<std::string, std::uint64_t>
      kernel_event_counts;                           // by kind (to_string(KernelEventKind)), ever read
  std::optional<kernel::KmsgStatus> kernel_log;      // nullopt when the kernel log is not read (--kmsg "")
  std::map<std::string, kernel::AerCounters> aer;    // by normalised bus id, for the GPUs that have AER files
  std::optional<std::string> kernel_module_version;  // /sys/module/nvidia/version
  // PCIe links two or more GPUs share (switch uplinks), re-read every 10 s and when the GPUs change.
  std::shared_ptr<const std::vector<kernel::SharedPcieLink>> shared_pcie_links;
  // By pid, for the snapshot's GPU processes; each process is read once. Shared while the pids stay the same.
  std::shared_ptr<const std::map<unsigned, std::vector<std::string>>> process_libraries;
  std::shared_ptr<const std::map<unsigned, procfs::Workload>> workloads;
  // Who runs each and how (the collector copies them into the snapshot's ProcessSamples).
  std::shared_ptr<const std::map<unsigned, procfs::ProcessDetails>> process_details;
  // Which pod's container each GPU or MIG instance is allocated to (the kubelet's PodResources API); null
  // when the kubelet is not read. Shared while unchanged.
  std::shared_ptr<const kubelet::PodResourcesReading> pod_resources;
  // The batch jobs on each GPU by dcgm-exporter's file name ("0", "2.0"); null when not read.
  std::shared_ptr<const hpc_jobs::JobMapping> hpc_jobs;
};

}  // namespace gpuwatch
