#include "slo/measured_degradations.h"

#include <fmt/format.h>

namespace gpuwatch::slo {
namespace {

constexpr std::int64_t kXidHeldMs = 10 * 60'000;
constexpr std::int64_t kResolvedKeptMs = 15 * 60'000;

double value_of(const DeviceSnapshot& d, Metric m, std::string_view label = {}) {
  const Sample* s = d.find(m, label);
  return s ? s->value : -1;
}

}  // namespace

void MeasuredDegradations::observe(const Snapshot& snapshot) {
  const std::int64_t now = snapshot.timestamp_ms;
  const auto hold = [&](const DeviceSnapshot& d, const std::string& what, std::string measured,
                        std::int64_t until) {
    auto [it, fresh] = held_.try_emplace({d.identity.uuid, what});
    Held& h = it->second;
    if (fresh || h.record.state == alerting::AlertState::kResolved) {
      h.record = {};
      h.record.labels = {{"alertname", what},
                         {"gpu", std::to_string(d.identity.index)},
                         {"uuid", d.identity.uuid},
                         {"severity", "ticket"},
                         {"measured", "true"}};
      h.record.active_at_ms = now;
      h.record.state = alerting::AlertState::kFiring;
    }
    h.record.annotations["description"] = std::move(measured);
    h.last_seen_ms = until;
  };
  for (const auto& d : snapshot.devices) {
    const double clock = value_of(d, Metric::kClock, "sm"), max = value_of(d, Metric::kClockMax, "sm");
    if (clock > 0 && max > 0 && clock < 0.8 * max) {
      std::string reasons;
      for (const auto& s : d.samples) {
        if (s.metric == Metric::kClockEventActive && s.value > 0 && s.labels[0] != "gpu_idle")
          reasons += (reasons.empty() ? "" : ",") + s.labels[0];
      }
      if (!reasons.empty())
        hold(d, "ClocksHeldDown",
             fmt::format("SM clock {:.0f} MHz of {:.0f} MHz ({})", clock / 1e6, max / 1e6, reasons), now);
    }
    const double used = value_of(d, Metric::kMemoryUsed), total = value_of(d, Metric::kMemoryTotal);
    if (used > 0 && total > 0 && used > 0.95 * total)
      hold(d, "MemoryNearFull", fmt::format("memory {:.1f}% used", 100 * used / total), now);
    auto& seen = xid_seen_[d.identity.uuid];
    for (const auto& [code, count] : d.xid_counts) {
      if (count > seen[code])
        hold(d, "XidSeen", fmt::format("XID {} ({} so far)", code, count), now + kXidHeldMs);
      seen[code] = count;
    }
  }
  list_.clear();
  for (auto it = held_.begin(); it != held_.end();) {
    Held& h = it->second;
    if (h.record.state != alerting::AlertState::kResolved && h.last_seen_ms < now) {
      h.record.state = alerting::AlertState::kResolved;
      h.record.resolved_at_ms = now;
    }
    if (h.record.state == alerting::AlertState::kResolved &&
        now - h.record.resolved_at_ms > kResolvedKeptMs) {
      it = held_.erase(it);
      continue;
    }
    list_.push_back(h.record);
    ++it;
  }
}

}  // namespace gpuwatch::slo
