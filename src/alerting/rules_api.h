// Prometheus's GET /api/v1/rules for the agent's alerting rules, so Grafana (its alert list, its rule
// browser) sees them as it sees a Prometheus's: one group per detector (and one for the agent's own source
// alerts), one alerting rule per alert it raises, with the alert's state and its pending and firing alerts.
// The conditions are the detectors' code (docs/detection.md), not PromQL: a rule's `query` is the selector of
// the series its alerts are exported as, ALERTS{alertname="..."}, which the query API answers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alerting/alert.h"
#include "http/http_route.h"

namespace gpuwatch::alerting {

struct RuleGroup {
  std::string name;                     // the detector's: "xid"
  std::vector<std::string> alertnames;  // the alerts it raises
};

struct RulesContext {
  std::string runbook_url_prefix;         // the runbook_url annotation is this + the alert's name
  std::chrono::milliseconds interval{0};  // how often the rules are evaluated (the sampling interval)
  std::int64_t last_evaluation_ms = 0;    // 0: not evaluated yet
  double evaluation_seconds = 0;          // how long the last evaluation took
};

// The data object {"groups":[...]} for the request's filters: type (alert|record), rule_name[],
// rule_group[].
nlohmann::json prometheus_rules(const std::vector<RuleGroup>& groups, const std::vector<Alert>& alerts,
                                const RulesContext& context, const HttpRequest& request);

}  // namespace gpuwatch::alerting
