// Detection end to end on recorded inputs: a recorded kernel log and a fake sysfs tree, read by the host
// sources into a snapshot, raise the XID with its process, the lost GPU and the uncorrectable AER error;
// detection itself reads nothing but the snapshot; the agent's options reach the detectors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "detect/detection.h"
#include "detect_fixture.h"
#include "exposition/native_metrics.h"
#include "fake_pci_tree.h"
#include "sources/host/host_reader.h"

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

// The snapshot with what the host sources read for its GPUs, as the collector publishes it.
Snapshot with_host(Snapshot s, HostReader& reader) {
  HostRequest request;
  request.now_ms = s.timestamp_ms;
  for (const auto& d : s.devices) request.gpu_bus_ids.push_back(d.identity.pci_bus_id);
  auto reading = reader.read(request);
  s.host = reading.host;
  s.sources = std::move(reading.sources);
  return s;
}

std::string rendered(const Snapshot& s) {
  std::string out;
  for (const auto& f : native_families(s)) append_family(out, f, ExpositionFormat::kText004);
  return out;
}

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
  HostReader reader({(tree.path() / "kmsg").string(), (tree.path() / "sys").string(), "", "", "", ""});
  DetectionOptions d;
  test::tune(d.settings, "oom_forecast.horizon", std::chrono::hours(2));
  Detection detection(d);

  const Snapshot first = with_host(test::snapshot_at(1000, {g0, g1}), reader);
  auto cs = detection.evaluate(first);
  EXPECT_EQ(test::names(cs), (std::vector<std::string>{"GpuXidApplication", "GpuLost", "Watchdog"}));
  EXPECT_EQ(cs[0].labels.at("process"), "trainer");
  EXPECT_EQ(cs[1].labels.at("gpu"), "1");
  ASSERT_TRUE(first.host->kernel_log.has_value());
  EXPECT_TRUE(first.host->kernel_log->readable);
  const std::string metrics = rendered(first);
  EXPECT_NE(metrics.find("gpuwatch_kernel_log_readable 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_kernel_log_events_total{kind=\"xid\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_source_success{source=\"kernel_log\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_source_success{source=\"pcie_aer\"} 1\n"), std::string::npos) << metrics;

  // The fatal AER counter rises between two evaluations.
  tree.write("sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal", "TOTAL_ERR_FATAL 1\n");
  cs = detection.evaluate(with_host(test::snapshot_at(2000, {g0, g1}), reader));
  EXPECT_EQ(test::names(cs), (std::vector<std::string>{"GpuXidApplication", "GpuLost",
                                                       "GpuPcieUncorrectableError", "Watchdog"}));
}

TEST(Detection, ASkippedSnapshotLosesNoKernelLogEvent) {
  TempTree tree;
  Gpu g0(0);
  tree.write("kmsg", "");
  HostReader reader({(tree.path() / "kmsg").string(), "", "", "", "", ""});
  Detection detection({});
  EXPECT_EQ(test::names(detection.evaluate(with_host(test::snapshot_at(1000, {g0}), reader))),
            (std::vector<std::string>{"Watchdog"}));
  tree.write("kmsg",
             "4,2,91233420012,-;NVRM: Xid (PCI:0000:18:00): 31, pid=4242, name=trainer, Ch 00000010, MMU "
             "Fault\n");
  // The snapshot that first held the XID never reaches detection (a full queue drops it) ...
  const Snapshot dropped = with_host(test::snapshot_at(2000, {g0}), reader);
  EXPECT_EQ(dropped.host->kernel_events_read, 1u);
  // ... the next one still carries it, once.
  auto cs = detection.evaluate(with_host(test::snapshot_at(3000, {g0}), reader));
  EXPECT_EQ(test::names(cs), (std::vector<std::string>{"GpuXidApplication", "Watchdog"}));
  cs = detection.evaluate(with_host(test::snapshot_at(4000, {g0}), reader));
  EXPECT_EQ(cs.front().labels.at("process"), "trainer") << "the XID condition holds, not raised again";
}

TEST(Detection, NoHostReadingsStillDetectsFromTheSnapshot) {
  Detection detection(DetectionOptions{});
  Gpu g(0);
  g.state(DeviceState::kLost);
  const Snapshot s = test::snapshot_at(1000, {g});
  EXPECT_EQ(rendered(s).find("gpuwatch_kernel_log"), std::string::npos) << "no kernel log, no families";
  EXPECT_EQ(test::names(detection.evaluate(s)), (std::vector<std::string>{"GpuLost", "Watchdog"}));
}

TEST(Detection, AnUnreadableKernelLogIsAFailedSourceNotAFailedDetection) {
  HostReader reader({"/nonexistent/kmsg", "", "", "", "", ""});
  Detection detection({});
  Gpu g(0);
  EXPECT_EQ(test::names(detection.evaluate(with_host(test::snapshot_at(1000, {g}), reader))),
            (std::vector<std::string>{"Watchdog"}));
  const Snapshot s = with_host(test::snapshot_at(2000, {g}), reader);
  detection.evaluate(s);
  const std::string metrics = rendered(s);
  EXPECT_NE(metrics.find("gpuwatch_kernel_log_readable 0\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_kernel_log_open_failures_total 2\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("gpuwatch_source_success{source=\"kernel_log\"} 0\n"), std::string::npos) << metrics;
  EXPECT_NE(s.host->kernel_log->error.find("No such file"), std::string::npos);
  ASSERT_EQ(s.sources.size(), 1u);
  EXPECT_EQ(s.sources[0].reason, "unreadable");
}

TEST(Detection, SharedPcieLinksFromSysfsAreMetrics) {
  TempTree tree;
  gpuwatch::test::add_switch_with_two_gpus(tree.path() /
                                           "sys");  // GPUs 0 and 1 below switch port 0000:01:00.0
  HostReader reader({"", (tree.path() / "sys").string(), "", "", "", ""});
  Gpu g0(0), g1(1), g2(2);
  const std::string metrics = rendered(with_host(test::snapshot_at(1000, {g0, g1, g2}), reader));
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

namespace gpuwatch::detect {
namespace {

// The waste alert's price is the configuration's: a reload's price reaches the next description.
TEST(Detection, AReloadedPriceReachesTheWasteAlert) {
  DetectionOptions options;
  options.accounting.gpu_hour_prices = {{"H200", 3.80}};
  Detection detection(options);
  const auto evaluate_at = [&](int minute) {
    test::Gpu g(7);
    g.set(Metric::kUtilization, 0.05);
    g.process(9000, "jupyter", 8 * test::kGiB);
    return detection.evaluate(test::snapshot_at(minute * 60000LL, {g}));
  };
  const auto waste = [](const std::vector<Condition>& cs) -> std::string {
    for (const auto& c : cs)
      if (c.alertname == "GpuIdleWaste") return c.description;
    return "no GpuIdleWaste";
  };
  std::vector<Condition> cs;
  int minute = 0;
  for (; minute <= 25 * 60; minute += 5) cs = evaluate_at(minute);
  EXPECT_NE(waste(cs).find("costs 91.20 a day at 3.80 per GPU-hour"), std::string::npos) << waste(cs);

  AccountingSettings reloaded;
  reloaded.gpu_hour_prices = {{"*", 2.50}};
  detection.set_accounting(reloaded);
  cs = evaluate_at(minute);
  EXPECT_NE(waste(cs).find("costs 60.00 a day at 2.50 per GPU-hour"), std::string::npos) << waste(cs);
}

}  // namespace
}  // namespace gpuwatch::detect
