#include "accounting/ledger.h"

#include <algorithm>

namespace gpuwatch::accounting {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;

// A MIG instance's share of its GPU's price: the GPU's price over its instances.
double price_of(const Snapshot& snapshot, const DeviceSnapshot& d, const AccountingSettings& s) {
  if (!d.identity.is_mig_instance) return s.price_of(d.identity.name);
  std::size_t instances = 0;
  std::string model = d.identity.name;
  for (const auto& other : snapshot.devices) {
    if (other.identity.is_mig_instance && other.identity.parent_uuid == d.identity.parent_uuid) ++instances;
    if (other.identity.uuid == d.identity.parent_uuid) model = other.identity.name;
  }
  return s.price_of(model) / static_cast<double>(std::max<std::size_t>(1, instances));
}

}  // namespace

Ledger::WorkloadTotals& Ledger::workload(const Workload& w, std::int64_t now) {
  auto it = workloads_.find(w);
  if (it == workloads_.end()) {
    if (workloads_.size() >= options_.max_workloads) {
      Workload other;
      other.pod = "other";
      it = workloads_.try_emplace(other).first;
    } else {
      it = workloads_.try_emplace(w).first;
    }
  }
  it->second.seen_ms = now;
  return it->second;
}

void Ledger::add(const Snapshot& snapshot) {
  const std::int64_t now = snapshot.timestamp_ms;
  const AccountingSettings& s = options_.settings;
  for (const auto& d : snapshot.devices) {
    if (!accounted(snapshot, d)) continue;
    const std::string& uuid = d.identity.uuid;
    Gpu& gpu = gpus_[uuid];
    if (gpu.model.empty()) {
      gpu.index = std::to_string(d.identity.index);
      if (d.identity.is_mig_instance) gpu.gpu_instance_id = std::to_string(d.identity.gpu_instance_id);
      gpu.model = d.identity.name;
    }
    const bool maintenance = options_.in_maintenance && options_.in_maintenance(d.identity, now);
    Observation seen{snapshot.sequence,
                     now,
                     maintenance ? GpuState::kUnavailable : classify(d, s.active_utilization),
                     workloads_on(d, s.teams),
                     price_of(snapshot, d, s),
                     std::nullopt};
    if (const Sample* e = d.find(Metric::kEnergy); e && d.state == DeviceState::kOk)
      seen.energy_joules = e->value;
    for (const auto& w : seen.workloads) workload(w, now);

    if (const auto prev = last_.find(uuid); prev != last_.end()) {
      const Observation& was = prev->second;
      const std::int64_t dt = now - was.t;
      const bool consecutive = snapshot.sequence == was.sequence + 1;
      if (dt > 0 && (dt <= s.max_gap.count() || !consecutive)) {
        const double seconds = static_cast<double>(dt) / 1000.0;
        double cost = seconds / 3600.0 * was.price_per_hour;
        if (s.energy_price_per_kwh > 0 && was.energy_joules && seen.energy_joules &&
            *seen.energy_joules >= *was.energy_joules)
          cost += (*seen.energy_joules - *was.energy_joules) / kJoulesPerKwh * s.energy_price_per_kwh;
        StateTotals& t = gpu.totals[static_cast<std::size_t>(was.state)];
        t.seconds += seconds;
        t.cost += cost;
        const bool held = was.state == GpuState::kActive || was.state == GpuState::kIdleHeld;
        if (held && !was.workloads.empty()) {
          const double share = 1.0 / static_cast<double>(was.workloads.size());
          for (const auto& w : was.workloads) {
            WorkloadTotals& wt = workload(w, now);
            StateTotals& st = was.state == GpuState::kActive ? wt.active : wt.idle_held;
            st.seconds += seconds * share;
            st.cost += cost * share;
          }
        }
      }
    }
    last_[uuid] = std::move(seen);
  }
  // Workloads gone for longer than the expiry lose their counters, once a minute of snapshot time.
  if (now - swept_ms_ >= 60'000) {
    swept_ms_ = now;
    std::erase_if(workloads_, [&](const auto& entry) {
      return now - entry.second.seen_ms > options_.workload_expiry.count();
    });
  }
}

}  // namespace gpuwatch::accounting
