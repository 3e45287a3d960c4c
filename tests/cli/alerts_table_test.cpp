// `gpuwatch alerts`' table: the alert to act on first, and columns as wide as what they hold.
#include "cli/alerts_table.h"

#include <gtest/gtest.h>

#include <vector>

#include "text_lines.h"

namespace gpuwatch {
namespace {

nlohmann::json alert(const std::string& name, const std::string& severity, const std::string& gpu,
                     bool muted = false) {
  nlohmann::json labels = {{"alertname", name}, {"severity", severity}};
  if (!gpu.empty()) labels["gpu"] = gpu;
  return {{"labels", labels},
          {"annotations", {{"summary", name + " summary"}}},
          {"state", "firing"},
          {"activeAt", "2026-12-01T14:45:36.813Z"},
          {"muted", muted}};
}

TEST(AlertsTable, PagesComeFirstThenGpusInNumberOrderAndNodeWideAlertsLast) {
  const auto alerts = nlohmann::json::array(
      {alert("Watchdog", "ticket", ""), alert("GpuThermalSlowdown", "ticket", "2"),
       alert("GpuMemoryExhaustionForecast", "page", "12"), alert("GpuLost", "page", "3")});
  const auto rows = test::lines_of(render_alerts_table(alerts));
  ASSERT_EQ(rows.size(), 5U);
  EXPECT_NE(rows[1].find("GpuLost"), std::string::npos) << rows[1];
  EXPECT_NE(rows[2].find("GpuMemoryExhaustionForecast"), std::string::npos) << rows[2];
  EXPECT_NE(rows[3].find("GpuThermalSlowdown"), std::string::npos) << rows[3];
  EXPECT_NE(rows[4].find("Watchdog"), std::string::npos) << rows[4];
}

TEST(AlertsTable, ALongAlertNameKeepsItsColumnApartFromTheGpu) {
  const auto rows = test::lines_of(
      render_alerts_table(nlohmann::json::array({alert("GpuMemoryExhaustionForecast", "page", "6")})));
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_NE(rows[1].find("GpuMemoryExhaustionForecast  6"), std::string::npos) << rows[1];
  EXPECT_EQ(rows[0].find("GPU"), rows[1].find(" 6 ") + 1) << rows[0] << "\n" << rows[1];
}

TEST(AlertsTable, MutedAlertsAreMarkedAndExplained) {
  const auto text = render_alerts_table(nlohmann::json::array({alert("GpuLost", "page", "1", true)}));
  EXPECT_NE(text.find("firing*"), std::string::npos) << text;
  EXPECT_NE(text.find("* muted by a silence or an inhibition"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuwatch
