#include "alerting/rules_api.h"

#include <algorithm>

#include "alerting/alert_json.h"
#include "core/rfc3339.h"

namespace gpuwatch::alerting {
namespace {

bool wanted(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

std::string evaluated_at(const RulesContext& context) {
  // Prometheus writes the zero time for a rule not evaluated yet.
  return context.last_evaluation_ms > 0 ? format_rfc3339_ms(context.last_evaluation_ms)
                                        : "0001-01-01T00:00:00Z";
}

nlohmann::json rule_json(const std::string& alertname, const std::vector<Alert>& alerts,
                         const RulesContext& context) {
  nlohmann::json active = nlohmann::json::array();
  std::string state = "inactive";
  nlohmann::json labels = nlohmann::json::object();
  std::chrono::milliseconds for_duration{0};
  for (const Alert& a : alerts) {
    if (a.alertname() != alertname || !a.active()) continue;
    active.push_back(prometheus_alert(a));
    if (a.state == AlertState::kFiring) state = "firing";
    if (a.state == AlertState::kPending && state == "inactive") state = "pending";
    // A detector decides severity and `for` per condition; the rule shows those of its alerts.
    if (const auto it = a.labels.find("severity"); it != a.labels.end()) labels["severity"] = it->second;
    for_duration = std::max(for_duration, a.for_duration);
  }
  nlohmann::json annotations = nlohmann::json::object();
  if (!context.runbook_url_prefix.empty())
    annotations["runbook_url"] = context.runbook_url_prefix + alertname;
  return {{"name", alertname},
          {"query", "ALERTS{alertname=\"" + alertname + "\"}"},
          {"duration", std::chrono::duration<double>(for_duration).count()},
          {"keepFiringFor", 0},
          {"labels", labels},
          {"annotations", annotations},
          {"alerts", active},
          {"health", "ok"},
          {"lastError", ""},
          {"type", "alerting"},
          {"state", state},
          {"evaluationTime", context.evaluation_seconds},
          {"lastEvaluation", evaluated_at(context)}};
}

}  // namespace

nlohmann::json prometheus_rules(const std::vector<RuleGroup>& groups, const std::vector<Alert>& alerts,
                                const RulesContext& context, const HttpRequest& request) {
  nlohmann::json out = nlohmann::json::array();
  const std::string type = request.param("type");
  if (type == "record") return {{"groups", out}};  // the agent has no recording rules
  const auto names = request.params_named("rule_name[]");
  const auto only_groups = request.params_named("rule_group[]");
  for (const RuleGroup& g : groups) {
    if (!wanted(only_groups, g.name)) continue;
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& alertname : g.alertnames) {
      if (wanted(names, alertname)) rules.push_back(rule_json(alertname, alerts, context));
    }
    if (rules.empty() && !names.empty()) continue;  // Prometheus leaves out groups a filter emptied
    out.push_back({{"name", g.name},
                   {"file", "gpuwatch"},
                   {"rules", rules},
                   {"interval", std::chrono::duration<double>(context.interval).count()},
                   {"limit", 0},
                   {"evaluationTime", context.evaluation_seconds},
                   {"lastEvaluation", evaluated_at(context)}});
  }
  return {{"groups", out}};
}

}  // namespace gpuwatch::alerting
