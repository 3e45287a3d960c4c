// The kubelet source against a fake kubelet speaking the real PodResources v1 protocol: allocations with
// and without processes, a kubelet without GetAllocatableResources, a missing socket, and a restart (the
// socket removed and made again) that the directory watch notices at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "fake_kubelet.h"
#include "sim_support.h"
#include "sources/host/host_reader.h"
#include "sources/kubelet/kubelet_reader.h"

namespace gpuwatch {
namespace {

using kubelet::DeviceAllocation;
using kubelet::KubeletReader;
using namespace std::chrono_literals;

const std::vector<DeviceAllocation> kTwoPods = {
    {"nvidia.com/gpu", "GPU-aaaa", "research", "train-0", "trainer"},
    {"nvidia.com/gpu", "GPU-bbbb", "research", "train-0", "trainer"},
    {"nvidia.com/mig-1g.10gb", "MIG-cccc", "vision", "notebook", "jupyter"},
};

// A fake kubelet serving kTwoPods, and a reader of it that has read it once.
struct ReadKubelet {
  test::TempDir dir;
  std::string socket = dir.path() + "/kubelet.sock";
  test::FakeKubelet kubelet{socket};
  KubeletReader reader{socket, GPUWATCH_KUBELET_MODULE};
  ReadKubelet() {
    kubelet.set_allocations(kTwoPods);
    kubelet.start();
    const auto first = reader.read(1000, 2s);
    EXPECT_FALSE(first.error) << first.error->message;
  }
};

TEST(KubeletReader, ListsEveryAllocatedDeviceWithItsPodAndContainer) {
  test::TempDir dir;
  const std::string socket = dir.path() + "/kubelet.sock";
  test::FakeKubelet kubelet(socket);
  kubelet.set_allocations(kTwoPods);
  kubelet.set_allocatable({"GPU-aaaa", "GPU-bbbb", "GPU-dddd"});
  kubelet.start();

  KubeletReader reader(socket, GPUWATCH_KUBELET_MODULE);
  const auto read = reader.read(1000, 2s);
  ASSERT_FALSE(read.error) << read.error->message;
  EXPECT_EQ(read.reading->allocations, kTwoPods);
  EXPECT_EQ(read.reading->allocatable, (std::vector<std::string>{"GPU-aaaa", "GPU-bbbb", "GPU-dddd"}));
  // Unchanged: the same reading is shared.
  EXPECT_EQ(reader.read(2000, 2s).reading, read.reading);
}

TEST(KubeletReader, ReadsDraClaimsWithTheirCdiDevicesAndSliceDevice) {
  test::TempDir dir;
  const std::string socket = dir.path() + "/kubelet.sock";
  test::FakeKubelet kubelet(socket);
  kubelet.set_allocations(kTwoPods);
  // A container with two claims (one of two devices), beside a device plugin's allocation in another pod;
  // the older kubelet's claim has CDI devices only.
  const std::vector<kubelet::ClaimAllocation> claims = {
      {"llm",
       "serve-0",
       "vllm",
       "llm",
       "serve-0-gpus",
       "gpu.nvidia.com",
       "node-7",
       "gpu-3",
       {"k8s.gpu.nvidia.com/claim=6f0c-gpu-3", "nvidia.com/gpu=3"}},
      {"llm", "serve-0", "vllm", "llm", "serve-0-gpus", "gpu.nvidia.com", "node-7", "gpu-4", {}},
      {"llm",
       "serve-0",
       "vllm",
       "llm",
       "serve-0-nic",
       "nic.example.com",
       "node-7",
       "nic-0",
       {"example.com/nic=0"}},
      {"vision", "notebook", "jupyter", "vision", "nb-mig", "", "", "", {"nvidia.com/gpu=2:1"}},
  };
  kubelet.set_claims(claims);
  kubelet.start();
  KubeletReader reader(socket, GPUWATCH_KUBELET_MODULE);
  const auto read = reader.read(1000, 2s);
  ASSERT_FALSE(read.error) << read.error->message;
  EXPECT_EQ(read.reading->allocations, kTwoPods);
  // The kubelet lists them by pod, in no order of ours.
  const auto by_pod = [](std::vector<kubelet::ClaimAllocation> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return std::tie(a.namespace_name, a.pod, a.claim_name, a.device) <
             std::tie(b.namespace_name, b.pod, b.claim_name, b.device);
    });
    return v;
  };
  EXPECT_EQ(by_pod(read.reading->claims), by_pod(claims));
}

TEST(KubeletReader, AKubeletWithoutAllocatableResourcesStillNamesPods) {
  test::TempDir dir;
  const std::string socket = dir.path() + "/kubelet.sock";
  test::FakeKubelet kubelet(socket);
  kubelet.set_allocations(kTwoPods);
  kubelet.set_allocatable_unimplemented(true);
  kubelet.start();
  KubeletReader reader(socket, GPUWATCH_KUBELET_MODULE);
  const auto read = reader.read(1000, 2s);
  ASSERT_FALSE(read.error) << read.error->message;
  EXPECT_EQ(read.reading->allocations.size(), 3u);
  EXPECT_TRUE(read.reading->allocatable.empty());
}

