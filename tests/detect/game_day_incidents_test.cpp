// The incidents scenario (scenarios/incidents-8xh200.yaml) as a game day: each GPU's fault must raise exactly
// its alerts, with the right severity, on the right GPU, and nothing else may fire. One run of 12 scenario
// minutes (snapshots every 5 s) per test process; it prints the suite's precision and recall.
#include <gtest/gtest.h>

#include <iostream>

#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

const GameDayResult& incidents() {
  static const GameDayResult result = [] {
    GameDayOptions o;
    o.end_s = 12 * 60;
    o.step_s = 5;
    return run_game_day(gpuwatch::test::scenario_path("incidents-8xh200.yaml"), o);
  }();
  return result;
}

// Every alert of the scenario, by GPU. Alert names are documented in docs/detection.md.
const std::set<AlertKey>& expected() {
  static const std::set<AlertKey> kExpected = {
      {"GpuThermalSlowdown", "page", "0"},       {"GpuMemoryExhaustionForecast", "page", "1"},
      {"GpuProcessProbableOom", "ticket", "1"},  {"GpuEccCorrectedStorm", "ticket", "2"},
      {"GpuEccUncorrectable", "page", "2"},      {"GpuXidCritical", "page", "2"},
      {"GpuMemoryRepairPending", "ticket", "2"}, {"GpuLost", "page", "3"},
      {"GpuXidCritical", "page", "3"},           {"GpuPcieReplayRate", "ticket", "4"},
      {"GpuPcieLinkDegraded", "ticket", "4"},    {"GpuStale", "page", "5"},
      {"GpuXidApplication", "ticket", "6"},      {"GpuPowerBrake", "page", "7"},
  };
  return kExpected;
}

std::set<AlertKey> fired_on(const std::string& gpu) {
  std::set<AlertKey> out;
  for (const auto& [k, t] : incidents().fired)
    if (std::get<2>(k) == gpu) out.insert(k);
  return out;
}

std::set<AlertKey> expected_on(const std::string& gpu) {
  std::set<AlertKey> out;
  for (const auto& k : expected())
    if (std::get<2>(k) == gpu) out.insert(k);
  return out;
}

std::string list(const std::set<AlertKey>& keys) {
  std::string out;
  for (const auto& k : keys) out += describe(k) + " ";
  return out;
}

double fired_at(const AlertKey& k) {
  auto it = incidents().fired.find(k);
  return it == incidents().fired.end() ? -1 : it->second;
}

TEST(IncidentsGameDay, EachGpuRaisesExactlyItsAlerts) {
  for (int i = 0; i < 8; ++i) {
    const std::string gpu = std::to_string(i);
    EXPECT_EQ(fired_on(gpu), expected_on(gpu))
        << "GPU " << gpu << "\nfired: " << list(fired_on(gpu)) << "\nexpected: " << list(expected_on(gpu));
  }
}

// The agent's clock is in whole milliseconds, so a snapshot taken "at" a fault's second may land a hair
// before it: within one interval (5 s here) after the fault, plus the alert's for duration, is the promise.
void expect_fired_within_one_interval(const AlertKey& k, double fault_s, double for_s = 0) {
  const double t = fired_at(k);
  EXPECT_GE(t, fault_s + for_s) << describe(k);
  EXPECT_LE(t, fault_s + for_s + 5) << describe(k);
}

TEST(IncidentsGameDayTiming, AlertsFireWithinOneIntervalOfTheFaultPlusTheirFor) {
  expect_fired_within_one_interval({"GpuThermalSlowdown", "page", "0"}, 180);
  expect_fired_within_one_interval({"GpuEccUncorrectable", "page", "2"}, 420);
  expect_fired_within_one_interval({"GpuXidCritical", "page", "2"}, 420);
  expect_fired_within_one_interval({"GpuLost", "page", "3"}, 480);
  expect_fired_within_one_interval({"GpuXidCritical", "page", "3"}, 480);
  expect_fired_within_one_interval({"GpuStale", "page", "5"}, 240, 30);
  expect_fired_within_one_interval({"GpuXidApplication", "ticket", "6"}, 150);
  expect_fired_within_one_interval({"GpuPcieLinkDegraded", "ticket", "4"}, 300, 60);
  expect_fired_within_one_interval({"GpuPowerBrake", "page", "7"}, 600);
}

TEST(IncidentsGameDayDetails, KernelLogAndCgroupsAddTheProcessAndJobAndDescriptionsCarryValues) {
  const auto& ex = incidents().example;
  const auto& app = ex.at({"GpuXidApplication", "ticket", "6"});
  EXPECT_EQ(app.labels.at("xid"), "13") << "the first application XID";
  EXPECT_EQ(app.labels.at("pid"), "61006");
  EXPECT_EQ(app.labels.at("process"), "python3");
  EXPECT_EQ(app.labels.at("slurm_job"), "48213") << "from the process's cgroup";
  const auto& oom = ex.at({"GpuProcessProbableOom", "ticket", "1"});
  EXPECT_EQ(oom.labels.at("pid"), "61001");
  EXPECT_EQ(oom.labels.at("slurm_job"), "48213");
  EXPECT_NE(oom.description.find("% full"), std::string::npos) << oom.description;
  const auto& forecast = ex.at({"GpuMemoryExhaustionForecast", "page", "1"});
  EXPECT_EQ(forecast.labels.at("pid"), "61001");
  const auto& link = ex.at({"GpuPcieLinkDegraded", "ticket", "4"});
  EXPECT_NE(link.description.find("x8, maximum gen 5 x16"), std::string::npos) << link.description;
}

TEST(IncidentsGameDayScore, PrecisionAndRecall) {
  const Score s = score(expected(), incidents());
  std::cout << "incidents game day: precision " << s.precision() << " recall " << s.recall() << " ("
            << s.true_positives << " true, " << s.false_positives << " false positives, " << s.false_negatives
            << " missed)\n";
  EXPECT_EQ(s.false_positives, 0U);
  EXPECT_EQ(s.false_negatives, 0U);
  EXPECT_TRUE(incidents().fired.contains({"Watchdog", "ticket", ""}));
}

}  // namespace
}  // namespace gpuwatch::detect::test
