// SLO templates for the model servers, with their real metric names and meanings
// (docs/slo.md, "Templates"). Each returns a Sloth prometheus/v1 document the user can keep, edit and point
// the agent at (gpuwatch slo template). What a server cannot measure is refused with the reason:
// - Triton's latency counters (nv_inference_request_duration_us) are cumulative microseconds: with the
// request
//   count they give a mean, never a percentile, so no "requests under X" latency SLO comes from them;
// - TGI has no time-to-first-token metric;
// - vLLM has no failure counter (a failed request is an HTTP error the router sees), so no availability SLO.
// A latency SLO over a histogram counts the requests in the bucket whose upper bound is the largest one at or
// below the threshold: a request between that bound and the threshold counts as slow (the SLI errs on the
// side of burning), and the document says which bound it used.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuwatch::slo {

enum class ServerKind { kTriton, kVllm, kTgi };
enum class TemplateSli { kAvailability, kLatency, kTimeToFirstToken };

struct TemplateRequest {
  ServerKind server = ServerKind::kVllm;
  TemplateSli sli = TemplateSli::kLatency;
  std::string service;  // the service label; the model's name when empty
  std::string model;    // model (Triton), model_name (vLLM); TGI serves one model: matched by job
  std::string job;      // the scrape job ("" leaves it out of the selectors)
  double objective_percent = 99.0;
  std::chrono::milliseconds threshold{0};  // latency SLIs: requests at or under this are good
};

// Throws std::invalid_argument when the server does not measure the SLI (the reason above).
std::string server_template(const TemplateRequest& request);

// The histogram bound a threshold uses: the largest bound at or below it. Throws std::invalid_argument when
// the threshold is below the first bound (no bucket counts requests that fast).
double bucket_at_or_below(const std::vector<double>& bounds, double threshold_seconds);

}  // namespace gpuwatch::slo
