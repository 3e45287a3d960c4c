// A snapshot is everything the collector learned in one tick: every device, its processes and events.
// It is immutable once published (shared_ptr<const Snapshot>), so /metrics, the JSON API, the store and the
// rules can all read it concurrently without locks and without ever touching a device.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/metric_catalogue.h"

namespace gpuwatch {

struct HostSnapshot;  // sources/host/host_snapshot.h: what the host said this tick
struct ScrapeResult;  // core/scrape_result.h: one scrape of a service's /metrics

// One value of a catalogue metric. Label values line up with MetricDef::labels (unused ones are empty).
// read_ms is when the value was read: groups read less often than every tick (read_schedule.h) carry their
// last value, and its read time, into the snapshots between reads; 0 means "at the snapshot's time".
struct Sample {
  // Constructors rather than an aggregate so that emplace_back(metric, value) builds a sample in place with
  // every compiler: a temporary moved into the vector costs three string moves, on every sample of every
  // tick.
  Sample() = default;
  Sample(Metric m, double v, std::int64_t read = 0) : metric(m), value(v), read_ms(read) {}
  Sample(Metric m, double v, std::array<std::string, 3> l, std::int64_t read = 0)
      : metric(m), value(v), labels(std::move(l)), read_ms(read) {}

  Metric metric{};
  double value = 0;
  std::array<std::string, 3> labels{};
  std::int64_t read_ms = 0;
};

struct DeviceIdentity {
  unsigned index = 0;  // NVML index at enumeration time; display only, never identity
  std::string uuid;    // identity: "GPU-..." or "MIG-..."
  std::string name;    // "NVIDIA H200"
  std::string serial;
  std::string pci_bus_id;  // normalised sysfs form "0000:3b:00.0"
  std::string vbios_version;
  // MIG instances are devices of their own; these are set only for them.
  bool is_mig_instance = false;
  std::string parent_uuid;
  unsigned gpu_instance_id = 0;
  unsigned compute_instance_id = 0;
};

enum class DeviceState : std::uint8_t {
  kOk,     // read this tick
  kStale,  // a call missed the deadline: values are from the last complete read
  kLost,   // GPU_IS_LOST: fell off the bus
};

// "ok", "stale" or "lost", as the JSON API and `status --query-gpu state` write it.
inline const char* device_state_name(DeviceState s) {
  switch (s) {
    case DeviceState::kStale:
      return "stale";
    case DeviceState::kLost:
      return "lost";
    case DeviceState::kOk:
      break;
  }
  return "ok";
}

struct ProcessSample {
  unsigned pid = 0;
  std::string name;                         // from /proc/<pid>/comm under --proc-root, "" when unknown
  std::string type;                         // "compute" or "graphics" (both when it holds contexts of each)
  std::optional<double> used_memory_bytes;  // absent when NVML says not available
  std::optional<double> sm_utilization;     // 0..1, from per-process utilization samples
  std::optional<double> memory_utilization;
  std::optional<unsigned> gpu_instance_id;  // MIG
  std::optional<unsigned> compute_instance_id;
  // From /proc under --proc-root, by the host reader (sources/procfs/process_details.h); unknown until it
  // read the process, and always when --proc-root is "".
  std::optional<unsigned> uid;  // the real uid
  std::string user;             // the host's passwd name of uid, else uid in decimal; "" when unknown
  std::string command;          // the command line, arguments joined by spaces; "" when unknown
  // The workload it belongs to (collector/workload_names.h): the kubelet's pod and container of its GPU, the
  // Slurm job of its cgroup or of the scheduler's job mapping; "" where not known.
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string slurm_job;
  std::string slurm_account;  // the Slurm account of its job (its environment's SLURM_JOB_ACCOUNT), for teams
  std::string container_id;   // its cgroup's container, "<runtime>://<id>"
  std::string pod_uid;        // its cgroup's pod
};

// Who a GPU (or MIG instance) is allocated to, whether or not anything runs on it: a pod's container (the
// kubelet's PodResources API) or a batch job (the scheduler's job-mapping directory).
struct GpuHolder {
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string slurm_job;
  bool operator==(const GpuHolder&) const = default;
};

struct DeviceSnapshot {
  DeviceIdentity identity;
  DeviceState state = DeviceState::kOk;
  std::int64_t last_read_ms = 0;  // timestamp of the values below
  std::vector<Sample> samples;    // device-scope catalogue samples
  std::vector<ProcessSample> processes;
  std::vector<GpuHolder> holders;  // from the host reading; empty when allocated to nobody or not read
  std::map<unsigned, std::uint64_t> xid_counts;  // cumulative since the agent started, per XID code
  std::optional<unsigned> last_xid;              // dcgm-exporter's DCGM_FI_DEV_XID_ERRORS shows only this
  std::vector<std::string> unsupported;          // calls NVML answered NOT_SUPPORTED for, in call order

  // The first sample of `m` whose first two label values match (an empty filter matches any value).
  const Sample* find(Metric m, std::string_view label0 = {}, std::string_view label1 = {}) const {
    for (const auto& s : samples) {
      if (s.metric == m && (label0.empty() || s.labels[0] == label0) &&
          (label1.empty() || s.labels[1] == label1))
        return &s;
    }
    return nullptr;
  }
};

struct NodeInfo {
  std::string hostname;
  std::string driver_version;
  std::string nvml_version;
  std::string cuda_driver_version;  // "12.4"
  std::string nvml_library;         // path that was loaded
};

// How one source of readings fared in a tick (nvml, kernel_log, pcie_aer, pcie_topology, driver_module,
// procfs): rendered as gpuwatch_source_success, gpuwatch_source_duration_seconds and, while it fails,
// gpuwatch_source_error_info{reason, message}; the agent raises GpuMonitoringDown from it.
struct SourceStatus {
  std::string name;  // "nvml"
  bool success = false;
  double duration_seconds = 0;  // wall time the source took this tick
  // When it failed, a fixed vocabulary: library_not_loaded | driver_not_loaded | driver_version_mismatch |
  // no_permission | init_failed | device_count_failed | reinitialising (nvml); unreadable (kernel_log);
  // deadline_exceeded (a host source whose read overran the tick's deadline: its last reading is carried).
  std::string reason;
  std::string message;  // what was tried and what it answered, for people; "" on success
};

// Counted per (gpu uuid or "" for node-wide calls, call name, NVML return code).
using CollectorErrorKey = std::tuple<std::string, std::string, int>;

struct Snapshot {
  std::uint64_t sequence = 0;     // increases by one per published snapshot
  std::int64_t timestamp_ms = 0;  // from the agent's clock (the wall clock, or a lockstep simulator's)
  NodeInfo node;
  std::vector<DeviceSnapshot> devices;
  std::map<CollectorErrorKey, std::uint64_t> collector_errors;
  double collection_seconds = 0;
  std::uint64_t ticks = 0;
  // Set when no device could be read at all (no library, no driver, init failed): says what was tried.
  std::string source_error;
  std::vector<SourceStatus> sources;  // one per source, in a fixed order; empty before the first tick
  // The host's readings (kernel log, sysfs, /proc); null before the first tick and when none is read.
  std::shared_ptr<const HostSnapshot> host;
  // The scrapes of services' /metrics (src/scrape) that finished since the previous snapshot, each once.
  std::vector<std::shared_ptr<const ScrapeResult>> scrapes;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace gpuwatch
