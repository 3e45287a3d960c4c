#include "collector/workload_names.h"

#include <algorithm>
#include <string>

namespace gpuwatch {
namespace {

// dcgm-exporter's job-mapping file of a device: "<index>" or "<index>.<gpu instance id>".
std::string job_file_name(const DeviceIdentity& id) {
  std::string name = std::to_string(id.index);
  if (id.is_mig_instance) name += "." + std::to_string(id.gpu_instance_id);
  return name;
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
  for (auto& d : snap.devices) {
    std::vector<GpuHolder> pods, jobs;
    if (host.pod_resources) {
      for (const auto& a : host.pod_resources->allocations) {
        if (device_id_uuid(a.device_id) == d.identity.uuid)
          add_unique(pods, {a.namespace_name, a.pod, a.container, ""});
      }
    }
    if (host.hpc_jobs) {
      if (const auto it = host.hpc_jobs->find(job_file_name(d.identity)); it != host.hpc_jobs->end())
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
        }
      }
      if (p.slurm_job.empty() && jobs.size() == 1) p.slurm_job = jobs[0].slurm_job;
    }
  }
}

}  // namespace gpuwatch
