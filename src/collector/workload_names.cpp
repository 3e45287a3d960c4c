#include "collector/workload_names.h"

#include <algorithm>
#include <string>

#include "sources/kubelet/dra_device.h"

namespace gpuwatch {
namespace {

// The NVML index of a device's GPU: its own, or for a MIG instance (whose index is its MIG device index on
// the GPU) its parent's.
unsigned gpu_index(const Snapshot& snap, const DeviceIdentity& id) {
  if (!id.is_mig_instance) return id.index;
  for (const auto& d : snap.devices) {
    if (!d.identity.is_mig_instance && d.identity.uuid == id.parent_uuid) return d.identity.index;
  }
  return id.index;
}

// dcgm-exporter's job-mapping file of a device: "<GPU index>" or "<GPU index>.<gpu instance id>".
std::string job_file_name(const Snapshot& snap, const DeviceIdentity& id) {
  std::string name = std::to_string(gpu_index(snap, id));
  if (id.is_mig_instance) name += "." + std::to_string(id.gpu_instance_id);
  return name;
}

bool is_device(const kubelet::GpuReference& ref, const Snapshot& snap, const DeviceIdentity& id) {
  if (!ref.uuid.empty()) return ref.uuid == id.uuid;
  if (!ref.gpu_index || *ref.gpu_index != gpu_index(snap, id)) return false;
  if (ref.mig_index) return id.is_mig_instance && id.index == *ref.mig_index;
  return !id.is_mig_instance;
}

void add_unique(std::vector<GpuHolder>& holders, GpuHolder h) {
  if (std::find(holders.begin(), holders.end(), h) == holders.end()) holders.push_back(std::move(h));
}

}  // namespace

std::string_view device_id_uuid(std::string_view device_id) {
  const auto sep = device_id.find("::");
  return sep == std::string_view::npos ? device_id : device_id.substr(0, sep);
}

void add_workload_names(const HostSnapshot& host, Snapshot& snap) {
  // Each DRA claim's GPU, once for every device.
  std::vector<std::pair<const kubelet::ClaimAllocation*, kubelet::GpuReference>> claims;
  if (host.pod_resources) {
    for (const auto& c : host.pod_resources->claims) {
      if (auto ref = kubelet::gpu_of_claim(c)) claims.emplace_back(&c, std::move(*ref));
    }
  }
  for (auto& d : snap.devices) {
    std::vector<GpuHolder> pods, jobs;
    if (host.pod_resources) {
      for (const auto& a : host.pod_resources->allocations) {
        if (device_id_uuid(a.device_id) == d.identity.uuid)
          add_unique(pods, {a.namespace_name, a.pod, a.container, ""});
      }
    }
    for (const auto& [c, ref] : claims) {
      if (is_device(ref, snap, d.identity)) add_unique(pods, {c->namespace_name, c->pod, c->container, ""});
    }
    if (host.hpc_jobs) {
      if (const auto it = host.hpc_jobs->find(job_file_name(snap, d.identity)); it != host.hpc_jobs->end())
        for (const auto& job : it->second) add_unique(jobs, {"", "", "", job});
    }
    d.holders = pods;
    d.holders.insert(d.holders.end(), jobs.begin(), jobs.end());
    for (auto& p : d.processes) {
      if (pods.size() == 1) {
        p.namespace_name = pods[0].namespace_name;
        p.pod = pods[0].pod;
        p.container = pods[0].container;
      }
      if (host.workloads) {
        if (const auto it = host.workloads->find(p.pid); it != host.workloads->end()) {
          p.slurm_job = it->second.slurm_job;
          p.slurm_account = it->second.slurm_account;
          p.container_id = it->second.container_id;
          p.pod_uid = it->second.pod_uid;
        }
      }
      if (p.slurm_job.empty() && jobs.size() == 1) p.slurm_job = jobs[0].slurm_job;
    }
  }
}

}  // namespace gpuwatch
