#include "alerting/alert_router.h"

#include <gtest/gtest.h>

#include "alerting/alert_engine.h"
#include "alerting/inhibition.h"

namespace gpuwatch::alerting {
namespace {

using std::chrono::milliseconds;

Condition cond(const std::string& alertname, const std::string& gpu) {
  Condition c;
  c.alertname = alertname;
  c.severity = Severity::kPage;
  c.labels = {{"gpu", gpu}, {"uuid", "GPU-" + gpu}};
  c.summary = alertname + " on GPU " + gpu;
  return c;
}

std::vector<nlohmann::json> drain(DeliveryQueue& q) {
  auto batch = q.wait_and_take(std::stop_token{}, std::chrono::steady_clock::now());
  q.acknowledge(batch);
  return batch.alerts;
}

// The engine and router as the agent runs them, one evaluation at a time.
struct Pipeline {
  AlertEngine engine{AlertEngineOptions{"node7", {}, "", milliseconds{600'000}, milliseconds{600'000}}};
  std::shared_ptr<DeliveryQueue> am;
  std::shared_ptr<DeliveryQueue> hook = std::make_shared<DeliveryQueue>("");
  std::shared_ptr<SilenceStore> silences = std::make_shared<SilenceStore>("", std::vector<Silence>{});
  AlertRouter router;
  explicit Pipeline(bool with_alertmanager)
      : am(with_alertmanager ? std::make_shared<DeliveryQueue>("") : nullptr),
        router(RouterOptions{milliseconds{60'000}, "http://node7:19400/api/v1/alerts"}, am, hook, silences) {}
  void eval(const std::vector<Condition>& conditions, std::int64_t now) {
    const auto changed = engine.evaluate(conditions, now);
    router.route(engine.alerts(), changed, now);
  }
};

TEST(AlertRouter, AlertmanagerGetsChangesAndResendsWhileFiring) {
  Pipeline p(true);
  const std::vector<Condition> firing{cond("GpuXidCritical", "1")};
  p.eval(firing, 0);
  auto sent = drain(*p.am);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["status"], "firing");
  EXPECT_EQ(sent[0]["endsAt"], "1970-01-01T00:04:00.000Z");  // 4 resend intervals ahead
  p.eval(firing, 59'000);
  EXPECT_TRUE(drain(*p.am).empty());
  p.eval(firing, 60'000);
  EXPECT_EQ(drain(*p.am).size(), 1u);  // the resend
  p.eval({}, 61'000);
  sent = drain(*p.am);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["status"], "resolved");
  EXPECT_EQ(sent[0]["endsAt"], "1970-01-01T00:01:01.000Z");
}

TEST(AlertRouter, WebhookIsToldOnceOfFiringAndOnceOfResolution) {
  Pipeline p(false);
  const std::vector<Condition> firing{cond("GpuXidCritical", "1")};
  p.eval(firing, 0);
  EXPECT_EQ(drain(*p.hook).size(), 1u);
  p.eval(firing, 120'000);
  EXPECT_TRUE(drain(*p.hook).empty());
  p.eval({}, 121'000);
  const auto sent = drain(*p.hook);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["status"], "resolved");
}

TEST(AlertRouter, LostGpuInhibitsItsOtherAlertsButNotOtherGpus) {
  Pipeline p(false);
  p.eval({cond("GpuLost", "3"), cond("GpuXidCritical", "3"), cond("GpuXidCritical", "4")}, 0);
  const auto sent = drain(*p.hook);
  std::set<std::pair<std::string, std::string>> told;
  for (const auto& a : sent) told.emplace(a["labels"]["alertname"], a["labels"]["gpu"]);
  EXPECT_EQ(told, (std::set<std::pair<std::string, std::string>>{{"GpuLost", "3"}, {"GpuXidCritical", "4"}}));
}

TEST(AlertRouter, SilencedAlertIsAnnouncedWhenTheSilenceEnds) {
  Pipeline p(false);
  Silence s;
  s.matchers = {Matcher{"gpu", Matcher::Op::kEqual, "1"}};
  s.starts_at_ms = 0;
  s.ends_at_ms = 30'000;
  p.silences->add(s);
  const std::vector<Condition> firing{cond("GpuXidCritical", "1"), cond("GpuXidCritical", "2")};
  p.eval(firing, 1000);
  auto sent = drain(*p.hook);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["labels"]["gpu"], "2");
  p.eval(firing, 29'000);
  EXPECT_TRUE(drain(*p.hook).empty());
  p.eval(firing, 30'000);
  sent = drain(*p.hook);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["labels"]["gpu"], "1");
}

TEST(AlertRouter, WithAlertmanagerNothingIsMutedLocally) {
  Pipeline p(true);
  Silence s;
  s.matchers = {Matcher{"gpu", Matcher::Op::kEqual, "3"}};
  s.ends_at_ms = 1'000'000;
  p.silences->add(s);
  p.eval({cond("GpuLost", "3"), cond("GpuXidCritical", "3")}, 0);
  EXPECT_EQ(drain(*p.am).size(), 2u);
  EXPECT_EQ(drain(*p.hook).size(), 2u);
}

TEST(Inhibition, AlertmanagerRulesComeFromTheSameTable) {
  const std::string yaml = alertmanager_inhibit_rules_yaml();
  for (const auto& rule : inhibit_rules()) {
    EXPECT_NE(yaml.find("source_matchers: ['alertname=\"" + std::string(rule.source_alertname) + "\"']"),
              std::string::npos);
  }
  EXPECT_NE(yaml.find("equal: [hostname, uuid]"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::alerting
