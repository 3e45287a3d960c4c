#include <gtest/gtest.h>

#include "slo/gpu_cause.h"

namespace gpuwatch::slo {
namespace {

alerting::Alert alert(const std::string& name, const std::string& gpu, std::int64_t at_ms,
                      const char* severity) {
  alerting::Alert a;
  a.labels = {{"alertname", name}, {"gpu", gpu}, {"severity", severity}};
  a.state = alerting::AlertState::kFiring;
  a.active_at_ms = at_ms;
  return a;
}

TEST(GpuCause, RanksWhatBeganBeforeTheBurnAndClosestToItFirst) {
  const std::int64_t burn = 10 * 60'000;
  std::vector<alerting::Alert> alerts = {
      alert("GpuMemoryNearFull", "3", burn - 9 * 60'000, "ticket"),  // long before
      alert("GpuThermalThrottle", "3", burn - 60'000, "ticket"),     // just before: explains it best
      alert("GpuXidCritical", "3", burn + 5 * 60'000, "page"),       // after the burn began
      alert("GpuFellOffBus", "5", burn - 60'000, "page"),            // not a GPU of this SLO
  };
  auto slo_alert = alert("SloErrorBudgetBurn", "3", burn, "page");
  slo_alert.labels["slo"] = "latency";
  alerts.push_back(slo_alert);
  const auto causes = rank_gpu_causes({"3"}, alerts, burn);
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0].alertname, "GpuThermalThrottle");
  EXPECT_EQ(causes[1].alertname, "GpuMemoryNearFull");
  EXPECT_EQ(causes[2].alertname, "GpuXidCritical");
}

TEST(GpuCause, AResolvedConditionCountsOnlyIfItOverlapsTheBurn) {
  auto old = alert("GpuThermalThrottle", "2", 0, "ticket");
  old.state = alerting::AlertState::kResolved;
  old.resolved_at_ms = 60'000;
  EXPECT_TRUE(rank_gpu_causes({"2"}, std::vector{old}, 120'000).empty());
  EXPECT_EQ(rank_gpu_causes({"2"}, std::vector{old}, 30'000).size(), 1u);
  EXPECT_EQ(describe_causes({}), "no GPU cause found");
}

}  // namespace
}  // namespace gpuwatch::slo
