// `gpuwatch rules slo` against Prometheus's own tools: the rules pass `promtool check rules`, and on the same
// counter series `promtool test rules` fires exactly the alerts the agent's engine raises at the same
// moments: the workbook's page and ticket, and the escalation (its condition held for the rule's 10 minutes,
// as the agent's alert engine holds it before it fires).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "sim_support.h"
#include "slo/slo_engine.h"
#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

const char* kSpec = R"(version: "prometheus/v1"
service: "bert-ranker"
slos:
  - name: "availability"
    objective: 99
    sli:
      events:
        error_query: sum(rate(nv_inference_request_failure{model="bert"}[{{.window}}]))
        total_query: sum(rate(nv_inference_request_success{model="bert"}[{{.window}}])) + sum(rate(nv_inference_request_failure{model="bert"}[{{.window}}]))
)";

constexpr int kStepS = 15;
constexpr int kSteps = 8 * 240;  // 8 h of 15 s samples

// Requests per step: 30, with 0.2% errors, 40% errors from 1 h to 2 h, then 2% errors.
double error_ratio_at(int step) {
  const int t = step * kStepS;
  if (t > 3600 && t <= 7200) return 0.4;
  if (t > 7200) return 0.02;
  return 0.002;
}

int run(const std::string& command) {
  return std::system(command.c_str());
}

TEST(PrometheusRules, PassPromtoolCheckAndFireWhatTheAgentFires) {
  test::TempDir dir;
  const std::string spec = dir.path() + "/slo.yaml", rules = dir.path() + "/rules.yaml",
                    tests = dir.path() + "/test.yaml";
  std::ofstream(spec) << kSpec;
  ASSERT_EQ(run(std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch rules slo " + spec + " > " + rules), 0);
  ASSERT_EQ(run("promtool check rules " + rules + " > " + dir.path() + "/check.log 2>&1"), 0)
      << std::ifstream(dir.path() + "/check.log").rdbuf();

  // The same series into the agent's engine and into promtool.
  SloEngine engine(parse_slo_text(kSpec, "slo.yaml"));
  std::ostringstream success_values, failure_values;
  double success = 0, failure = 0;
  const std::set<int> checks = {30 * 60 / kStepS,  70 * 60 / kStepS,  75 * 60 / kStepS,
                                110 * 60 / kStepS, 150 * 60 / kStepS, 400 * 60 / kStepS};
  std::map<int, std::set<std::string>> agent_alerts;  // step -> severities raised
  constexpr int kEscalationForSteps = 10 * 60 / kStepS;
  int escalating_since = -1;  // the step the escalation's condition began to hold; -1 while it does not
  std::map<int, bool> agent_escalates;  // step -> the escalation fires (held for its 10 minutes)
  for (int step = 0; step <= kSteps; ++step) {
    if (step > 0) {
      success += 30 * (1 - error_ratio_at(step));
      failure += 30 * error_ratio_at(step);
    }
    success_values << (step ? " " : "") << success;
    failure_values << (step ? " " : "") << failure;
    ScrapeResult r;
    r.t_ms = std::int64_t{step} * kStepS * 1000;
    r.samples.push_back({{{"__name__", "nv_inference_request_success"}, {"model", "bert"}}, r.t_ms, success});
    r.samples.push_back({{{"__name__", "nv_inference_request_failure"}, {"model", "bert"}}, r.t_ms, failure});
    engine.consume(r);
    // Every step, as both evaluate every 15 s: the escalation's `for` needs each evaluation.
    bool escalating = false;
    for (const auto& c : engine.evaluate(r.t_ms, {})) {
      if (c.alertname == "SloBurnRateEscalating") {
        escalating = true;
      } else if (checks.count(step)) {
        agent_alerts[step].insert(std::string(severity_name(c.severity)));
      }
    }
    if (!escalating) escalating_since = -1;
    if (escalating && escalating_since < 0) escalating_since = step;
    if (checks.count(step))
      agent_escalates[step] = escalating && step - escalating_since >= kEscalationForSteps;
  }
  std::ofstream t(tests);
  t << "rule_files: [" << rules
    << "]\nevaluation_interval: 15s\ntests:\n  - interval: 15s\n    input_series:\n"
    << "      - series: 'nv_inference_request_success{model=\"bert\"}'\n        values: '"
    << success_values.str()
    << "'\n      - series: 'nv_inference_request_failure{model=\"bert\"}'\n        values: '"
    << failure_values.str() << "'\n    alert_rule_test:\n";
  for (const int step : checks) {
    t << "      - eval_time: " << step * kStepS
      << "s\n        alertname: SloErrorBudgetBurn\n        exp_alerts:";
    if (agent_alerts[step].empty()) t << " []";
    t << "\n";
    for (const auto& severity : agent_alerts[step]) {
      // Prometheus's alert keeps Sloth's labels of the recorded series besides the agent's.
      t << "          - exp_labels: {slo: availability, service: bert-ranker, severity: " << severity
        << ", sloth_id: bert-ranker-availability, sloth_service: bert-ranker, sloth_slo: availability}\n"
        << "            exp_annotations:\n"
        << "              summary: SLO availability of bert-ranker is burning its error budget\n"
        << "              runbook_url: docs/runbooks/SloErrorBudgetBurn.md\n";
    }
    t << "      - eval_time: " << step * kStepS
      << "s\n        alertname: SloBurnRateEscalating\n        exp_alerts:";
    if (!agent_escalates[step]) {
      t << " []\n";
      continue;
    }
    t << "\n          - exp_labels: {slo: availability, service: bert-ranker, severity: ticket, sloth_id: "
      << "bert-ranker-availability, sloth_service: bert-ranker, sloth_slo: availability}\n"
      << "            exp_annotations:\n"
      << "              summary: SLO availability of bert-ranker burns at over twice its usual rate\n"
      << "              runbook_url: docs/runbooks/SloBurnRateEscalating.md\n";
  }
  t.close();
  // The series must say something: quiet at first, a page in the burst, a ticket after it.
  EXPECT_TRUE(agent_alerts[30 * 60 / kStepS].empty());
  EXPECT_EQ(agent_alerts[110 * 60 / kStepS].count("page"), 1u);
  EXPECT_EQ(agent_alerts[400 * 60 / kStepS], std::set<std::string>{"ticket"});
  // The escalation: not before the burst, held through it once its 10 minutes passed, gone after it.
  EXPECT_FALSE(agent_escalates[30 * 60 / kStepS]);
  EXPECT_TRUE(agent_escalates[75 * 60 / kStepS]);
  EXPECT_FALSE(agent_escalates[400 * 60 / kStepS]);
  EXPECT_EQ(run("promtool test rules " + tests + " > " + dir.path() + "/test.log 2>&1"), 0)
      << std::ifstream(dir.path() + "/test.log").rdbuf();
}

}  // namespace
}  // namespace gpuwatch::slo
