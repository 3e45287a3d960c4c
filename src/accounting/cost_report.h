// The cost report over a window of the history (`gpuwatch report`, /api/v1/cost): GPU-hours and cost by
// state per GPU and in all, per workload (most idle first), per team and per namespace, the same inputs
// computed OpenCost's way (allocated GPU-hours times price: a GPU held at 0% counts as used, only unallocated
// time is idle), the GPUs' utilization over time and the GPUs under 20% over the window.
//
// Each figure is the increase of an accounting counter over the window: its last value in the window less
// its last value at or before the start (0 for a series born in the window), with counter resets (an
// agent restart) added back as Prometheus's increase() does, but without extrapolation: the figures are
// exactly what the ledger charged.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accounting/gpu_state.h"
#include "core/series.h"

namespace gpuwatch::accounting {

struct StateFigures {
  std::array<double, kGpuStates.size()> hours{};
  std::array<double, kGpuStates.size()> cost{};
  double total_hours() const;
  double total_cost() const;
};

struct GpuFigures {
  std::string gpu, uuid, model, gpu_instance_id;
  StateFigures states;
  std::optional<double> mean_utilization;  // over the window, from gpu_utilization_ratio
};

struct WorkloadFigures {
  std::string namespace_name, pod, container, slurm_job, user, team;
  double active_hours = 0, idle_held_hours = 0;
  double active_cost = 0, idle_held_cost = 0;
  std::string name() const;  // namespace/pod/container, job <id>, or user
};

// The workloads of a team or a namespace together.
struct GroupFigures {
  std::string name;  // the team ("" for workloads no teams rule names) or the namespace
  double active_hours = 0, idle_held_hours = 0;
  double active_cost = 0, idle_held_cost = 0;
};

// OpenCost's view of the same GPUs: allocated = every hour a workload held a GPU (active or idle);
// idle = the rest of the node's GPU cost.
struct OpenCostFigures {
  double allocated_hours = 0, allocated_cost = 0;
  double idle_hours = 0, idle_cost = 0;
};

struct UtilizationPoint {
  std::int64_t t_ms = 0;  // the bucket's start
  double mean = 0;        // over every GPU's samples in the bucket
};

struct CostReport {
  std::int64_t start_ms = 0, end_ms = 0;
  StateFigures node;  // every GPU together
  std::vector<GpuFigures> gpus;
  std::vector<WorkloadFigures> workloads;  // most idle-held hours first
  std::vector<GroupFigures> teams;         // most idle-held cost first
  std::vector<GroupFigures> namespaces;    // of the pods' workloads, most idle-held cost first
  OpenCostFigures opencost;
  std::vector<UtilizationPoint> utilization;  // by hour (by day over windows longer than 14 days)
  double low_utilization_below = 0.2;
  std::vector<std::string> low_utilization_gpus;  // gpu labels whose mean is under low_utilization_below
};

// The increase of a counter's points over (start, end]; see above.
double counter_increase(std::span<const Point> points, std::int64_t start_ms, std::int64_t end_ms);

CostReport build_cost_report(const SeriesSource& history, std::int64_t start_ms, std::int64_t end_ms);

}  // namespace gpuwatch::accounting
