// Turns the conditions the detectors report at each evaluation into alerts with a lifecycle (see alert.h).
// Alerts are identified by the fingerprint of their full label set, so the same alertname on the same node
// and GPU (and the same other identifying labels) is one alert however many detectors or evaluations report
// it. Time is whatever the caller passes: the agent passes its injected clock's time (the snapshot's
// timestamp), tests pass what they like, so every transition is deterministic.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "alerting/alert.h"
#include "core/condition.h"

namespace gpuwatch::alerting {

struct AlertEngineOptions {
  std::string hostname;   // the hostname label of every alert
  LabelSet extra_labels;  // added to every alert (service, node, ...); condition labels win on a clash
  std::string runbook_url_prefix;  // runbook_url annotation = prefix + alertname; "" leaves it out
  // How long a resolved alert is kept (and listed, and re-sent) after it resolved; Prometheus keeps 15 min.
  std::chrono::milliseconds resolved_retention{std::chrono::minutes(15)};
  // How long an alert whose condition was last seen holding survives an agent outage (a restart): restored
  // alerts younger than this keep their start, as Prometheus's --rules.alert.for-grace-period (10 min).
  // An event alert (held_until_ms) is restored until its holding time ends, whatever the outage.
  std::chrono::milliseconds restore_grace{std::chrono::minutes(10)};
};

class AlertEngine {
 public:
  explicit AlertEngine(AlertEngineOptions options);

  // One evaluation at now_ms with every condition that holds now. Returns the alerts whose state changed to
  // firing or resolved at this evaluation (what notifiers announce), in fingerprint order. A condition
  // reported twice in one evaluation counts once (the first report's annotations are kept).
  std::vector<Alert> evaluate(std::span<const Condition> conditions, std::int64_t now_ms);

  // Every pending, firing and retained resolved alert, in fingerprint order. Thread-safe.
  std::vector<Alert> alerts() const;

  // Takes back the alerts a previous run saved (alert_state_file.h), before the first evaluation: those still
  // worth keeping at now_ms (see restore_grace; resolved ones within resolved_retention) replace any the
  // engine holds with the same fingerprint. Returns how many were kept.
  std::size_t restore(std::span<const Alert> saved, std::int64_t now_ms);

  // The label set the engine gives an alert for this condition (what its fingerprint is computed from).
  LabelSet labels_for(const Condition& c) const;

 private:
  Alert make_alert(const Condition& c, LabelSet labels, std::int64_t now_ms) const;

  AlertEngineOptions options_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, Alert> alerts_;
};

}  // namespace gpuwatch::alerting
