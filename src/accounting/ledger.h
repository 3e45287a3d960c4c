// The accounting ledger: each GPU's (and MIG instance's) time and cost by state, and each workload's, summed
// snapshot by snapshot. The time from one snapshot to the next is charged to what the first one saw (a
// reading holds until the next), so a scenario whose GPU changes state at hour 48 gets exactly 48 hours of
// the first state. A gap longer than max_gap (the agent was stopped) is not charged to anyone.
//
// Cost is GPU-hours times the GPU's price (by model, or the node's), plus, where energy is priced, the
// energy the GPU measured in the interval times the price of a kWh. A GPU shared by several workloads splits
// its time and cost between them evenly. Workload counters are bounded: at most max_workloads (more are
// summed as pod "other"), and a workload not seen for workload_expiry loses its counters. A GPU in
// maintenance (in_maintenance) is unavailable, as a lost or stale one is.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accounting/gpu_state.h"
#include "accounting/workload.h"
#include "config/accounting_settings.h"
#include "core/snapshot.h"
#include "exposition/exposition.h"

namespace gpuwatch::accounting {

struct StateTotals {
  double seconds = 0;
  double cost = 0;
};

struct LedgerOptions {
  AccountingSettings settings;
  std::size_t max_workloads = 500;
  std::chrono::milliseconds workload_expiry{std::chrono::hours(24)};
  // Whether a GPU (or MIG instance) is in maintenance at a time: its time then is charged as unavailable,
  // whatever it reads. Null: never. Called on the ledger's thread, so it must be thread-safe.
  std::function<bool(const DeviceIdentity&, std::int64_t now_ms)> in_maintenance;
};

class Ledger {
 public:
  explicit Ledger(LedgerOptions options) : options_(std::move(options)) {}
  void set_settings(AccountingSettings settings) { options_.settings = std::move(settings); }

  void add(const Snapshot& snapshot);

  // gpuwatch_gpu_state_seconds_total, gpuwatch_gpu_cost_total, gpuwatch_workload_gpu_seconds_total,
  // gpuwatch_workload_cost_total and gpuwatch_accounting_workloads, as of the last snapshot added.
  std::vector<Family> families() const;

  struct Gpu {
    std::string index;  // "0", or "0" with gpu_instance_id for a MIG instance
    std::string gpu_instance_id;
    std::string model;
    std::array<StateTotals, kGpuStates.size()> totals{};
  };
  struct WorkloadTotals {
    StateTotals active, idle_held;
    std::int64_t seen_ms = 0;
  };
  const std::map<std::string, Gpu>& gpus() const { return gpus_; }  // by uuid
  const std::map<Workload, WorkloadTotals>& workloads() const { return workloads_; }

 private:
  struct Observation {
    std::uint64_t sequence = 0;
    std::int64_t t = 0;
    GpuState state = GpuState::kUnallocated;
    std::vector<Workload> workloads;
    double price_per_hour = 0;
    std::optional<double> energy_joules;
  };
  WorkloadTotals& workload(const Workload& w, std::int64_t now);

  LedgerOptions options_;
  std::map<std::string, Observation> last_;  // by uuid
  std::map<std::string, Gpu> gpus_;
  std::map<Workload, WorkloadTotals> workloads_;
  std::int64_t swept_ms_ = 0;
};

}  // namespace gpuwatch::accounting
