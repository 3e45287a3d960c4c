#include "accounting/cost_report.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace gpuwatch::accounting {
namespace {

// How far before the window a counter's last value is looked for: a few missed samples, an agent restart.
constexpr std::int64_t kLookbackMs = 3'600'000;

std::vector<LabelMatcher> name_is(const char* name) {
  return {LabelMatcher("__name__", MatchOp::kEqual, name)};
}

std::optional<std::size_t> state_index(const std::string& name) {
  for (std::size_t i = 0; i < kGpuStates.size(); ++i)
    if (state_name(kGpuStates[i]) == name) return i;
  return std::nullopt;
}

template <typename Fn>
void each_increase(const SeriesSource& history, const char* name, std::int64_t start, std::int64_t end,
                   Fn fn) {
  history.for_each_series(name_is(name), start - kLookbackMs, end,
                          [&](const Labels& labels, std::span<const Point> points) {
                            fn(labels, counter_increase(points, start, end));
                          });
}

}  // namespace

double StateFigures::total_hours() const {
  return std::accumulate(hours.begin(), hours.end(), 0.0);
}
double StateFigures::total_cost() const {
  return std::accumulate(cost.begin(), cost.end(), 0.0);
}

std::string WorkloadFigures::name() const {
  if (!pod.empty()) return namespace_name + "/" + pod + (container.empty() ? "" : "/" + container);
  if (!slurm_job.empty()) return "job " + slurm_job + (user.empty() ? "" : " (" + user + ")");
  if (!user.empty()) return "user " + user;
  return "unnamed";
}

double counter_increase(std::span<const Point> points, std::int64_t start_ms, std::int64_t end_ms) {
  double total = 0;
  std::optional<double> last;  // the value before the next point
  for (const auto& p : points) {
    if (p.t_ms > end_ms) break;
    if (p.t_ms <= start_ms) {
      last = p.value;
      continue;
    }
    if (!last) {
      // Born in the window: it counted from 0.
      total += p.value;
    } else {
      total += p.value >= *last ? p.value - *last : p.value;  // a reset: it counted from 0 again
    }
    last = p.value;
  }
  return total;
}

