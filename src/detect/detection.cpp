#include "detect/detection.h"

#include <fmt/format.h>

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

Detection::Detection(DetectionOptions options)
    : detectors_(options.settings),
      accounting_(std::make_shared<const AccountingSettings>(std::move(options.accounting))) {}

void Detection::set_accounting(AccountingSettings accounting) {
  auto reloaded = std::make_shared<const AccountingSettings>(std::move(accounting));
  std::lock_guard lock(accounting_mu_);
  accounting_ = std::move(reloaded);
}

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
  for (const auto& d : snapshot.devices) {
    if (d.processes.empty()) continue;  // keeps the last user of a GPU whose processes went
    std::string user = d.processes.front().user;
    for (const auto& p : d.processes)
      if (p.user != user) user.clear();
    last_users_[d.identity.uuid] = user;
  }
  const auto& read = or_empty((snapshot.host ? *snapshot.host : no_host()).workloads);
  std::map<unsigned, WorkloadLabels> kept;
  for (auto& c : conditions) {
    const auto pid_label = c.labels.find("pid");
    if (pid_label == c.labels.end()) {
      label_holder(snapshot, c);
      if (c.alertname == "GpuIdleWaste") price_waste(snapshot, c);
      continue;
    }
    unsigned pid = 0;
    const auto& text = pid_label->second;
    if (std::from_chars(text.data(), text.data() + text.size(), pid).ec != std::errc{}) continue;
    auto known = workloads_.find(pid);
    if (known == workloads_.end()) {
      // A pid the host did not read (its process was gone before it was seen) keeps an empty workload.
      const auto it = read.find(pid);
      WorkloadLabels w{it != read.end() ? it->second : procfs::Workload{}, {}};
      for (const auto& d : snapshot.devices) {
        for (const auto& p : d.processes) {
          if (p.pid != pid) continue;
          w.names = {{"namespace", p.namespace_name},
                     {"pod", p.pod},
                     {"container", p.container},
                     {"slurm_job", p.slurm_job},
                     {"user", p.user}};
        }
      }
      known = workloads_.emplace(pid, std::move(w)).first;
    }
    const WorkloadLabels& w = known->second;
    kept.emplace(pid, w);
    if (!w.workload.container_id.empty()) c.labels["container_id"] = w.workload.container_id;
    if (!w.workload.pod_uid.empty()) c.labels["pod_uid"] = w.workload.pod_uid;
    if (!w.workload.slurm_job.empty()) c.labels["slurm_job"] = w.workload.slurm_job;
    for (const auto& [name, value] : w.names)
      if (!value.empty()) c.labels[name] = value;
    // A process not seen (gone before it was read): its GPU's holder says whose it was.
    if (!c.labels.contains("pod") && !c.labels.contains("slurm_job")) label_holder(snapshot, c);
  }
  workloads_ = std::move(kept);
}

void Detection::price_waste(const Snapshot& snapshot, Condition& c) const {
  const auto uuid = c.labels.find("uuid");
  if (uuid == c.labels.end()) return;
  std::shared_ptr<const AccountingSettings> accounting;
  {
    std::lock_guard lock(accounting_mu_);
    accounting = accounting_;
  }
  for (const auto& d : snapshot.devices) {
    if (d.identity.uuid != uuid->second) continue;
    const double price = accounting->price_of(d.identity.name);
    if (price > 0)
      c.description +=
          fmt::format("; held idle it costs {:.2f} a day at {:.2f} per GPU-hour", price * 24, price);
    return;
  }
}

// A GPU's condition without a process (idle waste, a lost GPU), or whose process was not seen: the GPU's one
// holder, the pod or job it is allocated to, and the user when every process on it runs (or last ran) as the
// same one. Labels the condition has already are kept.
void Detection::label_holder(const Snapshot& snapshot, Condition& c) {
  const auto uuid = c.labels.find("uuid");
  if (uuid == c.labels.end()) return;
  for (const auto& d : snapshot.devices) {
    if (d.identity.uuid != uuid->second) continue;
    if (d.holders.size() == 1) {
      const GpuHolder& h = d.holders[0];
      for (const auto& [name, value] :
           {std::pair<const char*, const std::string*>{"namespace", &h.namespace_name},
            {"pod", &h.pod},
            {"container", &h.container},
            {"slurm_job", &h.slurm_job}})
        if (!value->empty()) c.labels.try_emplace(name, *value);
    }
    const std::string& user = last_users_[d.identity.uuid];
    if (!user.empty()) c.labels.try_emplace("user", user);
    return;
  }
}

}  // namespace gpuwatch::detect
