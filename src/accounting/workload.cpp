#include "accounting/workload.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace gpuwatch::accounting {

std::string team_of(const Workload& w, std::span<const TeamRule> teams) {
  for (const auto& r : teams) {
    const std::string* v = r.kind == "namespace"       ? &w.namespace_name
                           : r.kind == "user"          ? &w.user
                           : r.kind == "job"           ? &w.slurm_job
                           : r.kind == "slurm_account" ? &w.slurm_account
                                                       : &w.pod;
    if (!v->empty() && *v == r.value) return r.team;
  }
  return "";
}

std::vector<Workload> workloads_on(const DeviceSnapshot& d, std::span<const TeamRule> teams) {
  std::vector<Workload> out;
  std::string user;  // the processes' one user, or ""
  bool one_user = true;
  for (const auto& p : d.processes) {
    if (!user.empty() && p.user != user) one_user = false;
    if (user.empty()) user = p.user;
  }
  if (!one_user) user.clear();
  for (const auto& h : d.holders) {
    if (!h.pod.empty()) out.push_back({h.namespace_name, h.pod, h.container, "", user, "", ""});
  }
  if (out.empty()) {
    // Each distinct (job, user) once: a GPU may hold hundreds of one job's processes. The job's account is
    // the first one a process of it shows (a process whose environment was not readable shows none).
    std::map<std::pair<std::string_view, std::string_view>, std::string_view> seen;
    for (const auto& p : d.processes) {
      auto& account = seen[{p.slurm_job, p.user}];
      if (account.empty()) account = p.slurm_account;
    }
    for (const auto& [job_user, account] : seen)
      out.push_back(
          {"", "", "", std::string(job_user.first), std::string(job_user.second), "", std::string(account)});
  }
  if (out.empty()) {
    for (const auto& h : d.holders)
      if (!h.slurm_job.empty()) out.push_back({"", "", "", h.slurm_job, "", "", ""});
  }
  for (auto& w : out) w.team = team_of(w, teams);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gpuwatch::accounting
