// Detection as the agent runs it: the DetectorSet fed one snapshot at a time, with the host's readings
// published with it (Snapshot::host). It reads nothing from the host itself. The agent calls evaluate() with
// each published snapshot (on the detection sink's thread) and hands the conditions to the alert engine.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "config/accounting_settings.h"
#include "detect/detector_set.h"
#include "sources/host/host_snapshot.h"

namespace gpuwatch::detect {

struct DetectionOptions {
  DetectorSettings settings;
  // Prices, so that a waste alert says what the idle GPU costs (config/accounting_settings.h).
  AccountingSettings accounting;
};

class Detection {
 public:
  explicit Detection(DetectionOptions options);
  // Every condition that holds after this snapshot. Snapshots in time order, from one thread; snapshots
  // skipped in between lose no kernel-log event (each snapshot holds a window of the newest).
  std::vector<Condition> evaluate(const Snapshot& snapshot);
  // A reload's prices: the next waste alert's description says them. Thread-safe.
  void set_accounting(AccountingSettings accounting);

 private:
  // Adds container_id, pod_uid and slurm_job to every condition that names a pid, where its cgroup said, and
  // its namespace, pod, container and user where the snapshot names them; to a GPU's condition without a pid,
  // the GPU's holder (label_holder).
  void label_workloads(const Snapshot& snapshot, std::vector<Condition>& conditions);
  void label_holder(const Snapshot& snapshot, Condition& c);
  // A GpuIdleWaste condition's description gains what the GPU costs a day, at its price.
  void price_waste(const Snapshot& snapshot, Condition& c) const;
  struct WorkloadLabels {
    procfs::Workload workload;
    std::vector<std::pair<std::string, std::string>> names;  // namespace, pod, container, slurm_job, user
  };

  DetectorSet detectors_;
  mutable std::mutex accounting_mu_;  // accounting_, which a reload sets from another thread
  std::shared_ptr<const AccountingSettings> accounting_;
  std::uint64_t kernel_events_seen_ = 0;  // HostSnapshot::kernel_events_read at the last evaluation
  // The workload of every pid a condition named, kept while a condition names it, so an alert's labels stay
  // the same while it lasts even after its process (and so its host reading) is gone.
  std::map<unsigned, WorkloadLabels> workloads_;
  // The one user of each GPU's processes when it last had any (by uuid), so that an alert about a GPU whose
  // processes are gone (it fell off the bus) still names whose work it was.
  std::map<std::string, std::string> last_users_;
};

}  // namespace gpuwatch::detect
