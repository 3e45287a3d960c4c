// The host's sources on the collector's side: the kernel log, sysfs (AER, topology, driver module) and /proc
// (mapped CUDA libraries, cgroups, users, command lines) are read into each snapshot with a gpuwatch_source
// status each, against the tick's deadline, like the GPUs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "collector/collector.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;

constexpr const char* kHostScenario = R"(
node: {hostname: test-node, start: "2025-03-01T12:00:00Z"}
devices:
  - model: H200
    count: 2
    workload: {utilization: 70}
processes:
  - {pid: 5001, gpu: 0, name: trainer, memory: 20GiB, sm_util: 60, user: mlops, uid: 1500,
     cmdline: [torchrun, --nproc-per-node=8, train.py],
     cgroup: "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_000000000001.slice/cri-containerd-abc123.scope"}
)";

class HostSourcesTest : public ::testing::Test {
 protected:
  HostSourcesTest() {
    sim_.write_proc_tree(dir_.path());
    sim_.write_sysfs_tree(dir_.path() + "/sys");
    std::ofstream(dir_.path() + "/kmsg")
        << "4,2,91233420012,-;NVRM: Xid (PCI:0000:18:00): 79, pid=5001, name=trainer, GPU has fallen off\n";
    std::filesystem::create_directories(dir_.path() + "/sys/module/nvidia");
    std::ofstream(dir_.path() + "/sys/module/nvidia/version") << "550.54.15\n";
  }

  CollectorOptions options() const {
    CollectorOptions o;
    o.nvml_library = test::sim_library_path();
    o.deadline = milliseconds(500);
    o.host = {dir_.path() + "/kmsg", dir_.path() + "/sys", dir_.path(), "", "", ""};
    return o;
  }
  SnapshotPtr tick_at(Collector& c, double seconds) {
    c.clock().sleep_until_ms(sim_.ms_at(seconds));
    c.tick();
    return c.latest();
  }
  static std::vector<std::string> source_names(const Snapshot& s) {
    std::vector<std::string> out;
    for (const auto& source : s.sources)
      out.push_back(source.name + (source.success ? "" : ":" + source.reason));
    return out;
  }

  test::SimScenario scenario_{kHostScenario};
  test::Sim sim_;
  test::TempDir dir_;
};

TEST_F(HostSourcesTest, AreReadIntoTheSnapshotWithASourceStatusEach) {
  Collector collector(options());
  const auto first = tick_at(collector, 1);
  ASSERT_EQ(first->devices.size(), 2u);
  const std::string bus = first->devices[0].identity.pci_bus_id;
  ASSERT_FALSE(bus.empty());
  std::ofstream(dir_.path() + "/sys/bus/pci/devices/" + bus + "/aer_dev_fatal") << "TOTAL_ERR_FATAL 2\n";

  const auto s = tick_at(collector, 2);
  EXPECT_EQ(source_names(*s), (std::vector<std::string>{"nvml", "kernel_log", "pcie_aer", "pcie_topology",
                                                        "driver_module", "procfs"}));
  ASSERT_NE(s->host, nullptr);
  EXPECT_EQ(s->host->kernel_events_read, 1u);
  ASSERT_EQ(s->host->kernel_events->size(), 1u);
  EXPECT_EQ(s->host->kernel_events->front().xid, 79u);
  EXPECT_EQ(s->host->kernel_module_version, "550.54.15");
  ASSERT_TRUE(s->host->process_libraries->contains(5001));
  EXPECT_FALSE(s->host->process_libraries->at(5001).empty()) << "the simulated process maps libcuda";
  EXPECT_EQ(s->host->workloads->at(5001).container_id, "containerd://abc123");
  // Who runs it and how, on the process itself, for every consumer of the snapshot.
  ASSERT_EQ(s->devices[0].processes.size(), 1u);
  const ProcessSample& trainer = s->devices[0].processes[0];
  EXPECT_EQ(trainer.uid, 1500u);
  EXPECT_EQ(trainer.user, "mlops") << "from the tree's passwd file";
  EXPECT_EQ(trainer.command, "torchrun --nproc-per-node=8 train.py");
  // AER counters are samples of their GPU, like any reading.
  EXPECT_EQ(test::value_of(s->devices[0], Metric::kPcieAerErrors, "fatal"), 2);
  EXPECT_EQ(s->devices[1].find(Metric::kPcieAerErrors), nullptr) << "GPU 1 has no AER files";
  // Unchanged parts are shared between snapshots, not copied.
  const auto next = tick_at(collector, 3);
  EXPECT_EQ(next->host->process_libraries, s->host->process_libraries);
  EXPECT_EQ(next->host->kernel_events, s->host->kernel_events);
  EXPECT_EQ(next->host->shared_pcie_links, s->host->shared_pcie_links);
}

TEST_F(HostSourcesTest, AHostReadThatOverrunsIsFailedAndDoesNotHoldUpTheSnapshot) {
  // The process's maps file blocks its reader (a FIFO nobody writes), as a stuck /proc or sysfs read would.
  const std::string maps = dir_.path() + "/5001/maps";
  std::filesystem::remove(maps);
  ASSERT_EQ(::mkfifo(maps.c_str(), 0600), 0);
  CollectorOptions o = options();
  o.deadline = milliseconds(100);
  Collector collector(o);
  const auto start = std::chrono::steady_clock::now();
  const auto s = tick_at(collector, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(source_names(*s),
            (std::vector<std::string>{"nvml", "kernel_log:deadline_exceeded", "pcie_aer:deadline_exceeded",
                                      "pcie_topology:deadline_exceeded", "driver_module:deadline_exceeded",
                                      "procfs:deadline_exceeded"}));
  EXPECT_EQ(s->devices.size(), 2u) << "the GPUs are read all the same";
  EXPECT_EQ(s->devices[0].state, DeviceState::kOk);

  // The read is still stuck at the next tick: still failed, no second read started.
  EXPECT_EQ(source_names(*tick_at(collector, 2)).back(), "procfs:deadline_exceeded");
  // Unblocked, the next read succeeds and the kernel log lost nothing.
  const int fd = ::open(maps.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::shared_ptr<const Snapshot> after;
  // Each tick waits at most the 100 ms deadline, so this gives a loaded machine half a minute to finish the
  // released read and one on time.
  for (double t = 3; t < 300; ++t) {
    after = tick_at(collector, t);
    if (after->sources.back().success) break;
  }
  ASSERT_TRUE(after->sources.back().success) << "no host read on time after the FIFO was released";
  ASSERT_NE(after->host, nullptr);
  EXPECT_EQ(source_names(*after), (std::vector<std::string>{"nvml", "kernel_log", "pcie_aer", "pcie_topology",
                                                            "driver_module", "procfs"}));
  EXPECT_EQ(after->host->kernel_events_read, 1u);
}

}  // namespace
}  // namespace gpuwatch
