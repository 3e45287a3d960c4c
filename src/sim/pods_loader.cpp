// The scenario's workloads: `pods:` (what a fake kubelet answers: each container and the GPUs allocated to
// it) and, for processes that name a `pod` and `container` or a `slurm_job`, the cgroup path the container
// runtime or slurmd would give them, so the agent's cgroup attribution runs on the same scenario.
#include <cstdio>

#include "sim/scenario_loader.h"

namespace gpuwatch::sim {
namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t v, int digits) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return std::string(buf + 16 - digits, static_cast<std::size_t>(digits));
}

// A UUID-shaped pod UID, the same for the same seed, namespace, name and start (a pod recreated later is
// another pod).
std::string pod_uid(std::uint64_t seed, const PodSpec& pod) {
  std::string key = pod.namespace_name + "/" + pod.name;
  if (pod.start > 0) key += "@" + std::to_string(pod.start);
  const std::uint64_t a = fnv1a(key, seed * 0x9E3779B97F4A7C15ULL + 1);
  const std::uint64_t b = fnv1a(pod.name, a);
  return hex(a >> 32, 8) + "-" + hex(a >> 16, 4) + "-" + hex(a, 4) + "-" + hex(b >> 48, 4) + "-" + hex(b, 12);
}

PodDevice read_pod_device(const YamlReader& in, const YAML::Node& n, const Scenario& sc) {
  PodDevice d;
  // 3 (a whole GPU) or "2/1" (MIG instance 1 on GPU 2).
  const std::string text = in.text(n, "a GPU");
  unsigned gpu = 0, mig = 0;
  char slash = 0;
  const int read = std::sscanf(text.c_str(), "%u%c%u", &gpu, &slash, &mig);
  if (read != 1 && !(read == 3 && slash == '/'))
    in.fail(n, "expected a GPU index (3) or GPU/MIG instance index (2/1), got '" + text + "'");
  if (gpu >= sc.devices.size())
    in.fail(n, "gpu index out of range (the scenario has " + std::to_string(sc.devices.size()) + " GPUs)");
  d.gpu = gpu;
  if (read == 3) {
    if (mig >= sc.devices[gpu].mig.size()) in.fail(n, "mig instance index out of range for this GPU");
    d.mig = static_cast<int>(mig);
  }
  return d;
}

}  // namespace

void read_pods(const YamlReader& in, const YAML::Node& list, Scenario& sc) {
  in.expect_list(list, "pods");
  for (const auto& p : list) {
    in.expect_map(p, "a pod", {"name", "namespace", "uid", "containers", "start", "stop"});
    PodSpec pod;
    if (!p["name"]) in.fail(p, "a pod needs a name");
    pod.name = in.text(p["name"], "name");
    if (p["namespace"]) pod.namespace_name = in.text(p["namespace"], "namespace");
    if (p["start"]) pod.start = in.seconds(p["start"]);
    if (p["stop"]) pod.stop = in.seconds(p["stop"]);
    if (pod.stop <= pod.start) in.fail(p["stop"], "stop must come after start");
    // A name listed again is the pod recreated (on other GPUs): never two at once.
    for (const auto& other : sc.pods) {
      if (other.name == pod.name && other.start < pod.stop && pod.start < other.stop)
        in.fail(p["name"],
                "pod " + pod.name + " is listed twice at the same time (give each a start and stop)");
    }
    pod.uid = p["uid"] ? in.text(p["uid"], "uid") : pod_uid(sc.node.seed, pod);
    if (!p["containers"]) in.fail(p, "a pod needs containers");
    in.expect_list(p["containers"], "containers");
    for (const auto& c : p["containers"]) {
      in.expect_map(c, "a container", {"name", "gpus"});
      PodContainerSpec container;
      if (!c["name"]) in.fail(c, "a container needs a name");
      container.name = in.text(c["name"], "name");
      if (const auto gpus = c["gpus"]; gpus && !gpus.IsNull()) {
        in.expect_list(gpus, "gpus");
        for (const auto& g : gpus) container.devices.push_back(read_pod_device(in, g, sc));
      }
      pod.containers.push_back(std::move(container));
    }
    sc.pods.push_back(std::move(pod));
  }
}

void assign_workload_cgroups(const YamlReader& in, const YAML::Node& procs, Scenario& sc) {
  for (std::size_t i = 0; i < sc.processes.size(); ++i) {
    ProcessSpec& p = sc.processes[i];
    if (!p.pod.empty() && !p.slurm_job.empty())
      in.fail(procs[i], "a process runs in a pod or a Slurm job, not both");
    if (!p.slurm_job.empty()) {
      if (p.slurm_job.find_first_not_of("0123456789") != std::string::npos)
        in.fail(procs[i]["slurm_job"], "a Slurm job id is a number");
      if (p.cgroup.empty())
        p.cgroup = "/system.slice/slurmstepd.scope/job_" + p.slurm_job + "/step_0/user/task_0";
      continue;
    }
    if (p.pod.empty()) {
      if (!p.container.empty()) in.fail(procs[i]["container"], "a container needs its pod");
      continue;
    }
    // The pod of that name listed when the process starts (a recreated pod is another pod).
    const PodSpec* pod = nullptr;
    for (const auto& candidate : sc.pods)
      if (candidate.name == p.pod && (!pod || candidate.active(p.start))) pod = &candidate;
    if (!pod) in.fail(procs[i]["pod"], "no pod named " + p.pod + " in pods");
    if (p.container.empty()) p.container = pod->containers.empty() ? "" : pod->containers.front().name;
    if (!p.cgroup.empty()) continue;
    // The systemd driver's layout: the pod's slice (its UID with underscores), the container's scope.
    std::string uid = pod->uid;
    for (char& c : uid) c = c == '-' ? '_' : c;
    const std::uint64_t id = fnv1a(pod->uid + "/" + p.container);
    const std::string container_id =
        hex(id, 16) + hex(fnv1a("a", id), 16) + hex(fnv1a("b", id), 16) + hex(fnv1a("c", id), 16);
    p.cgroup = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + uid +
               ".slice/cri-containerd-" + container_id + ".scope";
  }
}

}  // namespace gpuwatch::sim
