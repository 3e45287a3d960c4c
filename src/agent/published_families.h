// What the agent serves on /metrics in native naming and keeps in its history, from one place: the
// snapshot's families (native_families: the catalogue, identities, host readings) and, beside them, what the
// agent's parts publish: alerts (ALERTS, ALERTS_FOR_STATE, deliveries), the store's health and the sinks'.
// /metrics renders families() after the snapshot's; the history sink appends them with each snapshot. So
// what is served is stored, less the few families kNotStoredFamilies names.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "alerting/alerting_service.h"
#include "exposition/exposition.h"
#include "store/retrying_history.h"

namespace gpuwatch {

class SinkSet;

struct PublishedFamilies {
  std::vector<alerting::Alert> alerts;  // the ALERTS series' label names point into these
  std::vector<Family> families;         // alerts', the sinks', the store's
};

class PublishedState {
 public:
  PublishedState(std::shared_ptr<alerting::AlertingService> alerts,
                 std::shared_ptr<store::RetryingHistory> history)
      : alerts_(std::move(alerts)), history_(std::move(history)) {}
  // The sinks are made after this (the history sink uses it): held weakly, as they hold it.
  void set_sinks(const std::shared_ptr<SinkSet>& sinks);
  // The HTTP server's own families (it renders them on /metrics itself, live): stored, not appended.
  void set_server_families(std::function<std::vector<Family>()> server_families);
  // Accounting's counters: served on /metrics, but stored by the accounting sink itself at its snapshots'
  // times (agent/accounting_sink.h), so not in stored_families().
  void set_accounting(std::function<std::vector<Family>()> accounting_families);
  PublishedFamilies families() const;                            // thread-safe
  PublishedFamilies stored_families() const;                     // families() and the server's; thread-safe
  void append(std::string& out, ExpositionFormat format) const;  // for /metrics

 private:
  std::shared_ptr<alerting::AlertingService> alerts_;
  std::shared_ptr<store::RetryingHistory> history_;  // null without history
  mutable std::mutex mu_;
  std::weak_ptr<SinkSet> sinks_;
  std::function<std::vector<Family>()> server_families_;
  std::function<std::vector<Family>()> accounting_families_;
};

}  // namespace gpuwatch
