// The host's sources, read once per tick on the collector's side: the kernel log (kernel_log), PCIe AER
// counters (pcie_aer), the PCIe links GPUs share (pcie_topology), the loaded driver module (driver_module)
// each GPU process's mapped CUDA libraries, cgroup workload, user and command line (procfs), the kubelet's
// device allocations (kubelet) and the batch scheduler's job mapping (hpc_job_mapping). Every root
// comes from the options, so tests point them at fake trees; a root given as "" is not read and its source
// not reported.
//
// Each part reads at its own cadence: the kernel log without blocking on every read, AER counters and the
// module version on every read, the topology every 10 s or when the GPUs change, a process once. Not
// thread-safe: the collector runs read() on one worker at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "sources/host/host_snapshot.h"
#include "sources/kubelet/kubelet_reader.h"

namespace gpuwatch {

struct HostSourceOptions {
  std::string kmsg;        // /dev/kmsg or a recorded copy; "" = do not read the kernel log
  std::string sysfs_root;  // /sys; "" = do not read AER counters, topology or the driver module
  std::string proc_root;   // /proc; "" = do not read processes' mapped libraries, cgroups, users, commands
  // The kubelet's PodResources socket (kubelet); "" = not read.
  std::string pod_resources_socket;
  // dcgm-exporter's HPC job-mapping directory (hpc_job_mapping); "" = not read.
  std::string hpc_job_mapping_dir;
  // The kubelet module that reads the socket; "" = the one next to the binary. Loaded only with a socket.
  std::string kubelet_module;
};

// What the host is asked about: the snapshot's GPUs (normalised bus ids, physical GPUs only) and processes.
struct HostRequest {
  std::int64_t now_ms = 0;
  std::vector<std::string> gpu_bus_ids;
  std::vector<unsigned> pids;  // sorted, unique
  // When the tick's host read must be done; a source that can wait on a peer (the kubelet) waits no longer.
  // Unset: a short deadline of the source's own.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct HostReading {
  std::shared_ptr<const HostSnapshot> host;
  std::vector<SourceStatus> sources;  // one per source read, in source_names() order
};

class HostReader {
 public:
  // `resume_from`: the last reading of the reader this one replaces (a reload), or null. The kernel log
  // carries on from it, with its events and counts, instead of reading the whole ring buffer again as news.
  explicit HostReader(HostSourceOptions options,
                      const std::shared_ptr<const HostSnapshot>& resume_from = nullptr);
  HostReading read(const HostRequest& request);
  // The sources this reader reads, in the order read() reports them.
  const std::vector<std::string>& source_names() const { return names_; }

  static constexpr std::size_t kKernelEventWindow = 1024;
  static constexpr std::int64_t kTopologyRefreshMs = 10'000;

 private:
  void read_kernel_log(HostSnapshot& host, std::vector<SourceStatus>& out);
  void read_sysfs(const HostRequest& request, HostSnapshot& host, std::vector<SourceStatus>& out);
  void read_procfs(const HostRequest& request, HostSnapshot& host, std::vector<SourceStatus>& out);
  void read_workload_names(const HostRequest& request, HostSnapshot& host, std::vector<SourceStatus>& out);

  HostSourceOptions options_;
  std::vector<std::string> names_;
  std::optional<kernel::KmsgReader> kmsg_;
  std::shared_ptr<const std::vector<kernel::KernelEvent>> events_ =
      std::make_shared<const std::vector<kernel::KernelEvent>>();
  std::uint64_t events_read_ = 0;
  std::map<std::string, std::uint64_t> event_counts_;
  std::vector<std::string> topology_gpus_;
  std::int64_t topology_read_ms_ = 0;
  std::shared_ptr<const std::vector<kernel::SharedPcieLink>> shared_links_ =
      std::make_shared<const std::vector<kernel::SharedPcieLink>>();
  std::vector<unsigned> pids_;
  std::shared_ptr<const std::map<unsigned, std::vector<std::string>>> libraries_ =
      std::make_shared<const std::map<unsigned, std::vector<std::string>>>();
  std::shared_ptr<const std::map<unsigned, procfs::Workload>> workloads_ =
      std::make_shared<const std::map<unsigned, procfs::Workload>>();
  std::shared_ptr<const std::map<unsigned, procfs::ProcessDetails>> details_ =
      std::make_shared<const std::map<unsigned, procfs::ProcessDetails>>();
  procfs::UserNames users_;  // the host's passwd, for every process this reader reads
  std::optional<kubelet::KubeletReader> kubelet_;
  std::shared_ptr<const hpc_jobs::JobMapping> jobs_ = std::make_shared<const hpc_jobs::JobMapping>();
};

}  // namespace gpuwatch
