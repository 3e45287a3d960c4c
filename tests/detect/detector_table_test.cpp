// The detector table: every detector file has its row, every row raises alerts that have runbooks under
// docs/runbooks/, and every tunable has one option name and a default in its range.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "detect/detector_table.h"
#include "rules/health.h"

namespace gpuwatch::detect {
namespace {

std::vector<std::string> alertnames(const DetectorInfo& info) {
  std::vector<std::string> out;
  std::stringstream names{std::string(info.alertnames)};
  for (std::string name; std::getline(names, name, ',');)
    out.push_back(name.substr(name.find_first_not_of(' ')));
  return out;
}

TEST(DetectorTable, EveryDetectorFileHasItsRowAndEveryRowItsFile) {
  std::set<std::string> files, rows;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(GPUWATCH_SOURCE_DIR) / "src/detect")) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = "_detector.cpp";
    if (name.size() > suffix.size() && name.ends_with(suffix))
      files.insert(name.substr(0, name.size() - suffix.size()));
  }
  for (const auto& info : detector_table())
    EXPECT_TRUE(rows.insert(std::string(info.name)).second) << "two rows named " << info.name;
  EXPECT_EQ(files, rows) << "each src/detect/<name>_detector.cpp needs its line in detector_table.cpp";
  EXPECT_GE(rows.size(), 15U);
}

TEST(DetectorTable, EveryRowRaisesAlertsThatHaveRunbooks) {
  std::size_t alerts = 0;
  for (const auto& info : detector_table()) {
    const auto names = alertnames(info);
    EXPECT_FALSE(names.empty()) << info.name << " raises no alert, so it has no runbook";
    for (const auto& name : names) {
      ++alerts;
      const auto path = std::filesystem::path(GPUWATCH_SOURCE_DIR) / "docs/runbooks" / (name + ".md");
      EXPECT_TRUE(std::filesystem::exists(path)) << "no runbook for " << name << " (" << info.name << ")";
    }
  }
  EXPECT_GE(alerts, 20U);
}

TEST(DetectorTable, TheHealthVerdictJudgesOnlyAlertsADetectorRaises) {
  std::set<std::string> names;
  for (const auto& info : detector_table())
    for (const auto& name : alertnames(info)) names.insert(name);
  for (const auto alert : health_alerts()) EXPECT_TRUE(names.contains(std::string(alert))) << alert;
}

TEST(DetectorTable, EveryTunableHasOneOptionNameAndADefaultInItsRange) {
  std::set<std::string> keys;
  for (const auto& info : detector_table()) {
    for (const auto& t : info.tunables) {
      EXPECT_EQ(t.detector, info.name) << t.key();
      EXPECT_TRUE(keys.insert(t.key()).second) << "two tunables named " << t.key();
      EXPECT_FALSE(t.help.empty()) << t.key();
      EXPECT_GE(t.default_value, t.min) << t.key();
      EXPECT_LE(t.default_value, t.max) << t.key();
    }
  }
  EXPECT_TRUE(keys.contains("detect.xid.hold"));
  EXPECT_TRUE(keys.contains("detect.memory_leak.min_growth_bytes"));
  // The two tunables that were options before the detect.* names keep their names.
  EXPECT_TRUE(keys.contains("oom_forecast_horizon"));
  EXPECT_TRUE(keys.contains("node_power_budget_watts"));
}

}  // namespace
}  // namespace gpuwatch::detect
