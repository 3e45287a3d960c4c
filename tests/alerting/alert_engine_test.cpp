#include "alerting/alert_engine.h"

#include <gtest/gtest.h>

namespace gpuwatch::alerting {
namespace {

using std::chrono::milliseconds;

Condition lost(const std::string& gpu, milliseconds for_duration = milliseconds{0}) {
  Condition c;
  c.alertname = "GpuLost";
  c.severity = Severity::kPage;
  c.labels = {{"gpu", gpu}, {"uuid", "GPU-" + gpu}};
  c.summary = "GPU " + gpu + " fell off the bus";
  c.description = "NVML answers GPU_IS_LOST";
  c.action = "drain the node and reset the GPU";
  c.for_duration = for_duration;
  return c;
}

AlertEngine engine() {
  return AlertEngine(AlertEngineOptions{"node7",
                                        {{"service", "training"}},
                                        "http://node7:19400/runbooks/",
                                        milliseconds{60'000},
                                        milliseconds{600'000}});
}

TEST(AlertEngine, LabelsAndAnnotations) {
  AlertEngine e = engine();
  const Condition c = lost("3");
  const auto changed = e.evaluate(std::span(&c, 1), 1000);
  ASSERT_EQ(changed.size(), 1u);
  const Alert& a = changed[0];
  EXPECT_EQ(a.labels, (LabelSet{{"alertname", "GpuLost"},
                                {"gpu", "3"},
                                {"hostname", "node7"},
                                {"service", "training"},
                                {"severity", "page"},
                                {"uuid", "GPU-3"}}));
  EXPECT_EQ(a.annotations.at("runbook_url"), "http://node7:19400/runbooks/GpuLost");
  EXPECT_EQ(a.annotations.at("summary"), "GPU 3 fell off the bus");
  EXPECT_EQ(a.annotations.at("action"), "drain the node and reset the GPU");
  EXPECT_EQ(a.fingerprint, fingerprint(a.labels));
}

TEST(AlertEngine, PendingForItsDurationThenFiringThenResolved) {
  AlertEngine e = engine();
  const Condition c = lost("1", milliseconds{3000});
  EXPECT_TRUE(e.evaluate(std::span(&c, 1), 10'000).empty());
  ASSERT_EQ(e.alerts().size(), 1u);
  EXPECT_EQ(e.alerts()[0].state, AlertState::kPending);
  EXPECT_TRUE(e.evaluate(std::span(&c, 1), 12'999).empty());
  auto changed = e.evaluate(std::span(&c, 1), 13'000);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].state, AlertState::kFiring);
  EXPECT_EQ(changed[0].active_at_ms, 10'000);
  EXPECT_EQ(changed[0].fired_at_ms, 13'000);
  EXPECT_TRUE(e.evaluate(std::span(&c, 1), 14'000).empty());  // still firing: no change to announce

  changed = e.evaluate({}, 15'000);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].state, AlertState::kResolved);
  EXPECT_EQ(changed[0].resolved_at_ms, 15'000);
  // Kept for the retention (60 s here), then gone.
  EXPECT_EQ(e.evaluate({}, 74'999).size(), 0u);
  EXPECT_EQ(e.alerts().size(), 1u);
  e.evaluate({}, 75'000);
  EXPECT_TRUE(e.alerts().empty());
}

TEST(AlertEngine, PendingThatStopsHoldingIsDroppedSilently) {
  AlertEngine e = engine();
  const Condition c = lost("1", milliseconds{5000});
  e.evaluate(std::span(&c, 1), 0);
  EXPECT_TRUE(e.evaluate({}, 1000).empty());
  EXPECT_TRUE(e.alerts().empty());
  // Coming back starts the wait again.
  e.evaluate(std::span(&c, 1), 2000);
  EXPECT_TRUE(e.evaluate(std::span(&c, 1), 6999).empty());
  EXPECT_EQ(e.evaluate(std::span(&c, 1), 7000).size(), 1u);
}

TEST(AlertEngine, RefiringAfterResolutionIsANewAlertWithTheSameFingerprint) {
  AlertEngine e = engine();
  const Condition c = lost("2");
  const auto first = e.evaluate(std::span(&c, 1), 1000);
  e.evaluate({}, 2000);
  const auto again = e.evaluate(std::span(&c, 1), 3000);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].state, AlertState::kFiring);
  EXPECT_EQ(again[0].active_at_ms, 3000);
  EXPECT_EQ(again[0].fingerprint, first[0].fingerprint);
  EXPECT_EQ(e.alerts().size(), 1u);
}

TEST(AlertEngine, DeduplicatesByNodeGpuAndAlert) {
  AlertEngine e = engine();
  Condition twice = lost("4");
  Condition other_text = twice;
  other_text.description = "reported by a second detector";
  const std::vector<Condition> conditions{twice, other_text, lost("5")};
  const auto changed = e.evaluate(conditions, 1000);
  ASSERT_EQ(changed.size(), 2u);  // GPU 4 once, GPU 5 once
  EXPECT_NE(changed[0].fingerprint, changed[1].fingerprint);
  for (const auto& a : changed) {
    if (a.labels.at("gpu") == "4") {
      EXPECT_EQ(a.annotations.at("description"), "NVML answers GPU_IS_LOST");
    }
  }
}

TEST(AlertEngine, DescriptionFollowsTheLatestMeasurement) {
  AlertEngine e = engine();
  Condition c = lost("0");
  e.evaluate(std::span(&c, 1), 0);
  c.description = "measured again";
  e.evaluate(std::span(&c, 1), 1000);
  EXPECT_EQ(e.alerts().at(0).annotations.at("description"), "measured again");
  EXPECT_EQ(e.alerts().at(0).active_at_ms, 0);
}

TEST(Fingerprint, PrometheusAlgorithm) {
  // FNV-1a 64 offset basis for the empty set, as model.LabelSet{}.Fingerprint().
  EXPECT_EQ(fingerprint_hex(fingerprint({})), "cbf29ce484222325");
  // Order of insertion never matters, a moved separator does.
  EXPECT_EQ(fingerprint({{"a", "1"}, {"b", "2"}}), fingerprint({{"b", "2"}, {"a", "1"}}));
  EXPECT_NE(fingerprint({{"a", "bc"}}), fingerprint({{"ab", "c"}}));
  EXPECT_EQ(fingerprint_hex(0x1f), "000000000000001f");
}

}  // namespace
}  // namespace gpuwatch::alerting
