#include "detect/detection.h"

#include <charconv>
#include <set>

#include "detect/device_facts.h"

namespace gpuwatch::detect {

DetectionOptions detection_options(const AgentOptions& options) {
  DetectionOptions d;
  d.sources.kmsg = options.kmsg;
  d.sources.sysfs_root = options.sysfs_root;
  d.sources.proc_root = options.proc_root;
  d.settings = options.detectors;
  return d;
}

Detection::Detection(DetectionOptions options)
    : sources_(std::move(options.sources)), detectors_(options.settings) {}

std::vector<Condition> Detection::evaluate(const Snapshot& snapshot) {
  const DetectionInput input = sources_.gather(snapshot);
  auto conditions = detectors_.evaluate(input);
  label_workloads(snapshot, conditions);
  std::vector<SharedLinkView> links;
  for (const auto& link : input.shared_pcie_links) {
    SharedLinkView view{link, {}};
    for (const auto& bus : link.gpus)
      if (const DeviceSnapshot* d = device_at_bus(snapshot, bus))
        view.gpus.emplace_back(std::to_string(d->identity.index), d->identity.uuid);
    links.push_back(std::move(view));
  }
  std::lock_guard lock(status_mutex_);
  if (const auto* status = sources_.kmsg_status()) kmsg_status_ = *status;
  shared_links_ = std::move(links);
  return conditions;
}

std::optional<kernel::KmsgStatus> Detection::kmsg_status() const {
  std::lock_guard lock(status_mutex_);
  return kmsg_status_;
}

void Detection::label_workloads(const Snapshot& snapshot, std::vector<Condition>& conditions) {
  std::set<unsigned> pids;
  for (const auto& d : snapshot.devices)
    for (const auto& p : d.processes) pids.insert(p.pid);
  for (auto& c : conditions) {
    const auto pid_label = c.labels.find("pid");
    if (pid_label == c.labels.end()) continue;
    unsigned pid = 0;
    const auto& text = pid_label->second;
    if (std::from_chars(text.data(), text.data() + text.size(), pid).ec != std::errc{}) continue;
    pids.insert(pid);
    const procfs::Workload& w = sources_.workload(pid);
    if (!w.container_id.empty()) c.labels["container_id"] = w.container_id;
    if (!w.pod_uid.empty()) c.labels["pod_uid"] = w.pod_uid;
    if (!w.slurm_job.empty()) c.labels["slurm_job"] = w.slurm_job;
  }
  sources_.keep_workloads(pids);
}

void Detection::append_link_metrics(std::string& out, ExpositionFormat format) const {
  std::lock_guard lock(status_mutex_);
  Family info{"gpu_pcie_shared_link_info",
              FamilyType::kInfo,
              "",
              "1 for each GPU below a PCIe link it shares with other GPUs (a switch uplink, from sysfs); "
              "pcie_link names the bridge below the link",
              {}};
  Family capacity{
      "gpu_pcie_shared_link_capacity_bytes_per_second",
      FamilyType::kGauge,
      "bytes_per_second",
      "What a shared PCIe link carries each way at its current speed and width, after line encoding",
      {}};
  for (const auto& v : shared_links_) {
    for (const auto& [gpu, uuid] : v.gpus)
      info.series.push_back({{{"gpu", gpu}, {"uuid", uuid}, {"pcie_link", v.link.device}}, 1});
    if (const double c = v.link.capacity_bytes_per_second(); c > 0)
      capacity.series.push_back({{{"pcie_link", v.link.device}, {"upstream", v.link.upstream}}, c});
  }
  append_family(out, info, format);
  append_family(out, capacity, format);
}

void Detection::append_metrics(std::string& out, ExpositionFormat format) const {
  append_link_metrics(out, format);
  const auto status = kmsg_status();
  if (!status) return;
  auto one = [](double v) { return std::vector<Series>{{{}, v}}; };
  append_family(
      out,
      {"gpuwatch_kernel_log_readable", FamilyType::kGauge, "",
       "1 when the kernel log (--kmsg) can be read; 0 when it is absent or not permitted (CAP_SYSLOG)",
       one(status->readable ? 1 : 0)},
      format);
  append_family(out,
                {"gpuwatch_kernel_log_records_total", FamilyType::kCounter, "", "Kernel-log records read",
                 one(static_cast<double>(status->records))},
                format);
  append_family(out,
                {"gpuwatch_kernel_log_open_failures_total", FamilyType::kCounter, "",
                 "Failed attempts to open the kernel log", one(static_cast<double>(status->open_failures))},
                format);
  append_family(out,
                {"gpuwatch_kernel_log_overruns_total", FamilyType::kCounter, "",
                 "Times the kernel ring buffer overwrote records before they were read",
                 one(static_cast<double>(status->overruns))},
                format);
}

}  // namespace gpuwatch::detect
