#include <gtest/gtest.h>

#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

const char* kSloth = R"(version: "prometheus/v1"
service: "llama"
slos:
  - name: "errors"
    objective: 99.5
    description: "requests that do not fail"
    sli:
      events:
        error_query: sum(rate(nv_inference_request_failure{model="llama"}[{{.window}}]))
        total_query: sum(rate(nv_inference_request_success{model="llama"}[{{.window}}])) + sum(rate(nv_inference_request_failure{model="llama"}[{{.window}}]))
    alerting:
      name: LlamaErrors
      ticket_alert:
        disable: true
)";

TEST(SlothSpec, ReadsEventsObjectiveAndAlerting) {
  const auto slos = parse_slo_text(kSloth, "llama.yaml");
  ASSERT_EQ(slos.size(), 1u);
  const SloSpec& s = slos[0];
  EXPECT_EQ(s.service, "llama");
  EXPECT_EQ(s.name, "errors");
  EXPECT_DOUBLE_EQ(s.objective, 0.995);
  EXPECT_EQ(s.kind, EventKind::kBad);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].metric, "nv_inference_request_failure");
  ASSERT_EQ(s.events[0].matchers.size(), 1u);
  EXPECT_EQ(s.events[0].matchers[0].name(), "model");
  ASSERT_EQ(s.total.size(), 2u);
  EXPECT_EQ(s.total[1].metric, "nv_inference_request_failure");
  EXPECT_EQ(s.alertname, "LlamaErrors");
  EXPECT_TRUE(s.page_enabled);
  EXPECT_FALSE(s.ticket_enabled);
  EXPECT_EQ(s.origin, "llama.yaml:4");
  EXPECT_EQ(s.period, std::chrono::hours(24 * 30));
}

void expect_error(const std::string& text, const std::string& where_and_what) {
  try {
    parse_slo_text(text, "f.yaml");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(where_and_what), std::string::npos) << e.what();
  }
}

TEST(SlothSpec, ErrorsSayFileLineAndWhy) {
  std::string bad_objective = kSloth;
  bad_objective.replace(bad_objective.find("99.5"), 4, "100");
  expect_error(bad_objective, "f.yaml:5:16: objective: must be above 0 and below 100");
  std::string ratio = kSloth;
  ratio.replace(ratio.find("sum(rate(nv_inference_request_failure"), 3, "avg");
  expect_error(ratio, "f.yaml:9:22: only sum() aggregates events");
  std::string gauge = kSloth;
  gauge.replace(gauge.find("sum(rate(nv_inference_request_failure{model=\"llama\"}[{{.window}}]))"), 67,
                "nv_inference_pending_request_count");
  expect_error(gauge, "f.yaml:9:22: an SLI query must be a sum of rate() or increase()");
  expect_error("version: \"prometheus/v1\"\nservice: x\n", "f.yaml:1:1: missing \"slos\"");
  expect_error("version: \"prometheus/v1\"\nservice: [x\n", "f.yaml:");
  expect_error("version: \"prometheus/v2\"\n", "f.yaml:1:10: unknown Sloth version");
}

const char* kOpenSlo = R"(apiVersion: openslo/v1
kind: Service
metadata:
  name: llama
spec: {}
---
apiVersion: openslo/v1
kind: SLI
metadata:
  name: fast-requests
spec:
  ratioMetric:
    counter: true
    good:
      metricSource:
        type: Prometheus
        spec:
          query: sum(rate(vllm:e2e_request_latency_seconds_bucket{model_name="llama",le="10"}[5m]))
    total:
      metricSource:
        type: Prometheus
        spec:
          query: sum(rate(vllm:e2e_request_latency_seconds_count{model_name="llama"}[5m]))
---
apiVersion: openslo/v1
kind: SLO
metadata:
  name: latency
spec:
  service: llama
  indicatorRef: fast-requests
  budgetingMethod: Occurrences
  timeWindow:
    - duration: 28d
      isRolling: true
  objectives:
    - target: 0.99
)";

TEST(OpenSloSpec, ReadsAnSloWithItsReferencedSli) {
  const auto slos = parse_slo_text(kOpenSlo, "o.yaml");
  ASSERT_EQ(slos.size(), 1u);
  const SloSpec& s = slos[0];
  EXPECT_EQ(s.name, "latency");
  EXPECT_EQ(s.service, "llama");
  EXPECT_EQ(s.kind, EventKind::kGood);
  EXPECT_DOUBLE_EQ(s.objective, 0.99);
  EXPECT_EQ(s.period, std::chrono::hours(24 * 28));
  EXPECT_FALSE(s.calendar);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].metric, "vllm:e2e_request_latency_seconds_bucket");
  EXPECT_EQ(s.total[0].metric, "vllm:e2e_request_latency_seconds_count");
  EXPECT_EQ(s.origin, "o.yaml:25");
}

TEST(OpenSloSpec, ErrorsSayFileLineAndWhy) {
  std::string timeslices = kOpenSlo;
  timeslices.replace(timeslices.find("Occurrences"), 11, "Timeslices");
  expect_error(timeslices, "f.yaml:32:20: budgetingMethod: only Occurrences");
  std::string missing = kOpenSlo;
  missing.replace(missing.find("indicatorRef: fast-requests"), 27, "indicatorRef: slow-requests");
  expect_error(missing, "f.yaml:31:17: indicatorRef: no SLI named slow-requests");
  std::string threshold = kOpenSlo;
  threshold.replace(threshold.find("ratioMetric:"), 12, "thresholdMetric:");
  expect_error(threshold, "f.yaml:13:5: thresholdMetric is not evaluated");
  std::string target = kOpenSlo;
  target.replace(target.find("target: 0.99"), 12, "target: 99");
  expect_error(target, "f.yaml:37:15: target: must be above 0 and below 1");
}

}  // namespace
}  // namespace gpuwatch::slo
