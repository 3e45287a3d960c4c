#include "alerting/alert_router.h"

#include <spdlog/spdlog.h>

#include <set>

#include "alerting/alert_json.h"
#include "alerting/inhibition.h"

namespace gpuwatch::alerting {

AlertRouter::AlertRouter(RouterOptions options, std::shared_ptr<DeliveryQueue> alertmanager,
                         std::shared_ptr<DeliveryQueue> webhook, std::shared_ptr<const SilenceStore> silences)
    : options_(std::move(options)),
      alertmanager_(std::move(alertmanager)),
      webhook_(std::move(webhook)),
      silences_(std::move(silences)) {}

bool AlertRouter::muted(const Alert& a, std::span<const Alert> all, std::int64_t now_ms) const {
  if (alertmanager_) return false;
  return (silences_ && silences_->silenced(a.labels, now_ms)) || inhibited(a, all);
}

void AlertRouter::put(DeliveryQueue& queue, const Alert& a, std::int64_t now_ms) {
  // Alertmanager drops a firing alert whose endsAt passed: 4 resend intervals, as Prometheus does, so a
  // few lost sends do not resolve it while an agent that fell silent has it resolved soon.
  const auto error = queue.put(wire_alert(a, now_ms, 4 * options_.resend_interval, options_.generator_url));
  if (!error.empty()) spdlog::error("alerts: cannot persist a queued alert: {}", error);
}

void AlertRouter::route(std::span<const Alert> all, std::span<const Alert> changed, std::int64_t now_ms) {
  std::set<std::uint64_t> changed_now;
  for (const Alert& a : changed) {
    changed_now.insert(a.fingerprint);
    const bool quiet = muted(a, all, now_ms);
    spdlog::log(a.state == AlertState::kFiring ? spdlog::level::warn : spdlog::level::info,
                "alert {} {} {}{}: {}", a.alertname(), alert_state_name(a.state),
                fingerprint_hex(a.fingerprint), quiet ? " (muted by a silence or inhibition)" : "",
                a.annotations.count("summary") ? a.annotations.at("summary") : "");
  }
  std::set<std::uint64_t> present;
  for (const Alert& a : all) {
    if (a.state == AlertState::kPending) continue;
    present.insert(a.fingerprint);
    if (alertmanager_) {
      auto [it, fresh] = sent_to_alertmanager_.try_emplace(a.fingerprint, now_ms);
      if (fresh || changed_now.count(a.fingerprint) ||
          now_ms - it->second >= options_.resend_interval.count()) {
        put(*alertmanager_, a, now_ms);
        it->second = now_ms;
      }
    }
    if (webhook_) {
      const auto it = notified_.find(a.fingerprint);
      const bool told_firing = it != notified_.end() && it->second == AlertState::kFiring;
      if (a.state == AlertState::kFiring && !told_firing && !muted(a, all, now_ms)) {
        put(*webhook_, a, now_ms);
        notified_[a.fingerprint] = AlertState::kFiring;
      } else if (a.state == AlertState::kResolved && told_firing) {
        put(*webhook_, a, now_ms);
        notified_[a.fingerprint] = AlertState::kResolved;
      }
    }
  }
  std::erase_if(sent_to_alertmanager_, [&](const auto& kv) { return present.count(kv.first) == 0; });
  std::erase_if(notified_, [&](const auto& kv) { return present.count(kv.first) == 0; });
}

}  // namespace gpuwatch::alerting
