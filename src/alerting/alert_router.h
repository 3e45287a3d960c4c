// Decides, after each evaluation, what each receiver must be told. Alertmanager, when configured, is the
// source of truth: it gets every firing and resolved alert, at each change and again every resend interval
// (so it never expires a live alert), and does its own grouping, inhibition and silencing. The webhook gets
// notifications: an alert's firing once, then its resolution; without Alertmanager they pass the agent's
// own routing first (silences and the inhibition table), and an alert muted when it fired is announced once
// the silence ends. The log gets every state change.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "alerting/alert.h"
#include "alerting/delivery_queue.h"
#include "alerting/silences.h"

namespace gpuwatch::alerting {

struct RouterOptions {
  std::chrono::milliseconds resend_interval{std::chrono::minutes(1)};
  std::string generator_url;  // the agent's alerts page, sent as generatorURL
};

class AlertRouter {
 public:
  // alertmanager / webhook: null when not configured. silences: may be null (nothing silenced).
  AlertRouter(RouterOptions options, std::shared_ptr<DeliveryQueue> alertmanager,
              std::shared_ptr<DeliveryQueue> webhook, std::shared_ptr<const SilenceStore> silences);

  // all: every alert after the evaluation; changed: those that fired or resolved at it.
  void route(std::span<const Alert> all, std::span<const Alert> changed, std::int64_t now_ms);

  // Which alerts the webhook was last told about (fingerprint -> firing or resolved), saved with the alerts
  // so that an agent started again does not announce an alert's firing twice; restore() takes them back.
  std::map<std::uint64_t, AlertState> webhook_notified() const { return notified_; }
  void restore_webhook_notified(std::map<std::uint64_t, AlertState> notified) {
    notified_ = std::move(notified);
  }

  // Whether standalone routing mutes this alert now (never with Alertmanager configured).
  bool muted(const Alert& a, std::span<const Alert> all, std::int64_t now_ms) const;

 private:
  void put(DeliveryQueue& queue, const Alert& a, std::int64_t now_ms);

  RouterOptions options_;
  std::shared_ptr<DeliveryQueue> alertmanager_;
  std::shared_ptr<DeliveryQueue> webhook_;
  std::shared_ptr<const SilenceStore> silences_;
  std::map<std::uint64_t, std::int64_t> sent_to_alertmanager_;  // fingerprint -> last send
  std::map<std::uint64_t, AlertState> notified_;                // fingerprint -> last webhook notification
};

}  // namespace gpuwatch::alerting