CostReport build_cost_report(const SeriesSource& history, std::int64_t start_ms, std::int64_t end_ms) {
  CostReport r;
  r.start_ms = start_ms;
  r.end_ms = end_ms;
  std::map<std::string, GpuFigures> gpus;  // by uuid
  auto gpu_of = [&](const Labels& l) -> GpuFigures& {
    GpuFigures& g = gpus[label_value(l, "uuid")];
    if (g.uuid.empty()) {
      g.uuid = label_value(l, "uuid");
      g.gpu = label_value(l, "gpu");
      g.model = label_value(l, "model");
      g.gpu_instance_id = label_value(l, "gpu_instance_id");
    }
    return g;
  };
  for (const bool cost : {false, true}) {
    each_increase(history, cost ? "gpuwatch_gpu_cost_total" : "gpuwatch_gpu_state_seconds_total", start_ms,
                  end_ms, [&](const Labels& l, double v) {
                    const auto s = state_index(label_value(l, "state"));
                    if (!s) return;
                    auto& figures = gpu_of(l).states;
                    (cost ? figures.cost : figures.hours)[*s] += cost ? v : v / 3600.0;
                  });
  }
  std::map<Labels, WorkloadFigures> workloads;
  for (const bool cost : {false, true}) {
    each_increase(history, cost ? "gpuwatch_workload_cost_total" : "gpuwatch_workload_gpu_seconds_total",
                  start_ms, end_ms, [&](const Labels& l, double v) {
                    Labels key;
                    for (const auto& [k, value] : l)
                      if (k != "state" && k != "__name__") key.emplace_back(k, value);
                    WorkloadFigures& w = workloads[key];
                    w.namespace_name = label_value(l, "namespace");
                    w.pod = label_value(l, "pod");
                    w.container = label_value(l, "container");
                    w.slurm_job = label_value(l, "slurm_job");
                    w.user = label_value(l, "user");
                    w.team = label_value(l, "team");
                    const bool active = label_value(l, "state") == "active";
                    if (cost)
                      (active ? w.active_cost : w.idle_held_cost) += v;
                    else
                      (active ? w.active_hours : w.idle_held_hours) += v / 3600.0;
                  });
  }

  // Utilization: each GPU's mean over the window, and every GPU's mean per bucket.
  const std::int64_t bucket = end_ms - start_ms > 14LL * 86'400'000 ? 86'400'000 : 3'600'000;
  std::map<std::int64_t, std::pair<double, std::size_t>> buckets;
  history.for_each_series(name_is("gpu_utilization_ratio"), start_ms + 1, end_ms,
                          [&](const Labels& l, std::span<const Point> points) {
                            if (points.empty()) return;
                            double sum = 0;
                            for (const auto& p : points) {
                              sum += p.value;
                              auto& b = buckets[start_ms + (p.t_ms - start_ms) / bucket * bucket];
                              b.first += p.value;
                              ++b.second;
                            }
                            const auto it = gpus.find(label_value(l, "uuid"));
                            if (it != gpus.end())
                              it->second.mean_utilization = sum / static_cast<double>(points.size());
                          });
  for (const auto& [t, b] : buckets) r.utilization.push_back({t, b.first / static_cast<double>(b.second)});

  for (auto& [uuid, g] : gpus) {
    for (std::size_t i = 0; i < kGpuStates.size(); ++i) {
      r.node.hours[i] += g.states.hours[i];
      r.node.cost[i] += g.states.cost[i];
    }
    r.gpus.push_back(std::move(g));
  }
  // By index as a number ("10" after "9"), then MIG instance.
  std::sort(r.gpus.begin(), r.gpus.end(), [](const GpuFigures& a, const GpuFigures& b) {
    return std::tuple(a.gpu.size(), a.gpu, a.gpu_instance_id.size(), a.gpu_instance_id) <
           std::tuple(b.gpu.size(), b.gpu, b.gpu_instance_id.size(), b.gpu_instance_id);
  });
  for (const auto& g : r.gpus) {
    if (g.mean_utilization && *g.mean_utilization < r.low_utilization_below)
      r.low_utilization_gpus.push_back(g.gpu_instance_id.empty() ? g.gpu : g.gpu + "/" + g.gpu_instance_id);
  }
  const auto active = static_cast<std::size_t>(GpuState::kActive);
  const auto idle = static_cast<std::size_t>(GpuState::kIdleHeld);
  r.opencost.allocated_hours = r.node.hours[active] + r.node.hours[idle];
  r.opencost.allocated_cost = r.node.cost[active] + r.node.cost[idle];
  r.opencost.idle_hours = r.node.total_hours() - r.opencost.allocated_hours;
  r.opencost.idle_cost = r.node.total_cost() - r.opencost.allocated_cost;

  std::map<std::string, GroupFigures> teams, namespaces;
  const auto add = [](GroupFigures& g, const std::string& name, const WorkloadFigures& w) {
    g.name = name;
    g.active_hours += w.active_hours;
    g.idle_held_hours += w.idle_held_hours;
    g.active_cost += w.active_cost;
    g.idle_held_cost += w.idle_held_cost;
  };
  for (auto& [key, w] : workloads) {
    if (w.active_hours == 0 && w.idle_held_hours == 0) continue;  // nothing in this window
    add(teams[w.team], w.team, w);
    if (!w.namespace_name.empty()) add(namespaces[w.namespace_name], w.namespace_name, w);
    r.workloads.push_back(std::move(w));
  }
  std::stable_sort(r.workloads.begin(), r.workloads.end(),
                   [](const auto& a, const auto& b) { return a.idle_held_hours > b.idle_held_hours; });
  for (auto [groups, out] : {std::pair{&teams, &r.teams}, std::pair{&namespaces, &r.namespaces}}) {
    for (auto& [name, g] : *groups) out->push_back(std::move(g));
    std::stable_sort(out->begin(), out->end(),
                     [](const auto& a, const auto& b) { return a.idle_held_cost > b.idle_held_cost; });
  }
  return r;
}

}  // namespace gpuwatch::accounting
