#include "alerting/alert_engine.h"

#include <set>

namespace gpuwatch::alerting {

std::string_view alert_state_name(AlertState s) {
  switch (s) {
    case AlertState::kPending:
      return "pending";
    case AlertState::kFiring:
      return "firing";
    case AlertState::kResolved:
      return "resolved";
  }
  return "unknown";
}

const std::string& Alert::alertname() const {
  static const std::string kNone;
  const auto it = labels.find("alertname");
  return it == labels.end() ? kNone : it->second;
}

AlertEngine::AlertEngine(AlertEngineOptions options) : options_(std::move(options)) {}

LabelSet AlertEngine::labels_for(const Condition& c) const {
  LabelSet labels = options_.extra_labels;
  if (!options_.hostname.empty()) labels["hostname"] = options_.hostname;
  for (const auto& [name, value] : c.labels) {
    if (!value.empty()) labels[name] = value;  // an empty label is an absent one, as in Prometheus
  }
  labels["alertname"] = c.alertname;
  labels["severity"] = std::string(severity_name(c.severity));
  return labels;
}

Alert AlertEngine::make_alert(const Condition& c, LabelSet labels, std::int64_t now_ms) const {
  Alert a;
  a.fingerprint = fingerprint(labels);
  a.labels = std::move(labels);
  a.annotations = {{"summary", c.summary}, {"description", c.description}, {"action", c.action}};
  if (!options_.runbook_url_prefix.empty())
    a.annotations["runbook_url"] = options_.runbook_url_prefix + c.alertname;
  std::erase_if(a.annotations, [](const auto& kv) { return kv.second.empty(); });
  a.active_at_ms = now_ms;
  a.for_duration = c.for_duration;
  a.held_until_ms = c.holds_until_ms;
  return a;
}

std::vector<Alert> AlertEngine::evaluate(std::span<const Condition> conditions, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  std::vector<Alert> changed;
  std::set<std::uint64_t> held;
  for (const Condition& c : conditions) {
    LabelSet labels = labels_for(c);
    const std::uint64_t fp = fingerprint(labels);
    if (!held.insert(fp).second) continue;  // reported twice this evaluation
    auto it = alerts_.find(fp);
    if (it == alerts_.end() || it->second.state == AlertState::kResolved) {
      // New, or back after a resolution: a new alert with a new start.
      it = alerts_.insert_or_assign(fp, make_alert(c, std::move(labels), now_ms)).first;
    } else {
      // Still holding: the description carries the latest measured values.
      Alert fresh = make_alert(c, std::move(labels), now_ms);
      it->second.annotations = std::move(fresh.annotations);
      it->second.for_duration = c.for_duration;
    }
    Alert& a = it->second;
    a.last_held_ms = now_ms;
    a.held_until_ms = c.holds_until_ms;
    if (a.state == AlertState::kPending && now_ms - a.active_at_ms >= a.for_duration.count()) {
      a.state = AlertState::kFiring;
      a.fired_at_ms = now_ms;
      changed.push_back(a);
    }
  }
  for (auto it = alerts_.begin(); it != alerts_.end();) {
    Alert& a = it->second;
    if (held.count(it->first) == 0) {
      if (a.active() && now_ms <= a.held_until_ms) {
        ++it;  // an event alert in its holding time (restored after a restart that forgot the event)
        continue;
      }
      if (a.state == AlertState::kPending) {
        it = alerts_.erase(it);  // never fired: back to inactive, nothing to announce
        continue;
      }
      if (a.state == AlertState::kFiring) {
        a.state = AlertState::kResolved;
        a.resolved_at_ms = now_ms;
        changed.push_back(a);
      } else if (now_ms - a.resolved_at_ms >= options_.resolved_retention.count()) {
        it = alerts_.erase(it);
        continue;
      }
    }
    ++it;
  }
  std::sort(changed.begin(), changed.end(),
            [](const Alert& x, const Alert& y) { return x.fingerprint < y.fingerprint; });
  return changed;
}

std::size_t AlertEngine::restore(std::span<const Alert> saved, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  std::size_t kept = 0;
  for (const Alert& a : saved) {
    const bool young =
        a.active() ? (now_ms <= a.held_until_ms || now_ms - a.last_held_ms <= options_.restore_grace.count())
                   : now_ms - a.resolved_at_ms < options_.resolved_retention.count();
    if (!young || a.fingerprint != fingerprint(a.labels)) continue;
    alerts_.insert_or_assign(a.fingerprint, a);
    ++kept;
  }
  return kept;
}

std::vector<Alert> AlertEngine::alerts() const {
  std::lock_guard lock(mutex_);
  std::vector<Alert> out;
  out.reserve(alerts_.size());
  for (const auto& [fp, a] : alerts_) out.push_back(a);
  return out;
}

}  // namespace gpuwatch::alerting
