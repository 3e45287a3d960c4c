// GpuMonitoringDown: raised with the reason while NVML fails (at once when it never worked, after `for`
// when it stops working), and documented by a runbook.
#include "agent/source_alerts.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpuwatch {
namespace {

Snapshot with_nvml(bool success, std::string reason = {}) {
  Snapshot s;
  s.sources.push_back(
      SourceStatus{"nvml", success, 0.001, std::move(reason), success ? "" : "nvmlInit failed"});
  return s;
}

TEST(SourceAlerts, ANodeThatNeverReadNvmlAlertsAtOnceWithTheReason) {
  SourceAlerts rule;
  std::vector<alerting::Condition> out;
  rule.evaluate(with_nvml(false, "library_not_loaded"), out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].alertname, "GpuMonitoringDown");
  EXPECT_EQ(out[0].severity, alerting::Severity::kPage);
  EXPECT_EQ(out[0].labels.at("source"), "nvml");
  EXPECT_NE(out[0].summary.find("library_not_loaded"), std::string::npos);
  EXPECT_EQ(out[0].description, "nvmlInit failed");
  EXPECT_EQ(out[0].for_duration.count(), 0);
}

TEST(SourceAlerts, ASourceThatWorkedWaitsItsForDurationAndAWorkingOneRaisesNothing) {
  SourceAlerts rule(std::chrono::seconds(30));
  std::vector<alerting::Condition> out;
  rule.evaluate(with_nvml(true), out);
  EXPECT_TRUE(out.empty());
  rule.evaluate(with_nvml(false, "reinitialising"), out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].for_duration, std::chrono::seconds(30));
}

TEST(SourceAlerts, EveryAlertHasARunbook) {
  for (const auto name : kSourceAlertNames) {
    const auto path =
        std::filesystem::path(GPUWATCH_SOURCE_DIR) / "docs/runbooks" / (std::string(name) + ".md");
    EXPECT_TRUE(std::filesystem::exists(path)) << "no runbook for " << name;
  }
}

}  // namespace
}  // namespace gpuwatch
