// The ledger as metric families: counters, each series from the first snapshot a GPU or workload is seen in
// (at 0), so that any window's increase is the last value less the one before the window.
#include "accounting/ledger.h"

namespace gpuwatch::accounting {
namespace {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

void add_nonempty(Labels& labels, std::string_view name, const std::string& value) {
  if (!value.empty()) labels.emplace_back(name, value);
}

Labels workload_labels(const Workload& w) {
  Labels l;
  add_nonempty(l, "namespace", w.namespace_name);
  add_nonempty(l, "pod", w.pod);
  add_nonempty(l, "container", w.container);
  add_nonempty(l, "slurm_job", w.slurm_job);
  add_nonempty(l, "user", w.user);
  add_nonempty(l, "team", w.team);
  return l;
}

}  // namespace

std::vector<Family> Ledger::families() const {
  Family gpu_seconds{
      "gpuwatch_gpu_state_seconds_total",
      FamilyType::kCounter,
      "seconds",
      "Time each GPU (or MIG instance) spent in each state: active (utilization at least "
      "active_utilization), idle_held (allocated or holding processes, below it), unallocated, "
      "unavailable (stale or lost)",
      {}};
  Family gpu_cost{
      "gpuwatch_gpu_cost_total",
      FamilyType::kCounter,
      "",
      "Cost of each GPU's time by state: GPU-hours times gpu_hour_price, plus measured energy times "
      "energy_price_per_kwh",
      {}};
  Family wl_seconds{
      "gpuwatch_workload_gpu_seconds_total",
      FamilyType::kCounter,
      "seconds",
      "GPU time of each workload (pod, job or user) by state, active or idle_held; a shared GPU's "
      "time split evenly",
      {}};
  Family wl_cost{"gpuwatch_workload_cost_total",
                 FamilyType::kCounter,
                 "",
                 "Cost of each workload's GPU time by state, active or idle_held",
                 {}};
  Family count{"gpuwatch_accounting_workloads",
               FamilyType::kGauge,
               "",
               "Workloads with accounting counters (at most accounting_max_workloads)",
               {}};
  for (const auto& [uuid, gpu] : gpus_) {
    for (const GpuState state : kGpuStates) {
      Labels l{{"gpu", gpu.index}, {"uuid", uuid}};
      add_nonempty(l, "gpu_instance_id", gpu.gpu_instance_id);
      l.emplace_back("model", gpu.model);
      l.emplace_back("state", std::string(state_name(state)));
      const StateTotals& t = gpu.totals[static_cast<std::size_t>(state)];
      gpu_seconds.series.push_back({l, t.seconds, 0});
      gpu_cost.series.push_back({std::move(l), t.cost, 0});
    }
  }
  for (const auto& [w, t] : workloads_) {
    for (const auto& [state, totals] :
         {std::pair<const char*, const StateTotals*>{"active", &t.active}, {"idle_held", &t.idle_held}}) {
      Labels l = workload_labels(w);
      l.emplace_back("state", state);
      wl_seconds.series.push_back({l, totals->seconds, 0});
      wl_cost.series.push_back({std::move(l), totals->cost, 0});
    }
  }
  count.series.push_back({{}, static_cast<double>(workloads_.size()), 0});
  std::vector<Family> out;
  out.push_back(std::move(gpu_seconds));
  out.push_back(std::move(gpu_cost));
  out.push_back(std::move(wl_seconds));
  out.push_back(std::move(wl_cost));
  out.push_back(std::move(count));
  return out;
}

}  // namespace gpuwatch::accounting
