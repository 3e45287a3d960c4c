#include "cli/top/process_rows.h"

#include <algorithm>
#include <cctype>

namespace gpuwatch::top {
namespace {

bool contains_any_case(const std::string& text, const std::string& needle) {
  const auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

bool matches(const ProcessRow& row, const std::string& filter) {
  if (filter.empty()) return true;
  return contains_any_case(row.user, filter) || contains_any_case(row.command, filter) ||
         contains_any_case(row.workload, filter) || contains_any_case(row.type, filter) ||
         row.gpu == filter || std::to_string(row.pid) == filter;
}

// Absent values sort below every present one.
bool less_optional(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return !a && b;
  return *a < *b;
}

bool less_by(ProcessSort sort, const ProcessRow& a, const ProcessRow& b) {
  switch (sort) {
    case ProcessSort::kMemory:
      return less_optional(a.memory_bytes, b.memory_bytes);
    case ProcessSort::kSm:
      return less_optional(a.sm, b.sm);
    case ProcessSort::kPid:
      return a.pid < b.pid;
    case ProcessSort::kUser:
      return a.user < b.user;
    case ProcessSort::kGpu:
      return a.gpu_order < b.gpu_order;
    case ProcessSort::kCommand:
      return a.command < b.command;
  }
  return false;
}

}  // namespace

std::string device_label(const Snapshot& snapshot, const DeviceSnapshot& device) {
  const DeviceIdentity& id = device.identity;
  if (!id.is_mig_instance) return std::to_string(id.index);
  unsigned gpu = id.index;
  for (const auto& d : snapshot.devices) {
    if (!d.identity.is_mig_instance && d.identity.uuid == id.parent_uuid) gpu = d.identity.index;
  }
  return std::to_string(gpu) + "/" + std::to_string(id.gpu_instance_id) + "/" +
         std::to_string(id.compute_instance_id);
}

// The name people know a workload by: the kubelet's namespace/pod, the Slurm job; else what the cgroup says
// (a pod's UID when no kubelet named it, another runtime's container).
std::string workload_text(const ProcessSample& p, const procfs::Workload* w) {
  if (!p.pod.empty()) return "pod " + (p.namespace_name.empty() ? p.pod : p.namespace_name + "/" + p.pod);
  if (!p.slurm_job.empty()) return "job " + p.slurm_job;
  if (!w) return "";
  if (!w->pod_uid.empty()) return "pod " + w->pod_uid;
  if (!w->slurm_job.empty()) return "job " + w->slurm_job;
  if (!w->container_id.empty()) return "ctr " + w->container_id;
  return "";
}

std::vector<ProcessRow> process_rows(const TopFrame& frame, const ViewState& view) {
  std::vector<ProcessRow> rows;
  const auto& devices = frame.snapshot->devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (const auto& p : devices[i].processes) {
      ProcessRow row;
      row.gpu = device_label(*frame.snapshot, devices[i]);
      row.gpu_order = static_cast<unsigned>(i);
      row.pid = p.pid;
      row.user = p.user.empty() ? "-" : p.user;
      row.type = p.type;
      row.memory_bytes = p.used_memory_bytes;
      row.sm = p.sm_utilization;
      const auto w = frame.workloads.find(p.pid);
      row.workload = workload_text(p, w == frame.workloads.end() ? nullptr : &w->second);
      row.command = !p.command.empty() ? p.command : (p.name.empty() ? "?" : p.name);
      if (matches(row, view.filter)) rows.push_back(std::move(row));
    }
  }
  // Ties keep the snapshot's order (by GPU, then as NVML listed them), whichever way the sort runs.
  std::stable_sort(rows.begin(), rows.end(), [&view](const ProcessRow& a, const ProcessRow& b) {
    return view.descending ? less_by(view.sort, b, a) : less_by(view.sort, a, b);
  });
  return rows;
}

}  // namespace gpuwatch::top
