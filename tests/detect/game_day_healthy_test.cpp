// A healthy 24-hour day full of benign confounders (scenarios/healthy-day-8xh200.yaml): cards at their power
// cap, idle nights, an allocator staircase that plateaus, 90% preallocation, XID 43/45 from a Ctrl-C, a
// process exiting normally at 89% memory, a trickle of corrected ECC errors, PCIe loaders that keep their
// switch uplinks busy but not full, and one GPU filling its uplink alone. Nothing may fire but the
// Watchdog. Snapshots every 30 s of scenario time (2,880 for the day) keep the lockstep run short. A node
// power budget is set that the busy daytime node reaches, so node power contention is judged on the day too
// (off, the default, it could not fire at all).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "detect_fixture.h"
#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

// By the simulator's power model the GPUs draw about 3,270 W by day (two at their 500 W cap) and 2,100 W at
// night; the inference server's daily swing and the job gap at 06:00-07:00 take the node in and out of this.
constexpr double kNodePowerBudgetWatts = 3200;

TEST(HealthyDayGameDay, OnlyTheWatchdogFires) {
  GameDayOptions o;
  o.end_s = 24 * 3600;
  o.step_s = 30;
  tune(o.settings, "node_contention.power_budget_watts", kNodePowerBudgetWatts);
  const GameDayResult r = run_game_day(gpuwatch::test::scenario_path("healthy-day-8xh200.yaml"), o);
  const Score s = score({}, r);
  for (const auto& [k, t] : r.fired) {
    if (std::get<0>(k) == "Watchdog") continue;
    ADD_FAILURE() << describe(k) << " fired at " << t << " s: " << r.example.at(k).summary << " ("
                  << r.example.at(k).description << ")";
  }
  EXPECT_TRUE(r.fired.contains({"Watchdog", "ticket", ""}));
  // The budget is judged: the node spends hours at it and hours below it.
  const auto at_budget =
      std::ranges::count_if(r.node_power_w, [](double w) { return w >= 0.97 * kNodePowerBudgetWatts; });
  EXPECT_GT(at_budget * o.step_s, 2 * 3600) << "node power budget never reached";
  EXPECT_GT((std::ssize(r.node_power_w) - at_budget) * o.step_s, 2 * 3600);
  std::cout << "healthy day: " << s.false_positives << " false positives over 24 h; node at its "
            << kNodePowerBudgetWatts << " W budget for " << at_budget * o.step_s / 3600 << " h\n";
}

// The PCIe confounders are real: with the rule's two-GPU guard removed, GPU3's restore at 02:00 (and nothing
// else in the first three hours) fills its switch's uplink; below 70% of the uplink, GPU0-1's daytime loaders
// (73% with the GPUs' own traffic) count as full too.
TEST(HealthyDayGameDay, ThePcieConfoundersComeCloseToTheRule) {
  GameDayOptions o;
  o.end_s = 3 * 3600;
  o.step_s = 30;
  tune(o.settings, "pcie_contention.min_gpus", 1);
  auto r = run_game_day(gpuwatch::test::scenario_path("healthy-day-8xh200.yaml"), o);
  const AlertKey contention{"GpuPcieContention", "ticket", ""};
  ASSERT_TRUE(r.fired.contains(contention)) << "GPU3's restore never filled its uplink";
  EXPECT_NE(r.example.at(contention).summary.find("GPUs 3 share the full PCIe uplink"), std::string::npos)
      << r.example.at(contention).summary;
  EXPECT_GE(r.fired.at(contention), 2 * 3600);
  tune(o.settings, "pcie_contention.min_gpus", 2);
  tune(o.settings, "pcie_contention.at_capacity", 0.7);
  r = run_game_day(gpuwatch::test::scenario_path("healthy-day-8xh200.yaml"), o);
  ASSERT_TRUE(r.fired.contains(contention)) << "the daytime loaders never came near the rule";
  EXPECT_NE(r.example.at(contention).summary.find("GPUs 0, 1 share"), std::string::npos)
      << r.example.at(contention).summary;
}

}  // namespace
}  // namespace gpuwatch::detect::test
