#include "slo/server_templates.h"

#include <fmt/format.h>

#include "core/server_buckets.h"

namespace gpuwatch::slo {

double bucket_at_or_below(const std::vector<double>& bounds, double threshold_seconds) {
  double best = -1;
  for (const double b : bounds) {
    if (b <= threshold_seconds) best = b;
  }
  if (best < 0)
    throw std::invalid_argument(
        fmt::format("threshold {}s is below the first bucket ({}s)", threshold_seconds, bounds.front()));
  return best;
}

namespace {

std::string selector(const std::string& metric, const std::string& labels) {
  return labels.empty() ? metric : metric + "{" + labels + "}";
}

std::string document(const TemplateRequest& r, const std::string& name, const std::string& description,
                     const std::string& events_key, const std::string& events, const std::string& total) {
  const std::string service = r.service.empty() ? r.model : r.service;
  return fmt::format(
      "# Written by gpuwatch slo template.\n"
      "version: \"prometheus/v1\"\n"
      "service: \"{}\"\n"
      "slos:\n"
      "  - name: \"{}\"\n"
      "    objective: {}\n"
      "    description: \"{}\"\n"
      "    sli:\n"
      "      events:\n"
      "        {}: sum(rate({}[{{{{.window}}}}]))\n"
      "        total_query: sum(rate({}[{{{{.window}}}}]))\n"
      "    alerting:\n"
      "      name: SloErrorBudgetBurn\n",
      service, name, r.objective_percent, description, events_key, events, total);
}

std::string with(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "," + b;
}

std::string latency(const TemplateRequest& r, const std::string& histogram, const std::vector<double>& bounds,
                    const std::string& labels, const std::string& what) {
  const double threshold = std::chrono::duration<double>(r.threshold).count();
  if (threshold <= 0) throw std::invalid_argument("a latency SLO needs a threshold");
  const double bound = bucket_at_or_below(bounds, threshold);
  // An OpenSLO document: its good side is the bucket, which Sloth's error_query cannot say as a sum of rates.
  const std::string description =
      fmt::format("{} at or under {}s (bucket le={}; a request between {}s and {}s counts as slow)", what,
                  threshold, fmt::format("{}", bound), bound, threshold);
  return fmt::format(
      "# Written by gpuwatch slo template.\n"
      "apiVersion: openslo/v1\n"
      "kind: SLO\n"
      "metadata:\n"
      "  name: {}\n"
      "spec:\n"
      "  service: {}\n"
      "  description: \"{}\"\n"
      "  budgetingMethod: Occurrences\n"
      "  timeWindow:\n"
      "    - duration: 30d\n"
      "      isRolling: true\n"
      "  objectives:\n"
      "    - targetPercent: {}\n"
      "  indicator:\n"
      "    metadata:\n"
      "      name: {}-sli\n"
      "    spec:\n"
      "      ratioMetric:\n"
      "        counter: true\n"
      "        good:\n"
      "          metricSource:\n"
      "            type: Prometheus\n"
      "            spec:\n"
      "              query: sum(rate({}[5m]))\n"
      "        total:\n"
      "          metricSource:\n"
      "            type: Prometheus\n"
      "            spec:\n"
      "              query: sum(rate({}[5m]))\n",
      r.sli == TemplateSli::kLatency ? "latency" : "time-to-first-token",
      r.service.empty() ? r.model : r.service, description, r.objective_percent,
      r.sli == TemplateSli::kLatency ? "latency" : "time-to-first-token",
      selector(histogram + "_bucket", with(labels, fmt::format("le=\"{}\"", bound))),
      selector(histogram + "_count", labels));
}

}  // namespace

std::string server_template(const TemplateRequest& r) {
  const std::string job = r.job.empty() ? "" : fmt::format("job=\"{}\"", r.job);
  switch (r.server) {
    case ServerKind::kTriton: {
      const std::string labels = with(job, r.model.empty() ? "" : fmt::format("model=\"{}\"", r.model));
      if (r.sli != TemplateSli::kAvailability) {
        throw std::invalid_argument(
            "Triton's latency counters give a mean (rate(nv_inference_request_duration_us) / "
            "rate(nv_inference_request_success)), never a percentile: no latency SLO counts requests from "
            "them");
      }
      return document(r, "availability", "requests that do not fail", "error_query",
                      selector("nv_inference_request_failure", labels),
                      selector("nv_inference_request_success", labels) + "[{{.window}}])) + sum(rate(" +
                          selector("nv_inference_request_failure", labels));
    }
    case ServerKind::kVllm: {
      const std::string labels = with(job, r.model.empty() ? "" : fmt::format("model_name=\"{}\"", r.model));
      if (r.sli == TemplateSli::kAvailability) {
        throw std::invalid_argument(
            "vLLM counts no failed requests (a failure is an HTTP error the router sees): take availability "
            "from the router or gateway");
      }
      if (r.sli == TemplateSli::kLatency)
        return latency(r, "vllm:e2e_request_latency_seconds", vllm_e2e_buckets(), labels,
                       "requests answered");
      return latency(r, "vllm:time_to_first_token_seconds", vllm_ttft_buckets(), labels, "first tokens");
    }
    case ServerKind::kTgi:
      if (r.sli == TemplateSli::kTimeToFirstToken)
        throw std::invalid_argument("TGI has no time-to-first-token metric");
      if (r.sli == TemplateSli::kLatency)
        return latency(r, "tgi_request_duration", tgi_duration_buckets(), job, "requests answered");
      // TGI counts requests and successes: the good side is its successes.
      return fmt::format(
          "# Written by gpuwatch slo template.\n"
          "apiVersion: openslo/v1\n"
          "kind: SLO\n"
          "metadata:\n"
          "  name: availability\n"
          "spec:\n"
          "  service: {}\n"
          "  budgetingMethod: Occurrences\n"
          "  objectives:\n"
          "    - targetPercent: {}\n"
          "  indicator:\n"
          "    spec:\n"
          "      ratioMetric:\n"
          "        counter: true\n"
          "        good:\n"
          "          metricSource:\n"
          "            spec:\n"
          "              query: sum(rate({}[5m]))\n"
          "        total:\n"
          "          metricSource:\n"
          "            spec:\n"
          "              query: sum(rate({}[5m]))\n",
          r.service.empty() ? r.model : r.service, r.objective_percent, selector("tgi_request_success", job),
          selector("tgi_request_count", job));
  }
  throw std::invalid_argument("unknown server");
}

}  // namespace gpuwatch::slo
