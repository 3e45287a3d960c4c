// The names the collector gives each GPU and process from the host reading: the kubelet's pod and container
// of the GPU (with or without processes), the Slurm job of the cgroup or the job mapping.
#include <gtest/gtest.h>

#include "collector/workload_names.h"
#include "exposition/dcgm_metrics.h"

namespace gpuwatch {
namespace {

DeviceSnapshot gpu(unsigned index, std::string uuid, std::vector<unsigned> pids) {
  DeviceSnapshot d;
  d.identity.index = index;
  d.identity.uuid = std::move(uuid);
  for (unsigned pid : pids) {
    ProcessSample p;
    p.pid = pid;
    p.user = "alice";
    d.processes.push_back(p);
  }
  return d;
}

TEST(WorkloadNames, PodsFromTheKubeletJobsFromCgroupsAndTheMapping) {
  Snapshot snap;
  snap.devices.push_back(gpu(0, "GPU-a", {100}));
  snap.devices.push_back(gpu(1, "GPU-b", {}));          // allocated, nothing running
  snap.devices.push_back(gpu(2, "GPU-c", {300}));       // a Slurm job by its cgroup
  snap.devices.push_back(gpu(3, "GPU-d", {400}));       // a job by the mapping only
  snap.devices.push_back(gpu(4, "GPU-e", {500, 501}));  // time-sliced between two pods
  HostSnapshot host;
  auto pods = std::make_shared<kubelet::PodResourcesReading>();
  pods->allocations = {{"nvidia.com/gpu", "GPU-a", "research", "train-0", "trainer"},
                       {"nvidia.com/gpu", "GPU-b", "research", "eval-0", "eval"},
                       {"nvidia.com/gpu", "GPU-e::0", "vision", "nb-1", "jupyter"},
                       {"nvidia.com/gpu", "GPU-e::1", "vision", "nb-2", "jupyter"}};
  host.pod_resources = pods;
  host.workloads =
      std::make_shared<const std::map<unsigned, procfs::Workload>>(std::map<unsigned, procfs::Workload>{
          {100, {"containerd://abc", "pod-uid-a", "", ""}}, {300, {"", "", "4242", "physics"}}});
  host.hpc_jobs = std::make_shared<const hpc_jobs::JobMapping>(hpc_jobs::JobMapping{{"3", {"9001"}}});

  add_workload_names(host, snap);

  const ProcessSample& p0 = snap.devices[0].processes[0];
  EXPECT_EQ(p0.namespace_name, "research");
  EXPECT_EQ(p0.pod, "train-0");
  EXPECT_EQ(p0.container, "trainer");
  EXPECT_EQ(p0.slurm_job, "");
  // Its cgroup's container and pod are the process's own fields too.
  EXPECT_EQ(p0.container_id, "containerd://abc");
  EXPECT_EQ(p0.pod_uid, "pod-uid-a");
  EXPECT_EQ(snap.devices[2].processes[0].container_id, "");
  ASSERT_EQ(snap.devices[1].holders.size(), 1u);
  EXPECT_EQ(snap.devices[1].holders[0].pod, "eval-0");
  EXPECT_EQ(snap.devices[2].processes[0].slurm_job, "4242");
  EXPECT_EQ(snap.devices[2].processes[0].slurm_account, "physics");
  EXPECT_EQ(snap.devices[2].processes[0].pod, "");
  EXPECT_EQ(snap.devices[3].processes[0].slurm_job, "9001");
  ASSERT_EQ(snap.devices[3].holders.size(), 1u);
  EXPECT_EQ(snap.devices[3].holders[0].slurm_job, "9001");
  // Two pods on one GPU: the GPU has both holders, and no process can be told which it is.
  EXPECT_EQ(snap.devices[4].holders.size(), 2u);
  EXPECT_EQ(snap.devices[4].processes[0].pod, "");
}

DeviceSnapshot mig(unsigned mig_index, std::string uuid, const std::string& parent, unsigned gpu_instance) {
  DeviceSnapshot d = gpu(mig_index, std::move(uuid), {});
  d.identity.is_mig_instance = true;
  d.identity.parent_uuid = parent;
  d.identity.gpu_instance_id = gpu_instance;
  return d;
}

TEST(WorkloadNames, DraClaimsNameTheirGpuOrMigInstance) {
  Snapshot snap;
  snap.devices.push_back(gpu(0, "GPU-a", {100}));
  snap.devices.push_back(gpu(1, "GPU-b", {}));
  snap.devices.push_back(gpu(2, "GPU-c", {}));
  snap.devices.push_back(mig(0, "MIG-c0", "GPU-c", 7));  // MIG device 0 of GPU 2, GPU instance 7
  snap.devices.push_back(mig(1, "MIG-c1", "GPU-c", 9));
  snap.devices.push_back(gpu(3, "GPU-d", {}));
  HostSnapshot host;
  auto pods = std::make_shared<kubelet::PodResourcesReading>();
  pods->claims = {
      {"llm", "serve-0", "vllm", "llm", "gpus", "gpu.nvidia.com", "node-7", "gpu-0", {}},
      {"llm", "serve-0", "vllm", "llm", "gpus", "", "", "", {"nvidia.com/gpu=GPU-b"}},
      {"vision", "nb", "jupyter", "vision", "mig", "", "", "", {"nvidia.com/gpu=2:1"}},
      {"ops", "probe", "nic", "ops", "nic", "nic.example.com", "node-7", "gpu-3", {"example.com/nic=3"}},
  };
  host.pod_resources = pods;
  host.hpc_jobs = std::make_shared<const hpc_jobs::JobMapping>(hpc_jobs::JobMapping{{"2.7", {"555"}}});

  add_workload_names(host, snap);

  ASSERT_EQ(snap.devices[0].holders.size(), 1u);
  EXPECT_EQ(snap.devices[0].holders[0], (GpuHolder{"llm", "serve-0", "vllm", ""}));
  EXPECT_EQ(snap.devices[0].processes[0].pod, "serve-0");  // its process is named by the claim too
  ASSERT_EQ(snap.devices[1].holders.size(), 1u);
  EXPECT_EQ(snap.devices[1].holders[0].pod, "serve-0");
  EXPECT_TRUE(snap.devices[2].holders.empty());  // the GPU's MIG device is claimed, not the GPU
  ASSERT_EQ(snap.devices[4].holders.size(), 1u);
  EXPECT_EQ(snap.devices[4].holders[0].namespace_name, "vision");
  // Another driver's "gpu-3" is not GPU 3.
  EXPECT_TRUE(snap.devices[5].holders.empty());
  // The job mapping names a MIG instance by its GPU's index and its GPU instance, not by its MIG index.
  ASSERT_EQ(snap.devices[3].holders.size(), 1u);
  EXPECT_EQ(snap.devices[3].holders[0].slurm_job, "555");
}

TEST(WorkloadNames, TimeSlicingReplicaIdsNameTheirGpu) {
  EXPECT_EQ(device_id_uuid("GPU-1234::3"), "GPU-1234");
  EXPECT_EQ(device_id_uuid("MIG-5678"), "MIG-5678");
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

TEST(WorkloadNames, DcgmNamingCarriesThePodNamespaceAndContainer) {
  Snapshot snap;
  snap.devices.push_back(gpu(0, "GPU-a", {}));
  snap.devices[0].samples.push_back(Sample(Metric::kUtilization, 0.5));
  snap.devices.push_back(gpu(1, "GPU-b", {}));
  snap.devices[1].samples.push_back(Sample(Metric::kUtilization, 0.5));
  snap.devices[0].holders.push_back({"research", "train-0", "trainer", ""});
  const std::string text = render_dcgm(snap, DcgmOptions{});
  EXPECT_NE(text.find(R"(gpu="0",)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(pod="train-0",namespace="research",container="trainer")"), std::string::npos)
      << text;
  // The GPU allocated to nobody has no such labels.
  const auto line = text.find(R"(DCGM_FI_DEV_GPU_UTIL{gpu="1")");
  ASSERT_NE(line, std::string::npos);
  EXPECT_EQ(text.substr(line, text.find('\n', line) - line).find("pod="), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
