#include "rules/health.h"
#include "rules/xid_catalogue.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

DeviceSnapshot busy_h200() {
  DeviceSnapshot d;
  d.identity.uuid = "GPU-test";
  d.samples = {
      {Metric::kUtilization, 0.9, {}},
      {Metric::kTemperature, 60, {}},
      {Metric::kTemperatureThreshold, 87, {"slowdown"}},
      {Metric::kPcieLinkGeneration, 5, {}},
      {Metric::kPcieLinkMaxGeneration, 5, {}},
      {Metric::kPcieLinkWidth, 16, {}},
      {Metric::kPcieLinkMaxWidth, 16, {}},
      {Metric::kClockEventActive, 1, {"sw_power_cap"}},
      {Metric::kEccErrors, 12, {"corrected", "volatile"}},
      {Metric::kEccErrors, 0, {"uncorrected", "volatile"}},
      {Metric::kFabricState, 3, {}},
      {Metric::kFabricRegistrationFailed, 0, {}},
  };
  return d;
}

void set(DeviceSnapshot& d, Metric m, double v, std::string_view l0 = {}, std::string_view l1 = {}) {
  for (auto& s : d.samples) {
    if (s.metric == m && (l0.empty() || s.labels[0] == l0) && (l1.empty() || s.labels[1] == l1)) {
      s.value = v;
      return;
    }
  }
  d.samples.push_back({m, v, {std::string(l0), std::string(l1), {}}});
}

TEST(Health, ABusyCardAtItsPowerCapWithCorrectedErrorsIsHealthy) {
  const Health h = assess_health(busy_h200());
  EXPECT_EQ(h.verdict, HealthVerdict::kHealthy);
  EXPECT_TRUE(h.reasons.empty());
}

TEST(Health, UncorrectableErrorsFromEarlierDriverLoadsAreNotCurrentFindings) {
  DeviceSnapshot d = busy_h200();
  // The aggregate counter keeps the GPU's whole life; only the volatile one says something happened now.
  d.samples.insert(d.samples.begin(), Sample{Metric::kEccErrors, 5, {"uncorrected", "aggregate", {}}});
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kHealthy);
}

TEST(Health, LostAndStaleGpusAreCritical) {
  DeviceSnapshot d = busy_h200();
  d.state = DeviceState::kLost;
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kCritical);
  d.state = DeviceState::kStale;
  const Health h = assess_health(d);
  EXPECT_EQ(h.verdict, HealthVerdict::kCritical);
  EXPECT_NE(h.reasons.front().find("hung"), std::string::npos);
}

TEST(Health, EachFindingHasItsLevelAndCriticalReasonsComeFirst) {
  struct Case {
    Metric metric;
    double value;
    std::string_view l0, l1;
    HealthVerdict expected;
  };
  const Case cases[] = {
      {Metric::kEccErrors, 1, "uncorrected", "volatile", HealthVerdict::kCritical},
      {Metric::kRemappedRowsFailure, 1, {}, {}, HealthVerdict::kCritical},
      {Metric::kRemappedRowsPending, 1, {}, {}, HealthVerdict::kWarning},
      {Metric::kRetiredPages, 63, "double_bit", {}, HealthVerdict::kWarning},  // GpuMemoryRepairExhausted
      {Metric::kRemappedRows, 512, "uncorrectable", {}, HealthVerdict::kWarning},
      {Metric::kClockEventActive, 1, "hw_thermal_slowdown", {}, HealthVerdict::kCritical},
      {Metric::kClockEventActive, 1, "sw_thermal_slowdown", {}, HealthVerdict::kWarning},
      {Metric::kTemperature, 84, {}, {}, HealthVerdict::kWarning},
      {Metric::kPcieLinkWidth, 8, {}, {}, HealthVerdict::kWarning},
      {Metric::kPcieLinkGeneration, 4, {}, {}, HealthVerdict::kWarning},
      {Metric::kFabricRegistrationFailed, 1, {}, {}, HealthVerdict::kCritical},
      {Metric::kFabricState, 2, {}, {}, HealthVerdict::kWarning},
  };
  for (const auto& c : cases) {
    DeviceSnapshot d = busy_h200();
    set(d, c.metric, c.value, c.l0, c.l1);
    const Health h = assess_health(d);
    EXPECT_EQ(h.verdict, c.expected) << metric_def(c.metric).name << "{" << c.l0 << "}=" << c.value;
    EXPECT_EQ(h.reasons.size(), 1U) << metric_def(c.metric).name;
  }
  DeviceSnapshot both = busy_h200();
  set(both, Metric::kPcieLinkWidth, 8);
  set(both, Metric::kEccErrors, 2, "uncorrected", "volatile");
  const Health h = assess_health(both);
  ASSERT_EQ(h.reasons.size(), 2U);
  EXPECT_NE(h.reasons[0].find("uncorrectable"), std::string::npos) << "critical first";
}

