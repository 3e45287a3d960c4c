// The noisy-neighbour scenario (scenarios/noisy-neighbour-4xh200.yaml) as a game day: of four GPUs where a
// second process arrives at minute 5, only the one whose incumbent loses half its SM utilization alerts,
// naming the newcomer, within one interval of the arrival plus the measure window and the alert's for.
#include <gtest/gtest.h>

#include <iostream>

#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

const GameDayResult& noisy() {
  static const GameDayResult result = [] {
    GameDayOptions o;
    o.end_s = 12 * 60;
    o.step_s = 5;
    return run_game_day(gpuwatch::test::scenario_path("noisy-neighbour-4xh200.yaml"), o);
  }();
  return result;
}

TEST(NoisyNeighbourGameDay, OnlyTheHurtIncumbentsGpuAlertsAndItNamesTheNewcomer) {
  const AlertKey alert{"GpuNoisyNeighbour", "ticket", "0"};
  const Score s = score({alert}, noisy());
  std::cout << "noisy-neighbour game day: precision " << s.precision() << " recall " << s.recall() << "\n";
  for (const auto& [k, t] : noisy().fired)
    if (std::get<0>(k) != "Watchdog") {
      EXPECT_EQ(k, alert) << describe(k) << " fired at " << t << " s";
    }
  ASSERT_TRUE(noisy().fired.contains(alert));
  const auto& c = noisy().example.at(alert);
  EXPECT_EQ(c.labels.at("pid"), "71100");
  EXPECT_EQ(c.labels.at("process"), "jupyter");
  // From the newcomer's cgroup in the simulator's /proc tree: its container and pod.
  EXPECT_EQ(c.labels.at("container_id"), "containerd://bbbb");
  EXPECT_EQ(c.labels.at("pod_uid"), "2222");
  EXPECT_NE(c.summary.find("pid 71000 (trainer)"), std::string::npos) << c.summary;
  // Arrival at 300 s; the drop shows in the newest minute's mean within a few samples; then for 3 min.
  const double t = noisy().fired.at(alert);
  std::cout << "GpuNoisyNeighbour on GPU 0 fired at " << t << " s (arrival at 300 s)\n";
  EXPECT_GE(t, 300 + 180);
  EXPECT_LE(t, 300 + 180 + 60);
}

}  // namespace
}  // namespace gpuwatch::detect::test
