// Detection end to end on recorded inputs: a recorded kernel log and a fake sysfs tree next to a snapshot
// raise the XID with its process, the lost GPU and the uncorrectable AER error; the agent's options reach
// the detectors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "detect/detection.h"
#include "detect_fixture.h"
#include "fake_pci_tree.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;

class TempTree {
 public:
  TempTree()
      : path_(std::filesystem::temp_directory_path() / ("gpuwatch-detection-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempTree() { std::filesystem::remove_all(path_); }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  std::filesystem::path path() const { return path_; }
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << text;
  }

 private:
  std::filesystem::path path_;
};

TEST(Detection, RecordedKernelLogAndSysfsTreeRaiseTheirAlerts) {
  TempTree tree;
  Gpu g0(0), g1(1);  // bus ids 0000:18:00.0 and 0000:19:00.0
  tree.write(
      "kmsg",
      "6,1,4820112,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC "
      "2024\n"
      "4,2,91233420012,-;NVRM: Xid (PCI:0000:18:00): 31, pid=4242, name=trainer, Ch 00000010, MMU Fault\n"
      "4,3,99001200000,-;NVRM: GPU 0000:19:00.0: GPU has fallen off the bus.\n");
  tree.write("sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
  tree.write("sys/module/nvidia/version", "550.54.15\n");
  AgentOptions options;
  options.kmsg = (tree.path() / "kmsg").string();
  options.sysfs_root = (tree.path() / "sys").string();
  options.detectors.oom_forecast.horizon = std::chrono::hours(2);
  const DetectionOptions d = detection_options(options);
  EXPECT_EQ(d.settings.oom_forecast.horizon, std::chrono::hours(2));
  Detection detection(d);

  auto cs = detection.evaluate(test::snapshot_at(1000, {g0, g1}));
  EXPECT_EQ(test::names(cs), (std::vector<std::string>{"GpuXidApplication", "GpuLost", "Watchdog"}));
  EXPECT_EQ(cs[0].labels.at("process"), "trainer");
  EXPECT_EQ(cs[1].labels.at("gpu"), "1");
  ASSERT_TRUE(detection.kmsg_status().has_value());
  EXPECT_TRUE(detection.kmsg_status()->readable);

  // The fatal AER counter rises between two evaluations.
  tree.write("sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal", "TOTAL_ERR_FATAL 1\n");
  cs = detection.evaluate(test::snapshot_at(2000, {g0, g1}));
  EXPECT_EQ(test::names(cs), (std::vector<std::string>{"GpuXidApplication", "GpuLost",
                                                       "GpuPcieUncorrectableError", "Watchdog"}));
}

TEST(Detection, NoKernelLogNoSysfsStillDetectsFromTheSnapshot) {
  AgentOptions options;
  options.kmsg = "";
  options.sysfs_root = "";
  Detection detection(detection_options(options));
  Gpu g(0);
  g.state(DeviceState::kLost);
  EXPECT_FALSE(detection.kmsg_status().has_value());
  std::string metrics;
  detection.append_metrics(metrics, ExpositionFormat::kText004);
  EXPECT_EQ(metrics, "") << "no kernel log, no families";
  EXPECT_EQ(test::names(detection.evaluate(test::snapshot_at(1000, {g}))),
            (std::vector<std::string>{"GpuLost", "Watchdog"}));
}

TEST(Detection, AnUnreadableKernelLogIsAMetricNotAFailure) {
  AgentOptions options;
  options.kmsg = "/nonexistent/kmsg";
  options.sysfs_root = "";
  Detection detection(detection_options(options));
  Gpu g(0);
  EXPECT_EQ(test::names(detection.evaluate(test::snapshot_at(1000, {g}))),
            (std::vector<std::string>{"Watchdog"}));
  detection.evaluate(test::snapshot_at(2000, {g}));
  std::string metrics;
  detection.append_metrics(metrics, ExpositionFormat::kText004);
  EXPECT_NE(metrics.find("gpuwatch_kernel_log_readable 0\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_kernel_log_open_failures_total 2\n"), std::string::npos) << metrics;
  EXPECT_NE(detection.kmsg_status()->error.find("No such file"), std::string::npos);
}

TEST(Detection, SharedPcieLinksFromSysfsAreMetrics) {
  TempTree tree;
  gpuwatch::test::add_switch_with_two_gpus(tree.path() /
                                           "sys");  // GPUs 0 and 1 below switch port 0000:01:00.0
  AgentOptions options;
  options.kmsg = "";
  options.sysfs_root = (tree.path() / "sys").string();
  Detection detection(detection_options(options));
  Gpu g0(0), g1(1), g2(2);
  detection.evaluate(test::snapshot_at(1000, {g0, g1, g2}));
  std::string metrics;
  detection.append_metrics(metrics, ExpositionFormat::kText004);
  EXPECT_NE(metrics.find("# TYPE gpu_pcie_shared_link_info gauge\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find(
                "gpu_pcie_shared_link_info{gpu=\"0\",uuid=\"GPU-00000000\",pcie_link=\"0000:01:00.0\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("gpu_pcie_shared_link_info{gpu=\"1\","), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("gpu_pcie_shared_link_info{gpu=\"2\","), std::string::npos)
      << "GPU 2 shares nothing";
  EXPECT_NE(metrics.find("gpu_pcie_shared_link_capacity_bytes_per_second{pcie_link=\"0000:01:00.0\",upstream="
                         "\"0000:00:01.0\"} "
                         "63015384615.3846"),
            std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("gpuwatch_kernel_log"), std::string::npos) << "the kernel log is not read";
}

}  // namespace
}  // namespace gpuwatch::detect
