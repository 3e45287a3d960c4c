// The DetectorSet: a healthy node raises only the Watchdog, and every alert a detector can raise has its
// runbook under docs/runbooks/.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "detect/detector_set.h"
#include "detect_fixture.h"
#include "rules/health.h"

namespace gpuwatch::detect {
namespace {

TEST(DetectorSet, AHealthyNodeRaisesOnlyTheWatchdog) {
  DetectorSet set;
  std::vector<test::Gpu> gpus;
  for (unsigned i = 0; i < 8; ++i) gpus.emplace_back(i);
  std::vector<Condition> cs;
  for (int t = 0; t < 600; t += 10)
    cs = set.evaluate({test::snapshot_at(t * 1000LL, gpus), {}, {}, {}, {}, {}});
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "Watchdog");
  EXPECT_TRUE(cs[0].labels.empty());
}

std::set<std::string> all_alertnames() {
  std::set<std::string> out;
  for (const auto& info : detector_table()) {
    std::stringstream names{std::string(info.alertnames)};
    for (std::string name; std::getline(names, name, ',');)
      out.insert(name.substr(name.find_first_not_of(' ')));
  }
  return out;
}

TEST(DetectorSet, TheHealthVerdictJudgesOnlyAlertsADetectorRaises) {
  const auto names = all_alertnames();
  for (const auto alert : health_alerts()) EXPECT_TRUE(names.contains(std::string(alert))) << alert;
}

TEST(DetectorSet, EveryTunableBelongsToADetectorOfTheTable) {
  std::set<std::string_view> detectors;
  for (const auto& info : detector_table()) detectors.insert(info.name);
  for (const auto& t : rules::detector_tunables()) EXPECT_TRUE(detectors.contains(t.detector)) << t.key();
}

TEST(DetectorSet, EveryAlertHasARunbook) {
  std::size_t alerts = 0;
  for (const auto& info : detector_table()) {
    std::stringstream names{std::string(info.alertnames)};
    for (std::string name; std::getline(names, name, ',');) {
      name.erase(0, name.find_first_not_of(' '));
      ++alerts;
      const auto path = std::filesystem::path(GPUWATCH_SOURCE_DIR) / "docs/runbooks" / (name + ".md");
      EXPECT_TRUE(std::filesystem::exists(path)) << "no runbook for " << name << " (" << info.name << ")";
    }
  }
  EXPECT_GE(alerts, 20U);
}

}  // namespace
}  // namespace gpuwatch::detect