TEST(Health, AnIdleGpuAtALowerPcieGenerationIsNotDegraded) {
  DeviceSnapshot d = busy_h200();
  set(d, Metric::kUtilization, 0.0);
  set(d, Metric::kPcieLinkGeneration, 1);
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kHealthy);
}

TEST(Health, AnIdleGpuOnANarrowerLinkIsNotDegradedEither) {
  // As GpuPcieLinkDegraded: a link below its maximum only counts while the GPU is busy.
  DeviceSnapshot d = busy_h200();
  set(d, Metric::kUtilization, 0.1);
  set(d, Metric::kPcieLinkWidth, 8);
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kHealthy);
  rules::DetectorSettings s;
  s.set("pcie", "busy_utilization", 0.05);
  EXPECT_EQ(assess_health(d, s).verdict, HealthVerdict::kWarning);
}

TEST(Health, TheDetectorsThresholdsMoveTheVerdict) {
  DeviceSnapshot d = busy_h200();
  set(d, Metric::kTemperature, 80);  // 7 C under the slowdown threshold of 87 C
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kHealthy);
  rules::DetectorSettings s;
  s.set("throttle", "temperature_margin_c", 10);
  EXPECT_EQ(assess_health(d, s).verdict, HealthVerdict::kWarning);

  DeviceSnapshot retired = busy_h200();
  set(retired, Metric::kRetiredPages, 20, "double_bit");
  EXPECT_EQ(assess_health(retired).verdict, HealthVerdict::kHealthy);
  s.set("ecc", "retired_pages_limit", 20);
  EXPECT_EQ(assess_health(retired, s).verdict, HealthVerdict::kWarning);
}

TEST(Health, ATemperaturePastTheSlowdownThresholdIsAboveItAndOneUnderItIsNear) {
  DeviceSnapshot hot = busy_h200();
  set(hot, Metric::kTemperature, 93);  // the slowdown threshold is 87 C
  const Health above = assess_health(hot);
  ASSERT_EQ(above.reasons.size(), 1u);
  EXPECT_EQ(above.reasons[0], "temperature 93 C is above the slowdown threshold 87 C");
  DeviceSnapshot warm = busy_h200();
  set(warm, Metric::kTemperature, 84);
  const Health near = assess_health(warm);
  ASSERT_EQ(near.reasons.size(), 1u);
  EXPECT_EQ(near.reasons[0], "temperature 84 C is near the slowdown threshold 87 C");
}

TEST(Health, EveryXidOfTheCatalogueIsJudgedByItsClass) {
  for (const auto& x : rules::xid_catalogue()) {
    DeviceSnapshot d = busy_h200();
    d.xid_counts[x.code] = 1;
    const HealthVerdict expected = x.cls == rules::XidClass::kCritical        ? HealthVerdict::kCritical
                                   : x.cls == rules::XidClass::kInformational ? HealthVerdict::kHealthy
                                                                              : HealthVerdict::kWarning;
    EXPECT_EQ(assess_health(d).verdict, expected) << "XID " << x.code;
  }
  DeviceSnapshot unknown = busy_h200();
  unknown.xid_counts[999] = 1;  // not in the catalogue: hardware trouble, as GpuXidHardware
  EXPECT_EQ(assess_health(unknown).verdict, HealthVerdict::kWarning);
}

TEST(Health, Xid64IsCriticalAsInTheCatalogue) {
  // A failed row remap needs a reset and support: GpuXidCritical pages for it, so status is critical.
  DeviceSnapshot d = busy_h200();
  d.xid_counts[64] = 1;
  const Health h = assess_health(d);
  EXPECT_EQ(h.verdict, HealthVerdict::kCritical);
  ASSERT_FALSE(h.reasons.empty());
  EXPECT_NE(h.reasons.front().find("row remap"), std::string::npos) << h.reasons.front();
}

TEST(Health, XidsCountPerCatalogueSeverity) {
  DeviceSnapshot d = busy_h200();
  d.xid_counts[43] = 1;  // an application's own fault, the GPU stays healthy
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kHealthy);
  d.xid_counts[94] = 1;
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kWarning);
  d.xid_counts[79] = 1;
  EXPECT_EQ(assess_health(d).verdict, HealthVerdict::kCritical);
}

}  // namespace
}  // namespace gpuwatch