TEST(KubeletReader, AMissingSocketFailsWithItsReason) {
  test::TempDir dir;
  KubeletReader reader(dir.path() + "/kubelet.sock", GPUWATCH_KUBELET_MODULE);
  const auto read = reader.read(1000, 100ms);
  ASSERT_TRUE(read.error);
  EXPECT_EQ(read.error->reason, "socket_missing");
  EXPECT_NE(read.error->message.find("kubelet.sock"), std::string::npos);
  EXPECT_TRUE(read.reading->allocations.empty());
}

TEST(KubeletReader, SurvivesAKubeletRestart) {
  ReadKubelet k;
  test::FakeKubelet& kubelet = k.kubelet;
  KubeletReader& reader = k.reader;
  kubelet.stop();  // the socket is gone
  const auto down = reader.read(2000, 200ms);
  ASSERT_TRUE(down.error);
  EXPECT_EQ(down.error->reason, "socket_missing");
  // Within the carry time the last reading still names the pods.
  EXPECT_EQ(down.reading->allocations.size(), 3u);

  // The new kubelet has other allocations; the watch sees the new socket and the next read reconnects.
  kubelet.set_allocations({{"nvidia.com/gpu", "GPU-dddd", "ops", "batch-7", "worker"}});
  kubelet.start();
  const auto up = reader.read(3000, 2s);
  ASSERT_FALSE(up.error) << up.error->message;
  ASSERT_EQ(up.reading->allocations.size(), 1u);
  EXPECT_EQ(up.reading->allocations[0].pod, "batch-7");
}

TEST(KubeletReader, ALongOutageUnnamesThePods) {
  ReadKubelet k;
  test::FakeKubelet& kubelet = k.kubelet;
  KubeletReader& reader = k.reader;
  kubelet.stop();
  const auto later = reader.read(1000 + KubeletReader::kCarryMs + 1, 200ms);
  ASSERT_TRUE(later.error);
  EXPECT_TRUE(later.reading->allocations.empty());
}

TEST(KubeletReader, TheHostReaderReportsTheSourceAndDegradesOnlyIt) {
  test::TempDir dir;
  HostReader reader({"", "", "", dir.path() + "/kubelet.sock", "", GPUWATCH_KUBELET_MODULE});
  ASSERT_EQ(reader.source_names(), std::vector<std::string>{"kubelet"});
  auto reading = reader.read({1000, {}, {}, std::nullopt});
  ASSERT_EQ(reading.sources.size(), 1u);
  EXPECT_FALSE(reading.sources[0].success);
  EXPECT_EQ(reading.sources[0].reason, "socket_missing");
  ASSERT_TRUE(reading.host->pod_resources);

  test::FakeKubelet kubelet(dir.path() + "/kubelet.sock");
  kubelet.set_allocations(kTwoPods);
  kubelet.start();
  reading = reader.read({2000, {}, {}, std::nullopt});
  ASSERT_EQ(reading.sources.size(), 1u);
  EXPECT_TRUE(reading.sources[0].success) << reading.sources[0].message;
  EXPECT_EQ(reading.host->pod_resources->allocations, kTwoPods);
}

TEST(KubeletReader, AMissingModuleDegradesOnlyTheKubeletSource) {
  test::TempDir dir;
  test::FakeKubelet kubelet(dir.path() + "/kubelet.sock");
  kubelet.set_allocations(kTwoPods);
  kubelet.start();
  HostReader reader({"", "", "", dir.path() + "/kubelet.sock", "", dir.path() + "/gpuwatch-kubelet.so"});
  const auto reading = reader.read({1000, {}, {}, std::nullopt});
  ASSERT_EQ(reading.sources.size(), 1u);
  EXPECT_FALSE(reading.sources[0].success);
  EXPECT_EQ(reading.sources[0].reason, "module_missing");
  EXPECT_NE(reading.sources[0].message.find(dir.path() + "/gpuwatch-kubelet.so"), std::string::npos)
      << reading.sources[0].message;
  ASSERT_TRUE(reading.host->pod_resources);
  EXPECT_TRUE(reading.host->pod_resources->allocations.empty());
}

TEST(KubeletReader, AModuleWithoutTheEntryPointIsRefusedWithItsReason) {
  test::TempDir dir;
  // A shared library that loads but is not the kubelet module (the simulator's, say).
  KubeletReader reader(dir.path() + "/kubelet.sock", GPUWATCH_NOT_A_KUBELET_MODULE);
  const auto read = reader.read(1000, 200ms);
  ASSERT_TRUE(read.error);
  EXPECT_EQ(read.error->reason, "module_missing");
  EXPECT_NE(read.error->message.find("gpuwatch_kubelet_open_v1"), std::string::npos) << read.error->message;
}

}  // namespace
}  // namespace gpuwatch
