// Pods that change over a scenario, charged as they were: the collector reads the simulator (in lockstep) and
// a fake kubelet that serves, at each tick, the pods the scenario lists at that tick's time, and the ledger
// must charge every interval to the pod holding the GPU then: a pod moved from GPU 0 to GPU 1 at 2 h has
// two hours on each, a pod living from 1 h to 3 h two hours, and the GPUs nobody held their time unallocated.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "accounting/ledger.h"
#include "collector/collector.h"
#include "fake_kubelet.h"
#include "sim_support.h"

namespace gpuwatch::accounting {
namespace {

constexpr const char* kScenario = R"(devices:
  - {model: H200, count: 3}
pods:
  - {name: mover, namespace: b, stop: 2h, containers: [{name: c, gpus: [0]}]}
  - {name: mover, namespace: b, start: 2h, containers: [{name: c, gpus: [1]}]}
  - {name: late, namespace: a, start: 1h, stop: 3h, containers: [{name: c, gpus: [2]}]}
)";

// The simulator's kubelet answer at its current time (the library the collector loaded: the same clock).
std::vector<kubelet::DeviceAllocation> pods_now() {
  void* lib = ::dlopen(test::sim_library_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!lib) throw std::runtime_error("the simulator is not loaded");
  auto list = reinterpret_cast<int (*)(char*, unsigned)>(::dlsym(lib, "gpuwatchSimPodResources"));
  std::vector<char> buf(1 << 14);
  const int rc = list ? list(buf.data(), static_cast<unsigned>(buf.size())) : -1;
  ::dlclose(lib);
  if (rc != 0) throw std::runtime_error("gpuwatchSimPodResources failed");
  return test::allocations_from_sim(buf.data());
}

TEST(PodsOverTime, EachIntervalIsChargedToThePodHoldingTheGpuThen) {
  test::SimScenario scenario(kScenario);
  test::TempDir dir;
  test::Sim sim;
  const std::string socket = dir.path() + "/kubelet.sock";
  test::FakeKubelet kubelet(socket);
  kubelet.start();
  CollectorOptions o;
  o.nvml_library = test::sim_library_path();
  o.deadline = std::chrono::milliseconds(2000);  // the kubelet's call gets up to a second of it
  o.host = {"", "", "", socket, "", GPUWATCH_KUBELET_MODULE};
  Collector collector(o);
  Ledger ledger(LedgerOptions{});

  for (double t = 0; t <= 4 * 3600; t += 60) {
    collector.clock().sleep_until_ms(sim.ms_at(t));
    kubelet.set_allocations(pods_now());
    collector.tick();
    const SnapshotPtr snap = collector.latest();
    for (const auto& s : snap->sources)
      ASSERT_TRUE(s.name != "kubelet" || s.success) << "at " << t << " s: " << s.message;
    ledger.add(*snap);
  }

  std::map<std::string, double> held;  // "namespace/pod" -> idle-held hours
  for (const auto& [w, totals] : ledger.workloads()) {
    EXPECT_EQ(totals.active.seconds, 0) << w.pod;
    held[w.namespace_name + "/" + w.pod] += totals.idle_held.seconds / 3600;
  }
  EXPECT_EQ(held, (std::map<std::string, double>{{"a/late", 2.0}, {"b/mover", 4.0}}));
  // Per GPU: GPU 0 held for the first two hours, GPU 1 for the last two, GPU 2 from 1 h to 3 h.
  std::map<unsigned, std::pair<double, double>> gpus;  // index -> (idle-held, unallocated) hours
  for (const auto& [uuid, g] : ledger.gpus()) {
    gpus[static_cast<unsigned>(std::stoul(g.index))] = {
        g.totals[static_cast<std::size_t>(GpuState::kIdleHeld)].seconds / 3600,
        g.totals[static_cast<std::size_t>(GpuState::kUnallocated)].seconds / 3600};
  }
  using Hours = std::pair<double, double>;
  EXPECT_EQ(gpus, (std::map<unsigned, Hours>{{0, {2.0, 2.0}}, {1, {2.0, 2.0}}, {2, {2.0, 2.0}}}));
}

}  // namespace
}  // namespace gpuwatch::accounting
