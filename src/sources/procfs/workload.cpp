#include "sources/procfs/workload.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "sources/kernel/sysfs_file.h"

namespace gpuwatch::procfs {
namespace {

// The container's scope or directory: the runtime it names, and the id.
struct ContainerPattern {
  std::regex pattern;
  const char* runtime;
};

const std::vector<ContainerPattern>& container_patterns() {
  static const std::vector<ContainerPattern> kPatterns = {
      {std::regex(R"(/cri-containerd-([0-9a-f]+)\.scope)"), "containerd"},
      {std::regex(R"(/crio-([0-9a-f]+)\.scope)"), "cri-o"},
      {std::regex(R"(/docker-([0-9a-f]+)\.scope)"), "docker"},
      {std::regex(R"(/docker/([0-9a-f]{12,}))"), "docker"},
      // cgroupfs driver: the container's directory right below the pod's, runtime unknown from the path.
      {std::regex(R"(/pod[0-9a-f-]+/([0-9a-f]{12,}))"), "containerd"},
  };
  return kPatterns;
}

Workload from_path(const std::string& path) {
  Workload w;
  std::smatch m;
  for (const auto& [pattern, runtime] : container_patterns()) {
    if (std::regex_search(path, m, pattern)) {
      w.container_id = std::string(runtime) + "://" + m[1].str();
      break;
    }
  }
  static const std::regex kPod(R"(pod([0-9a-f][0-9a-f_-]*)(\.slice|/|$))");
  if (path.find("kubepods") != std::string::npos && std::regex_search(path, m, kPod)) {
    w.pod_uid = m[1].str();
    std::replace(w.pod_uid.begin(), w.pod_uid.end(), '_', '-');
  }
  static const std::regex kSlurmJob(R"(/job_([0-9]+)(/|$))");
  if (std::regex_search(path, m, kSlurmJob)) w.slurm_job = m[1].str();
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

std::optional<Workload> read_workload(const std::string& proc_root, unsigned pid) {
  const auto text = kernel::read_sysfs_file(proc_root + "/" + std::to_string(pid) + "/cgroup");
  if (!text) return std::nullopt;
  return workload_from_cgroup(*text);
}

}  // namespace gpuwatch::procfs
