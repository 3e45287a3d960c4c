// GET /api/v1/rules as Prometheus answers it, for the agent's detectors: a group per detector, an alerting
// rule per alert it raises, with its state and its active alerts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "alerting/alerting_service.h"

namespace gpuwatch::alerting {
namespace {

using nlohmann::json;

Condition condition(std::string alertname, std::string gpu, std::chrono::milliseconds for_duration) {
  Condition c;
  c.alertname = std::move(alertname);
  c.severity = Severity::kPage;
  c.labels = {{"gpu", std::move(gpu)}};
  c.summary = "GPU is unwell";
  c.for_duration = for_duration;
  return c;
}

json rules(AlertingService& service, std::multimap<std::string, std::string> params = {}) {
  for (const auto& r : service.routes()) {
    if (r.pattern != "/api/v1/rules") continue;
    HttpRequest req;
    req.method = "GET";
    req.path = r.pattern;
    req.params = std::move(params);
    const HttpReply reply = r.handle(req);
    EXPECT_EQ(reply.status, 200);
    const json body = json::parse(reply.body);
    EXPECT_EQ(body["status"], "success");
    return body["data"];
  }
  ADD_FAILURE() << "no /api/v1/rules route";
  return {};
}

AlertingOptions with_rules() {
  AlertingOptions o;
  o.engine.hostname = "node7";
  o.engine.runbook_url_prefix = "http://node7:19400/runbooks/";
  o.rule_groups = {{"xid", {"GpuXidCritical", "GpuXidHardware"}}, {"throttle", {"GpuThermalSlowdown"}}};
  o.evaluation_interval = std::chrono::seconds(1);
  return o;
}

TEST(RulesApi, EveryDetectorIsAGroupOfAlertingRulesWithTheirAlerts) {
  AlertingService service(with_rules(), [] { return std::int64_t{5000}; });
  EXPECT_EQ(rules(service)["groups"][0]["lastEvaluation"], "0001-01-01T00:00:00Z");  // not evaluated yet
  const std::vector<Condition> now{condition("GpuXidCritical", "3", std::chrono::milliseconds(0)),
                                   condition("GpuThermalSlowdown", "1", std::chrono::minutes(5))};
  service.evaluate(now, 5000);

  const json groups = rules(service)["groups"];
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0]["name"], "xid");
  EXPECT_EQ(groups[0]["interval"], 1.0);
  EXPECT_EQ(groups[0]["lastEvaluation"], "1970-01-01T00:00:05.000Z");
  const json xid = groups[0]["rules"];
  ASSERT_EQ(xid.size(), 2u);
  EXPECT_EQ(xid[0]["name"], "GpuXidCritical");
  EXPECT_EQ(xid[0]["type"], "alerting");
  EXPECT_EQ(xid[0]["health"], "ok");
  EXPECT_EQ(xid[0]["state"], "firing");
  EXPECT_EQ(xid[0]["query"], "ALERTS{alertname=\"GpuXidCritical\"}");
  EXPECT_EQ(xid[0]["labels"]["severity"], "page");
  EXPECT_EQ(xid[0]["annotations"]["runbook_url"], "http://node7:19400/runbooks/GpuXidCritical");
  ASSERT_EQ(xid[0]["alerts"].size(), 1u);
  EXPECT_EQ(xid[0]["alerts"][0]["labels"]["gpu"], "3");
  EXPECT_EQ(xid[0]["alerts"][0]["state"], "firing");
  EXPECT_EQ(xid[1]["state"], "inactive");
  EXPECT_EQ(xid[1]["alerts"], json::array());
  const json throttle = groups[1]["rules"][0];
  EXPECT_EQ(throttle["state"], "pending");
  EXPECT_EQ(throttle["duration"], 300.0);
}

TEST(RulesApi, FiltersAsPrometheusHasThem) {
  AlertingService service(with_rules(), [] { return std::int64_t{0}; });
  EXPECT_EQ(rules(service, {{"type", "record"}})["groups"], json::array());
  EXPECT_EQ(rules(service, {{"type", "alert"}})["groups"].size(), 2u);
  const json one = rules(service, {{"rule_name[]", "GpuThermalSlowdown"}})["groups"];
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["rules"].size(), 1u);
  EXPECT_EQ(rules(service, {{"rule_group[]", "xid"}})["groups"].size(), 1u);
}

}  // namespace
}  // namespace gpuwatch::alerting
