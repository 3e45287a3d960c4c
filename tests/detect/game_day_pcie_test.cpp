// The PCIe contention scenario (scenarios/pcie-contention-4xh200.yaml) as a game day: a job arriving on GPU1
// fills switch A's uplink beside GPU0's trainer, and one ticket names that uplink, the direction, the
// arrival and the slowed GPU within the measure window plus the alert's for. Switch B's two loaders under
// capacity, and one GPU filling switch B's uplink alone, raise nothing; without the sysfs tree (no
// topology) nothing fires at all.
#include <gtest/gtest.h>

#include <iostream>

#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

GameDayResult run_pcie_day(bool read_sysfs) {
  GameDayOptions o;
  o.end_s = 12 * 60;
  o.step_s = 5;
  o.read_sysfs = read_sysfs;
  return run_game_day(gpuwatch::test::scenario_path("pcie-contention-4xh200.yaml"), o);
}

TEST(PcieContentionGameDay, TheFullUplinkIsNamedOnce) {
  const AlertKey alert{"GpuPcieContention", "ticket", ""};
  const GameDayResult r = run_pcie_day(true);
  const Score s = score({alert}, r);
  std::cout << "PCIe contention game day: precision " << s.precision() << " recall " << s.recall() << "\n";
  for (const auto& [k, t] : r.fired)
    if (std::get<0>(k) != "Watchdog") {
      EXPECT_EQ(k, alert) << describe(k) << " fired at " << t << " s";
    }
  ASSERT_TRUE(r.fired.contains(alert));
  const auto& c = r.example.at(alert);
  EXPECT_EQ(c.labels.at("pcie_link"), "0000:01:00.0");  // switch A's upstream port
  EXPECT_EQ(c.labels.at("direction"), "host_to_device");
  EXPECT_NE(c.summary.find("GPUs 0, 1 share the full PCIe uplink"), std::string::npos) << c.summary;
  EXPECT_NE(c.description.find("Gen5 x16 uplink from 0000:00:01.0 to 0000:01:00.0"), std::string::npos)
      << c.description;
  EXPECT_NE(c.description.find("(slowed by"), std::string::npos) << c.description;  // GPU0
  EXPECT_NE(c.description.find("GPU 1:"), std::string::npos) << c.description;
  EXPECT_NE(c.description.find("(arrived"), std::string::npos) << c.description;
  // The arrival at 300 s fills the newest minute's mean within a minute; then for 3 min.
  const double t = r.fired.at(alert);
  std::cout << "GpuPcieContention fired at " << t << " s (arrival at 300 s): " << c.summary << "\n  "
            << c.description << "\n";
  EXPECT_GE(t, 300 + 180);
  EXPECT_LE(t, 300 + 180 + 60);
}

TEST(PcieContentionGameDay, WithoutTheTopologyNothingFires) {
  const GameDayResult r = run_pcie_day(false);
  for (const auto& [k, t] : r.fired)
    if (std::get<0>(k) != "Watchdog") ADD_FAILURE() << describe(k) << " fired at " << t << " s";
}

}  // namespace
}  // namespace gpuwatch::detect::test
