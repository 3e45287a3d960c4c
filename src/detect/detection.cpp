#include "detect/detection.h"

#include <charconv>

namespace gpuwatch::detect {
namespace {

// What a snapshot without host readings (none configured, or before the first tick) stands for.
const HostSnapshot& no_host() {
  static const HostSnapshot empty;
  return empty;
}

template <typename T>
const T& or_empty(const std::shared_ptr<const T>& p) {
  static const T empty{};
  return p ? *p : empty;
}

}  // namespace

Detection::Detection(DetectionOptions options) : detectors_(options.settings) {}

std::vector<Condition> Detection::evaluate(const Snapshot& snapshot) {
  const HostSnapshot& host = snapshot.host ? *snapshot.host : no_host();
  // The events read since the last evaluation: the tail of the window past what was seen. Fewer read than
  // seen means a new reader (a reloaded collector): everything it holds is new.
  std::vector<kernel::KernelEvent> fresh;
  if (host.kernel_events) {
    const auto& window = *host.kernel_events;
    if (host.kernel_events_read < kernel_events_seen_) kernel_events_seen_ = 0;
    const std::uint64_t unseen = host.kernel_events_read - kernel_events_seen_;
    const auto skip = window.size() > unseen ? window.size() - unseen : 0;
    fresh.assign(window.begin() + static_cast<std::ptrdiff_t>(skip), window.end());
    kernel_events_seen_ = host.kernel_events_read;
  }
  const DetectionInput input{snapshot,
                             fresh,
                             host.aer,
                             host.kernel_module_version,
                             or_empty(host.process_libraries),
                             or_empty(host.shared_pcie_links)};
  auto conditions = detectors_.evaluate(input);
  label_workloads(snapshot, conditions);
  return conditions;
}

void Detection::label_workloads(const Snapshot& snapshot, std::vector<Condition>& conditions) {
  const auto& read = or_empty((snapshot.host ? *snapshot.host : no_host()).workloads);
  std::map<unsigned, procfs::Workload> kept;
  for (auto& c : conditions) {
    const auto pid_label = c.labels.find("pid");
    if (pid_label == c.labels.end()) continue;
    unsigned pid = 0;
    const auto& text = pid_label->second;
    if (std::from_chars(text.data(), text.data() + text.size(), pid).ec != std::errc{}) continue;
    auto known = workloads_.find(pid);
    if (known == workloads_.end()) {
      const auto it = read.find(pid);
      // A pid the host did not read (its process was gone before it was seen) keeps an empty workload.
      known = workloads_.emplace(pid, it != read.end() ? it->second : procfs::Workload{}).first;
    }
    const procfs::Workload& w = known->second;
    kept.emplace(pid, w);
    if (!w.container_id.empty()) c.labels["container_id"] = w.container_id;
    if (!w.pod_uid.empty()) c.labels["pod_uid"] = w.pod_uid;
    if (!w.slurm_job.empty()) c.labels["slurm_job"] = w.slurm_job;
  }
  workloads_ = std::move(kept);
}

}  // namespace gpuwatch::detect
