// What the accounting sink and the cost report are told (docs/cost.md): the utilization floor above which a
// GPU counts as active, prices per GPU-hour by model (or one for the node), the price of energy, which team
// a namespace, user or job belongs to. How many workloads are kept is the agent's (AgentOptions).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace gpuwatch {

// One rule of the teams mapping: a workload whose namespace, user, Slurm job or pod is `value` belongs to
// `team`. Rules are tried in the order given; the first that matches wins.
struct TeamRule {
  std::string team;
  std::string kind;  // "namespace", "user", "job", "slurm_account", "pod"
  std::string value;
  bool operator==(const TeamRule&) const = default;
};

// A price per GPU-hour for GPUs whose model name is `model` or ends in " <model>" ("H200" prices "NVIDIA
// H200"); "*" prices every GPU no other entry names (the node's price).
struct GpuHourPrice {
  std::string model;
  double price = 0;
  bool operator==(const GpuHourPrice&) const = default;
};

struct AccountingSettings {
  // A GPU whose utilization is at least this is active; below it, idle (held or not).
  double active_utilization = 0.05;
  // OpenCost's default price for any GPU, until told otherwise.
  std::vector<GpuHourPrice> gpu_hour_prices{{"*", 0.95}};
  double energy_price_per_kwh = 0;  // 0: energy is not priced
  std::vector<TeamRule> teams;
  // A gap between snapshots longer than this (the agent was stopped, the machine slept) is not counted.
  std::chrono::milliseconds max_gap{std::chrono::minutes(5)};

  // The price per GPU-hour of a GPU of this model name.
  double price_of(const std::string& model_name) const {
    const GpuHourPrice* best = nullptr;
    for (const auto& p : gpu_hour_prices) {
      const bool named = model_name == p.model ||
                         (model_name.size() > p.model.size() && model_name.ends_with(" " + p.model));
      if (named && (!best || best->model == "*" || p.model.size() > best->model.size())) best = &p;
      if (p.model == "*" && !best) best = &p;
    }
    return best ? best->price : 0;
  }
};

}  // namespace gpuwatch
