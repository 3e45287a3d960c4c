#include <gtest/gtest.h>

#include <set>

#include "rules/detector_settings.h"

namespace gpuwatch::rules {
namespace {

TEST(Tunables, EachHasOneOptionNameAndDefaultsInItsRange) {
  std::set<std::string> keys;
  const DetectorSettings defaults;
  for (const auto& t : detector_tunables()) {
    EXPECT_TRUE(keys.insert(t.key()).second) << "two tunables named " << t.key();
    EXPECT_FALSE(t.help.empty()) << t.key();
    const double v = t.get(defaults);
    EXPECT_GE(v, t.min) << t.key();
    EXPECT_LE(v, t.max) << t.key();
  }
  EXPECT_TRUE(keys.contains("detect.xid.hold"));
  EXPECT_TRUE(keys.contains("detect.memory_leak.min_growth_bytes"));
  // The two tunables that were options before the detect.* names keep their names.
  EXPECT_TRUE(keys.contains("oom_forecast_horizon"));
  EXPECT_TRUE(keys.contains("node_power_budget_watts"));
}

TEST(Tunables, SetWritesTheDetectorsOwnField) {
  DetectorSettings s;
  for (const auto& t : detector_tunables()) {
    if (t.key() == "detect.throttle.temperature_margin_c") t.set(s, 8);
    if (t.key() == "detect.ecc.storm_window") t.set(s, 120000);
    if (t.key() == "detect.memory_leak.bins") t.set(s, 12);
  }
  EXPECT_EQ(s.throttle.temperature_margin_c, 8);
  EXPECT_EQ(s.ecc.storm_window, std::chrono::minutes(2));
  EXPECT_EQ(s.leak.bins, 12U);
  EXPECT_EQ(s.leak.rising_bins, LeakSettings{}.rising_bins);
}

}  // namespace
}  // namespace gpuwatch::rules
