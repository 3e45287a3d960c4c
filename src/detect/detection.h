// Detection as the agent runs it: the extra sources (kernel log, sysfs) and the DetectorSet, fed one snapshot
// at a time. The agent calls evaluate() with each published snapshot (on the detection sink's thread) and
// hands the conditions to the alert engine.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/agent_options.h"
#include "detect/detection_sources.h"
#include "detect/detector_set.h"
#include "http/exposition.h"

namespace gpuwatch::detect {

struct DetectionOptions {
  DetectionSourceOptions sources;
  DetectorSettings settings;
};

// --kmsg, --sysfs-root and the detector options of the agent's configuration.
DetectionOptions detection_options(const AgentOptions& options);

class Detection {
 public:
  explicit Detection(DetectionOptions options);
  // Every condition that holds after this snapshot. Snapshots in time order, from one thread.
  std::vector<Condition> evaluate(const Snapshot& snapshot);
  // nullopt when the kernel log is not read; else whether it is readable and why not. Thread-safe.
  std::optional<kernel::KmsgStatus> kmsg_status() const;
  // The kernel-log reader's state as /metrics families (gpuwatch_kernel_log_readable, ..._records_total,
  // ..._open_failures_total, ..._overruns_total), and the PCIe links GPUs share (gpu_pcie_shared_link_info,
  // gpu_pcie_shared_link_capacity_bytes_per_second), for HttpServerOptions::extra_metrics. Thread-safe.
  void append_metrics(std::string& out, ExpositionFormat format) const;

 private:
  struct SharedLinkView {
    kernel::SharedPcieLink link;
    std::vector<std::pair<std::string, std::string>> gpus;  // index and uuid of each GPU below it
  };
  void append_link_metrics(std::string& out, ExpositionFormat format) const;
  // Adds container_id, pod_uid and slurm_job to every condition that names a pid, where its cgroup says.
  void label_workloads(const Snapshot& snapshot, std::vector<Condition>& conditions);

  DetectionSources sources_;
  DetectorSet detectors_;
  mutable std::mutex status_mutex_;
  std::optional<kernel::KmsgStatus> kmsg_status_;  // copied after each evaluation for other threads
  std::vector<SharedLinkView> shared_links_;       // likewise
};

}  // namespace gpuwatch::detect
