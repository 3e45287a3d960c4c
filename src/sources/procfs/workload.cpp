#include "sources/procfs/workload.h"

#include <algorithm>
#include <sstream>

#include <re2/re2.h>

#include "core/label_matcher.h"
#include "sources/sysfs/sysfs_file.h"

namespace gpuwatch::procfs {
namespace {

// The container's scope or directory: the runtime it names, and the id.
struct ContainerPattern {
  std::shared_ptr<const re2::RE2> pattern;
  const char* runtime;
};

const std::vector<ContainerPattern>& container_patterns() {
  static const std::vector<ContainerPattern> kPatterns = {
      {compile_regex(R"(/cri-containerd-([0-9a-f]+)\.scope)"), "containerd"},
      {compile_regex(R"(/crio-([0-9a-f]+)\.scope)"), "cri-o"},
      {compile_regex(R"(/docker-([0-9a-f]+)\.scope)"), "docker"},
      {compile_regex(R"(/docker/([0-9a-f]{12,}))"), "docker"},
      // cgroupfs driver: the container's directory right below the pod's, runtime unknown from the path.
      {compile_regex(R"(/pod[0-9a-f-]+/([0-9a-f]{12,}))"), "containerd"},
  };
  return kPatterns;
}

Workload from_path(const std::string& path) {
  Workload w;
  std::string id;
  for (const auto& [pattern, runtime] : container_patterns()) {
    if (re2::RE2::PartialMatch(path, *pattern, &id)) {
      w.container_id = std::string(runtime) + "://" + id;
      break;
    }
  }
  static const auto kPod = compile_regex(R"(pod([0-9a-f][0-9a-f_-]*)(\.slice|/|$))");
  if (path.find("kubepods") != std::string::npos && re2::RE2::PartialMatch(path, *kPod, &w.pod_uid)) {
    std::replace(w.pod_uid.begin(), w.pod_uid.end(), '_', '-');
  }
  static const auto kSlurmJob = compile_regex(R"(/job_([0-9]+)(/|$))");
  re2::RE2::PartialMatch(path, *kSlurmJob, &w.slurm_job);
  return w;
}

}  // namespace

Workload workload_from_cgroup(std::string_view cgroup_text) {
  std::istringstream in{std::string(cgroup_text)};
  for (std::string line; std::getline(in, line);) {
    // hierarchy-id:controllers:path; the path may itself hold colons.
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    Workload w = from_path(line.substr(second + 1));
    if (!w.empty()) return w;
  }
  return {};
}

std::string slurm_account_from_environ(std::string_view environ_text) {
  constexpr std::string_view kName = "SLURM_JOB_ACCOUNT=";
  while (!environ_text.empty()) {
    const auto end = environ_text.find('\0');
    const auto entry = environ_text.substr(0, end);
    if (entry.starts_with(kName)) return std::string(entry.substr(kName.size()));
    if (end == std::string_view::npos) break;
    environ_text.remove_prefix(end + 1);
  }
  return "";
}

std::optional<Workload> read_workload(const std::string& proc_root, unsigned pid) {
  const std::string dir = proc_root + "/" + std::to_string(pid);
  const auto text = kernel::read_sysfs_file(dir + "/cgroup");
  if (!text) return std::nullopt;
  Workload w = workload_from_cgroup(*text);
  if (const auto env = kernel::read_sysfs_file(dir + "/environ"))
    w.slurm_account = slurm_account_from_environ(*env);
  return w;
}

}  // namespace gpuwatch::procfs
