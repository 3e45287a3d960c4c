// One alert as the engine keeps it: the labels that identify it, the annotations that explain it, and where
// it is in its lifecycle. Times are milliseconds since the Unix epoch on the agent's clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "alerting/fingerprint.h"

namespace gpuwatch::alerting {

// Prometheus's lifecycle: a condition that starts holding makes a pending alert; one that held for its
// for_duration fires; a firing alert whose condition stops holding is resolved (and kept a while so that
// the resolution is delivered). A pending alert whose condition stops holding is dropped (inactive).
enum class AlertState { kPending, kFiring, kResolved };
std::string_view alert_state_name(AlertState s);  // "pending", "firing", "resolved"

struct Alert {
  LabelSet labels;       // the condition's labels + alertname, severity, hostname and the configured extras
  LabelSet annotations;  // summary, description, action, runbook_url
  AlertState state = AlertState::kPending;
  std::uint64_t fingerprint = 0;    // of labels
  std::int64_t active_at_ms = 0;    // when the condition started holding
  std::int64_t fired_at_ms = 0;     // when it fired; 0 while pending
  std::int64_t resolved_at_ms = 0;  // when its condition stopped holding; 0 unless resolved
  std::int64_t last_held_ms = 0;    // the last evaluation at which the condition held
  std::int64_t held_until_ms = 0;   // an event alert stays active until then unreported; 0 = while reported
  std::chrono::milliseconds for_duration{0};

  const std::string& alertname() const;
  bool active() const { return state != AlertState::kResolved; }
};

}  // namespace gpuwatch::alerting
