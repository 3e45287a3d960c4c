// A model server's state over scenario time, a pure function of (time, scenario): traffic, latency and
// errors that follow its GPU (slower under thermal or power slowdown and while other processes take the SMs,
// failing after an XID or an out-of-memory of its process, refusing connections once the GPU is lost) and its
// own faults (a bad deploy, a traffic spike). Its counters integrate one-second steps, so every reader at the
// same time sees the same totals.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "sim/service_spec.h"

namespace gpuwatch::sim {

struct Node;

// What happened at one moment.
struct ServiceMoment {
  double rate = 0;       // requests per wall second
  double latency_s = 0;  // median end to end
  double queue_s = 0;    // median time waiting in the queue
  double errors = 0;     // share of requests that fail
  double waiting = 0;    // requests queued now
  double running = 0;    // requests in flight now
  bool refused = false;  // the GPU is lost: nothing answers
};

// Totals since the scenario's start (counts as the server counts them: whole requests).
struct ServiceTotals {
  double requests = 0, success = 0, failure = 0;
  double duration_s = 0, queue_s = 0;  // sums over the requests
  double prompt_tokens = 0, output_tokens = 0;
  std::vector<double> e2e_buckets, ttft_buckets, tpot_buckets, queue_buckets;  // cumulative per le
};

// The buckets each histogram has (vLLM's own for its kinds).
const std::vector<double>& e2e_bucket_bounds(ServiceKind kind);
const std::vector<double>& ttft_bucket_bounds();
const std::vector<double>& tpot_bucket_bounds();

class ServiceModel {
 public:
  ServiceModel(const Node& node, const ServiceSpec& spec, std::size_t index);
  ServiceMoment at(double t) const;
  // wall_per_second: wall seconds per scenario second (counters grow per wall second).
  ServiceTotals totals(double t, double wall_per_second) const;
  const ServiceSpec& spec() const { return spec_; }

 private:
  void add_step(ServiceTotals& totals, double t, double weight) const;

  const Node& node_;
  const ServiceSpec& spec_;
  std::size_t index_;
  double capacity_;
  mutable std::mutex mu_;
  mutable std::int64_t cached_step_ = 0;  // totals_ cover steps [0, cached_step_)
  mutable double cached_wall_per_second_ = -1;
  mutable ServiceTotals cached_;
};

// The /metrics text of the service at t (text 0.0.4, as the three servers serve it).
std::string render_service_metrics(const ServiceModel& model, double t, double wall_per_second);

}  // namespace gpuwatch::sim
