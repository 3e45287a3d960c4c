#include "accounting/workload.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace gpuwatch::accounting {

std::string team_of(const Workload& w, std::span<const TeamRule> teams) {
  for (const auto& r : teams) {
    const std::string* v = r.kind == "namespace" ? &w.namespace_name
                           : r.kind == "user"    ? &w.user
                           : r.kind == "job"     ? &w.slurm_job
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
    if (!h.pod.empty()) out.push_back({h.namespace_name, h.pod, h.container, "", user, ""});
  }
  if (out.empty()) {
    // Each distinct (job, user) once: a GPU may hold hundreds of one job's processes.
    std::set<std::pair<std::string_view, std::string_view>> seen;
    for (const auto& p : d.processes) seen.emplace(p.slurm_job, p.user);
    for (const auto& [job, u] : seen) out.push_back({"", "", "", std::string(job), std::string(u), ""});
  }
  if (out.empty()) {
    for (const auto& h : d.holders)
      if (!h.slurm_job.empty()) out.push_back({"", "", "", h.slurm_job, "", ""});
  }
  for (auto& w : out) w.team = team_of(w, teams);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gpuwatch::accounting
