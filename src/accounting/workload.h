// A workload as accounting counts it: the pod (namespace, pod, container), the batch job or the user whose
// GPU time it is, with the team the teams mapping gives it. The same labels name it on /metrics, in the
// history and in the report; "" where not known.
#pragma once

#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "config/accounting_settings.h"
#include "core/snapshot.h"

namespace gpuwatch::accounting {

struct Workload {
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string slurm_job;
  std::string user;
  std::string team;
  // The Slurm account of its job, for the teams mapping only: not a label and not part of what tells
  // workloads apart, as a job has one account.
  std::string slurm_account;
  auto key() const { return std::tie(namespace_name, pod, container, slurm_job, user, team); }
  bool operator<(const Workload& o) const { return key() < o.key(); }
  bool operator==(const Workload& o) const { return key() == o.key(); }
};

// The team of a workload: the first rule whose kind and value match it, else "".
std::string team_of(const Workload& w, std::span<const TeamRule> teams);

// Whose time a GPU's is this tick: each pod container the kubelet allocated it to (with the user of its
// processes when they all run as one), else each distinct job and user of its processes, else each job of
// the job mapping. Empty when nobody holds it. Sorted, each once.
std::vector<Workload> workloads_on(const DeviceSnapshot& d, std::span<const TeamRule> teams);

}  // namespace gpuwatch::accounting
