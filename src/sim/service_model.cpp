#include "sim/service_model.h"

#include <algorithm>
#include <cmath>

#include "core/server_buckets.h"
#include "sim/shape.h"
#include "sim/simulator.h"

namespace gpuwatch::sim {
namespace {

constexpr double kSpread = 0.45;  // sigma of the log-normal latency: p99 is about 2.8x the median
constexpr double kTokensOut = 200;
constexpr double kTokensIn = 600;
constexpr double kXidFailureSeconds = 30;  // an application XID fails requests while the server recovers

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// Share of log-normal latencies with median `median` at or under `bound`.
double share_under(double bound, double median) {
  if (median <= 0) return 1;
  return normal_cdf((std::log(bound) - std::log(median)) / kSpread);
}

void add_histogram(std::vector<double>& buckets, const std::vector<double>& bounds, double n, double median) {
  buckets.resize(bounds.size());
  for (std::size_t i = 0; i < bounds.size(); ++i) buckets[i] += n * share_under(bounds[i], median);
}

}  // namespace

const std::vector<double>& e2e_bucket_bounds(ServiceKind kind) {
  // vLLM's request latency buckets; TGI's and Triton's first-response histogram use a coarser ladder.
  return kind == ServiceKind::kVllm ? vllm_e2e_buckets() : tgi_duration_buckets();
}

const std::vector<double>& ttft_bucket_bounds() {
  return vllm_ttft_buckets();
}

const std::vector<double>& tpot_bucket_bounds() {
  static const std::vector<double> k = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
                                        0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
  return k;
}

ServiceModel::ServiceModel(const Node& node, const ServiceSpec& spec, std::size_t index)
    : node_(node), spec_(spec), index_(index) {
  capacity_ =
      spec.capacity_rps > 0 ? spec.capacity_rps : std::max(1.0, 2 * eval_shape(spec.traffic, 0, 0, 0));
}

ServiceMoment ServiceModel::at(double t) const {
  ServiceMoment m;
  const auto& faults = node_.faults;
  if (faults.lost(spec_.gpu, t)) {
    m.refused = true;
    return m;
  }
  const std::uint64_t seed = node_.scenario.node.seed;
  m.rate = std::max(0.0, eval_shape(spec_.traffic, t, seed, 0x900000 + index_));
  for (const auto& f : spec_.faults) {
    if (f.kind == ServiceFault::Kind::kTrafficSpike && f.active(t)) m.rate *= f.factor;
  }
  // Slower clocks (thermal, power) and a neighbour's share of the SMs stretch every request.
  double slowdown = 1 / std::max(0.1, node_.gpus[spec_.gpu]->clock_factor(t));
  double others = 0;
  const auto& procs = node_.scenario.processes;
  for (std::size_t i = 0; i < procs.size(); ++i) {
    if (procs[i].gpu == spec_.gpu && procs[i].pid != spec_.pid) others += node_.processes.sm_util(i, t);
  }
  slowdown *= 1 + std::min(others, 100.0) / 100;
  // Queueing: the server's capacity shrinks with the slowdown; past 80% load requests wait.
  const double load = m.rate * slowdown / capacity_;
  m.queue_s =
      spec_.latency_s * (load < 0.8 ? 0.02 * load : 0.016 + 2.5 * (load - 0.8) * (load - 0.8) + (load - 0.8));
  m.latency_s = spec_.latency_s * slowdown + m.queue_s;
  m.running = std::min(m.rate, capacity_ / slowdown) * spec_.latency_s * slowdown;
  m.waiting = m.rate * m.queue_s;
  m.errors = spec_.errors;
  for (const auto& f : spec_.faults) {
    if (f.kind == ServiceFault::Kind::kBadDeploy && f.active(t)) m.errors = std::max(m.errors, f.errors);
  }
  for (const auto& f : node_.scenario.faults) {
    const bool on_gpu = f.gpu == static_cast<int>(spec_.gpu);
    if (f.kind == FaultKind::kXid && on_gpu && (f.pid == 0 || f.pid == spec_.pid) && t >= f.at &&
        t < f.at + kXidFailureSeconds) {
      m.errors = 1;
    }
    if (f.kind == FaultKind::kProcessOom && f.pid == spec_.pid && f.active(t))
      m.errors = std::max(m.errors, 0.6);
  }
  return m;
}

void ServiceModel::add_step(ServiceTotals& totals, double t, double weight) const {
  const ServiceMoment m = at(t);
  if (m.refused) return;
  const double n = m.rate * weight;
  const double ok = n * (1 - m.errors);
  const double mean = std::exp(kSpread * kSpread / 2);
  totals.requests += n;
  totals.success += ok;
  totals.failure += n - ok;
  totals.duration_s += n * m.latency_s * mean;
  totals.queue_s += n * m.queue_s * mean;
  totals.prompt_tokens += n * kTokensIn;
  totals.output_tokens += ok * kTokensOut;
  add_histogram(totals.e2e_buckets, e2e_bucket_bounds(spec_.kind), ok, m.latency_s);
  add_histogram(totals.ttft_buckets, ttft_bucket_bounds(), ok, m.queue_s + 0.08 * m.latency_s);
  add_histogram(totals.tpot_buckets, tpot_bucket_bounds(), ok, 0.92 * m.latency_s / kTokensOut);
  add_histogram(totals.queue_buckets, e2e_bucket_bounds(spec_.kind), ok, std::max(1e-4, m.queue_s));
}

ServiceTotals ServiceModel::totals(double t, double wall_per_second) const {
  t = std::max(0.0, t);
  const auto k = static_cast<std::int64_t>(std::floor(t));
  std::lock_guard lock(mu_);
  if (k < cached_step_ || wall_per_second != cached_wall_per_second_) {
    cached_ = ServiceTotals{};
    cached_step_ = 0;
    cached_wall_per_second_ = wall_per_second;
  }
  for (; cached_step_ < k; ++cached_step_)
    add_step(cached_, static_cast<double>(cached_step_), wall_per_second);
  ServiceTotals out = cached_;
  add_step(out, static_cast<double>(k), (t - static_cast<double>(k)) * wall_per_second);
  return out;
}

}  // namespace gpuwatch::sim
