// The /metrics text of a simulated model server, in the names, labels and units of the real servers
// (../shared/reference/services-slo-cost.md): Triton's cumulative microsecond counters, vLLM's histograms
// with its own buckets, TGI's histograms in seconds.
#include <cmath>
#include <cstdio>

#include "sim/service_model.h"

namespace gpuwatch::sim {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// A count as the server counts it: whole requests.
std::string whole(double v) {
  return number(std::floor(v + 1e-9));
}

void family(std::string& out, const std::string& name, const char* type, const char* help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void sample(std::string& out, const std::string& name, const std::string& labels, const std::string& value) {
  out += name + "{" + labels + "} " + value + "\n";
}

void histogram(std::string& out, const std::string& name, const char* help, const std::string& labels,
               const std::vector<double>& bounds, const std::vector<double>& counts, double count,
               double sum) {
  family(out, name, "histogram", help);
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    sample(out, name + "_bucket", labels + ",le=\"" + number(bounds[i]) + "\"",
           whole(i < counts.size() ? counts[i] : 0));
  }
  sample(out, name + "_bucket", labels + ",le=\"+Inf\"", whole(count));
  sample(out, name + "_sum", labels, number(sum));
  sample(out, name + "_count", labels, whole(count));
}

void triton(std::string& out, const ServiceModel& m, const ServiceMoment& now, const ServiceTotals& t) {
  const std::string l = "model=\"" + m.spec().model + "\",version=\"1\"";
  family(out, "nv_inference_request_success", "counter",
         "Number of successful inference requests, all batch sizes");
  sample(out, "nv_inference_request_success", l, whole(t.success));
  family(out, "nv_inference_request_failure", "counter",
         "Number of failed inference requests, all batch sizes");
  sample(out, "nv_inference_request_failure", l + ",reason=\"REJECTED\"", whole(t.failure));
  family(out, "nv_inference_count", "counter",
         "Number of inferences performed (does not include cached requests)");
  sample(out, "nv_inference_count", l, whole(t.success));
  family(out, "nv_inference_exec_count", "counter", "Number of model executions performed");
  sample(out, "nv_inference_exec_count", l, whole(t.success / 4));
  family(out, "nv_inference_request_duration_us", "counter",
         "Cumulative inference request duration in microseconds");
  sample(out, "nv_inference_request_duration_us", l, whole(t.duration_s * 1e6));
  family(out, "nv_inference_queue_duration_us", "counter",
         "Cumulative inference queuing duration in microseconds");
  sample(out, "nv_inference_queue_duration_us", l, whole(t.queue_s * 1e6));
  family(out, "nv_inference_compute_infer_duration_us", "counter",
         "Cumulative compute inference duration in microseconds");
  sample(out, "nv_inference_compute_infer_duration_us", l, whole((t.duration_s - t.queue_s) * 1e6));
  family(out, "nv_inference_pending_request_count", "gauge",
         "Instantaneous number of pending requests awaiting execution per-model.");
  sample(out, "nv_inference_pending_request_count", l, whole(now.waiting));
}

void vllm(std::string& out, const ServiceModel& m, const ServiceMoment& now, const ServiceTotals& t) {
  const std::string l = "engine=\"0\",model_name=\"" + m.spec().model + "\"";
  histogram(out, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", l,
            e2e_bucket_bounds(ServiceKind::kVllm), t.e2e_buckets, t.success,
            t.duration_s * t.success / std::max(1.0, t.requests));
  histogram(out, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", l,
            ttft_bucket_bounds(), t.ttft_buckets, t.success,
            (t.queue_s + 0.08 * t.duration_s) * t.success / std::max(1.0, t.requests));
  histogram(out, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", l,
            tpot_bucket_bounds(), t.tpot_buckets, t.success,
            0.92 * t.duration_s / 200 * t.success / std::max(1.0, t.requests));
  family(out, "vllm:request_success_total", "counter", "Count of successfully processed requests.");
  sample(out, "vllm:request_success_total", l + ",finished_reason=\"stop\"", whole(t.success * 0.9));
  sample(out, "vllm:request_success_total", l + ",finished_reason=\"length\"", whole(t.success * 0.1));
  // vLLM has no failure counter: a request that fails is answered with an HTTP error, seen by the router.
  family(out, "vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.");
  sample(out, "vllm:prompt_tokens_total", l, whole(t.prompt_tokens));
  family(out, "vllm:generation_tokens_total", "counter", "Number of generation tokens processed.");
  sample(out, "vllm:generation_tokens_total", l, whole(t.output_tokens));
  family(out, "vllm:num_requests_running", "gauge", "Number of requests in model execution batches.");
  sample(out, "vllm:num_requests_running", l, whole(now.running));
  family(out, "vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.");
  sample(out, "vllm:num_requests_waiting", l, whole(now.waiting));
  family(out, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.");
  sample(out, "vllm:kv_cache_usage_perc", l, number(std::min(1.0, 0.05 + (now.running + now.waiting) / 256)));
}

void tgi(std::string& out, const ServiceModel& m, const ServiceMoment& now, const ServiceTotals& t) {
  (void)m;
  const std::string l = "method=\"POST\"";
  family(out, "tgi_request_count", "counter", "Total number of requests");
  sample(out, "tgi_request_count", l, whole(t.requests));
  family(out, "tgi_request_success", "counter", "Number of successful requests");
  sample(out, "tgi_request_success", l, whole(t.success));
  histogram(out, "tgi_request_duration", "Request duration in seconds", l,
            e2e_bucket_bounds(ServiceKind::kTgi), t.e2e_buckets, t.success,
            t.duration_s * t.success / std::max(1.0, t.requests));
  histogram(out, "tgi_request_queue_duration", "Time requests spent in the queue in seconds", l,
            e2e_bucket_bounds(ServiceKind::kTgi), t.queue_buckets, t.success,
            t.queue_s * t.success / std::max(1.0, t.requests));
  family(out, "tgi_queue_size", "gauge", "Current queue size");
  sample(out, "tgi_queue_size", l, whole(now.waiting));
  family(out, "tgi_batch_current_size", "gauge", "Current batch size");
  sample(out, "tgi_batch_current_size", l, whole(now.running));
}

}  // namespace

std::string render_service_metrics(const ServiceModel& model, double t, double wall_per_second) {
  const ServiceMoment now = model.at(t);
  const ServiceTotals totals = model.totals(t, wall_per_second);
  std::string out;
  switch (model.spec().kind) {
    case ServiceKind::kTriton:
      triton(out, model, now, totals);
      break;
    case ServiceKind::kVllm:
      vllm(out, model, now, totals);
      break;
    case ServiceKind::kTgi:
      tgi(out, model, now, totals);
      break;
  }
  return out;
}

}  // namespace gpuwatch::sim
