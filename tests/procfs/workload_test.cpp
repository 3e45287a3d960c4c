// A process's container, pod and Slurm job from its cgroup file, as containerd, CRI-O, Docker, the
// kubelet's two cgroup drivers and slurmd lay it out on cgroup v2 and v1.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim_support.h"
#include "sources/procfs/workload.h"

namespace gpuwatch::procfs {
namespace {

const std::string kId = "3f1c2bd8a9e04c56b7d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6";

TEST(Workload, KubernetesWithTheSystemdDriver) {
  const auto w = workload_from_cgroup(
      "0::/kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod4a8e2c1b_7f3d_4e21_9c0a_1b2c3d4e5f60.slice/"
      "cri-containerd-" +
      kId + ".scope\n");
  EXPECT_EQ(w.container_id, "containerd://" + kId);
  EXPECT_EQ(w.pod_uid, "4a8e2c1b-7f3d-4e21-9c0a-1b2c3d4e5f60");
  EXPECT_EQ(w.slurm_job, "");
}

TEST(Workload, KubernetesWithTheCgroupfsDriverOnCgroupV1) {
  const auto w = workload_from_cgroup(
      "12:pids:/kubepods/besteffort/pod4a8e2c1b-7f3d-4e21-9c0a-1b2c3d4e5f60/" + kId +
      "\n11:memory:/kubepods/besteffort/pod4a8e2c1b-7f3d-4e21-9c0a-1b2c3d4e5f60/" + kId + "\n");
  EXPECT_EQ(w.container_id, "containerd://" + kId);
  EXPECT_EQ(w.pod_uid, "4a8e2c1b-7f3d-4e21-9c0a-1b2c3d4e5f60");
}

TEST(Workload, CrioAndDocker) {
  EXPECT_EQ(workload_from_cgroup("0::/kubepods.slice/kubepods-podab_cd.slice/crio-" + kId + ".scope\n")
                .container_id,
            "cri-o://" + kId);
  EXPECT_EQ(workload_from_cgroup("0::/system.slice/docker-" + kId + ".scope\n").container_id,
            "docker://" + kId);
  const auto v1 = workload_from_cgroup("4:memory:/docker/" + kId + "\n");
  EXPECT_EQ(v1.container_id, "docker://" + kId);
  EXPECT_EQ(v1.pod_uid, "") << "not Kubernetes";
}

TEST(Workload, SlurmJobs) {
  EXPECT_EQ(
      workload_from_cgroup("0::/system.slice/slurmstepd.scope/job_481516/step_0/user/task_0\n").slurm_job,
      "481516");
  EXPECT_EQ(workload_from_cgroup("7:devices:/slurm/uid_1000/job_2342/step_batch\n").slurm_job, "2342");
}

TEST(Workload, TakesTheFirstPlaceThatFitsAndNoLookalike) {
  // A scope named like a container's but without an id, then the container's own.
  EXPECT_EQ(
      workload_from_cgroup("0::/system.slice/docker-build.scope/docker-" + kId + ".scope\n").container_id,
      "docker://" + kId);
  EXPECT_TRUE(workload_from_cgroup("4:memory:/docker/3f1c2bd8a9e\n").empty()) << "11 digits: no id";
  EXPECT_TRUE(workload_from_cgroup("0::/system.slice/docker-" + kId + ".service\n").empty());
  EXPECT_TRUE(workload_from_cgroup("0::/slurm/job_12x/step_0\n").empty());
  EXPECT_EQ(workload_from_cgroup("0::/slurm/job_12x/job_34\n").slurm_job, "34");
  // Kubernetes' own words hold "pod" too: kubepods-besteffort is no pod.
  const auto w = workload_from_cgroup(
      "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-"
      "pod4a8e2c1b_7f3d.slice\n");
  EXPECT_EQ(w.pod_uid, "4a8e2c1b-7f3d");
  EXPECT_EQ(w.container_id, "");
  EXPECT_EQ(
      workload_from_cgroup("0::/kubepods/burstable/pod4a8e-2c1b/" + kId.substr(0, 12) + "\n").container_id,
      "containerd://" + kId.substr(0, 12));
  EXPECT_EQ(workload_from_cgroup("0::/kubepods/burstable/pod4a8e-2c1bx/" + kId + "\n").pod_uid, "")
      << "a uid that runs into another character";
}

TEST(Workload, SessionsAndServicesHaveNone) {
  EXPECT_TRUE(workload_from_cgroup("0::/user.slice/user-1000.slice/session-1.scope\n").empty());
  EXPECT_TRUE(workload_from_cgroup("0::/system.slice/nvidia-persistenced.service\n").empty());
  EXPECT_TRUE(workload_from_cgroup("").empty());
  EXPECT_TRUE(workload_from_cgroup("garbage without colons\n").empty());
}

TEST(Workload, ReadsTheProcessCgroupFile) {
  test::TempDir proc;
  std::filesystem::create_directories(std::filesystem::path(proc.path()) / "4242");
  std::ofstream(std::filesystem::path(proc.path()) / "4242/cgroup")
      << "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n";
  const auto w = read_workload(proc.path(), 4242);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->slurm_job, "77");
  EXPECT_FALSE(read_workload(proc.path(), 4243)) << "gone";
}

TEST(Workload, ReadsTheSlurmAccountFromTheProcessEnvironment) {
  test::TempDir proc;
  const std::filesystem::path root(proc.path());
  std::filesystem::create_directories(root / "500");
  std::filesystem::create_directories(root / "501");
  std::ofstream(root / "500/cgroup") << "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n";
  const std::string environ("PATH=/usr/bin\0SLURM_JOB_ID=77\0SLURM_JOB_ACCOUNT=physics\0HOME=/home/carol\0",
                            73);
  std::ofstream(root / "500/environ", std::ios::binary) << environ;
  std::ofstream(root / "501/cgroup")
      << "0::/user.slice/user-1000.slice/session-1.scope\n";  // no environ readable
  const auto w = read_workload(proc.path(), 500);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->slurm_job, "77");
  EXPECT_EQ(w->slurm_account, "physics");
  const auto none = read_workload(proc.path(), 501);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->slurm_account, "");
}

TEST(Workload, FindsTheAccountAnywhereInTheEnvironmentAndNoLookalike) {
  using namespace std::string_literals;
  EXPECT_EQ(slurm_account_from_environ("SLURM_JOB_ACCOUNT=hpc"s), "hpc");  // last entry, no trailing NUL
  EXPECT_EQ(slurm_account_from_environ("A=1\0SLURM_JOB_ACCOUNT=\0B=2\0"s), "");
  EXPECT_EQ(slurm_account_from_environ("MY_SLURM_JOB_ACCOUNT=x\0SLURM_JOB_ACCOUNTS=y\0"s), "");
  EXPECT_EQ(slurm_account_from_environ(""), "");
}

}  // namespace
}  // namespace gpuwatch::procfs
