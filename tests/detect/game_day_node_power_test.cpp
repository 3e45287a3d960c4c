// The node power contention scenario (scenarios/node-power-contention-4xh200.yaml) as a game day: the node's
// power manager caps three GPUs to keep the node at its 2200 W budget; one ticket names those three (not the
// GPU at its own power cap) within the measure window plus the alert's for; without a budget, nothing.
#include <gtest/gtest.h>

#include <iostream>

#include "detect_fixture.h"
#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

GameDayResult run_with_budget(double watts) {
  GameDayOptions o;
  o.end_s = 12 * 60;
  o.step_s = 5;
  tune(o.settings, "node_contention.power_budget_watts", watts);
  return run_game_day(gpuwatch::test::scenario_path("node-power-contention-4xh200.yaml"), o);
}

TEST(NodePowerContentionGameDay, TheCappedGpusAreNamedOnce) {
  const AlertKey alert{"GpuNodePowerContention", "ticket", ""};
  const GameDayResult r = run_with_budget(2200);
  const Score s = score({alert}, r);
  std::cout << "node power contention game day: precision " << s.precision() << " recall " << s.recall()
            << "\n";
  for (const auto& [k, t] : r.fired)
    if (std::get<0>(k) != "Watchdog") {
      EXPECT_EQ(k, alert) << describe(k) << " fired at " << t << " s";
    }
  ASSERT_TRUE(r.fired.contains(alert));
  const auto& c = r.example.at(alert);
  EXPECT_NE(c.summary.find("GPUs 0, 1, 2 slow down"), std::string::npos) << c.summary;
  // The cap at 360 s shows in the newest minute's mean within a minute; then for 3 min.
  const double t = r.fired.at(alert);
  std::cout << "GpuNodePowerContention fired at " << t << " s (caps at 360 s): " << c.summary << "\n";
  EXPECT_GE(t, 360 + 180);
  EXPECT_LE(t, 360 + 180 + 60);
}

TEST(NodePowerContentionGameDay, WithoutABudgetNothingFires) {
  const GameDayResult r = run_with_budget(0);
  for (const auto& [k, t] : r.fired)
    if (std::get<0>(k) != "Watchdog") ADD_FAILURE() << describe(k) << " fired at " << t << " s";
}

}  // namespace
}  // namespace gpuwatch::detect::test
