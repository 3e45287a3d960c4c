#include <gtest/gtest.h>

#include "rules/detector_settings.h"

namespace gpuwatch::rules {
namespace {

TEST(Tunables, DescribeTakesEachDefaultFromTheSettingsStruct) {
  const auto tunables = describe<kEccTunables>();
  ASSERT_EQ(tunables.size(), kEccTunables.fields.size());
  EXPECT_EQ(tunables[1].detector, "ecc");
  EXPECT_EQ(tunables[1].name, "storm_window");
  EXPECT_EQ(tunables[1].key(), "detect.ecc.storm_window");
  EXPECT_EQ(tunables[1].default_value, 600000);  // EccSettings::storm_window, 10 min in milliseconds
  EXPECT_EQ(DetectorSettings{}.value(tunables[1]), 600000);
}

TEST(Tunables, ReadGivesTheStructsDefaultsWithTheValuesSet) {
  DetectorSettings s;
  EXPECT_FALSE(s.find("throttle", "temperature_margin_c"));
  s.set("throttle", "temperature_margin_c", 8);
  s.set("ecc", "storm_window", 120000);
  s.set("ecc", "retired_pages_limit", 48);
  EXPECT_EQ(s.throttle().temperature_margin_c, 8);
  EXPECT_EQ(s.throttle().sw_thermal_for, ThrottleSettings{}.sw_thermal_for);
  EXPECT_EQ(s.ecc().storm_window, std::chrono::minutes(2));
  EXPECT_EQ(s.ecc().retired_pages_limit, 48U);
  EXPECT_EQ(s.ecc().corrected_storm_count, EccSettings{}.corrected_storm_count);
  EXPECT_EQ(s.pcie().busy_utilization, PcieSettings{}.busy_utilization);
  // A value of another detector's tunable of the same name is not this one's.
  s.set("pcie_contention", "busy_utilization", 0.9);
  EXPECT_EQ(s.pcie().busy_utilization, PcieSettings{}.busy_utilization);
}

}  // namespace
}  // namespace gpuwatch::rules
