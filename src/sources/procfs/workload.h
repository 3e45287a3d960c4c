// The workload a process belongs to, from its cgroup (/proc/<pid>/cgroup): the container runtime's
// container id, the Kubernetes pod's UID, the Slurm job. Recognised layouts:
//   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<id>.scope
//   /kubepods/burstable/pod<uid>/<id>                      (cgroupfs driver)
//   /system.slice/docker-<id>.scope, /docker/<id>, .../crio-<id>.scope
//   /system.slice/slurmstepd.scope/job_<N>/step_<S>/...    (and /slurm/uid_<U>/job_<N>/... on cgroup v1)
// A process in none of them (a user's session, a system service) has an empty Workload.
// The Slurm account is read from the process's environment (/proc/<pid>/environ: slurmd gives every task
// SLURM_JOB_ACCOUNT), the one place a node shows it without asking slurmctld; teams can be mapped by it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::procfs {

struct Workload {
  std::string container_id;   // "<runtime>://<id>" as Kubernetes writes it: containerd, cri-o or docker
  std::string pod_uid;        // with dashes, as the API server shows it
  std::string slurm_job;      // the job id
  std::string slurm_account;  // SLURM_JOB_ACCOUNT of its environment; "" when not set or not readable
  bool empty() const { return container_id.empty() && pod_uid.empty() && slurm_job.empty(); }
};

// From the text of a cgroup file: cgroup v2 ("0::/path") or v1 lines ("4:memory:/path"); the first line
// that names a workload wins.
Workload workload_from_cgroup(std::string_view cgroup_text);

// The value of SLURM_JOB_ACCOUNT in the text of an environ file (NUL-separated NAME=VALUE), else "".
std::string slurm_account_from_environ(std::string_view environ_text);

// Reads <proc_root>/<pid>/cgroup and <proc_root>/<pid>/environ (an unreadable environ leaves the account "");
// nullopt when it cannot be read (the process is gone or not visible).
std::optional<Workload> read_workload(const std::string& proc_root, unsigned pid);

}  // namespace gpuwatch::procfs
