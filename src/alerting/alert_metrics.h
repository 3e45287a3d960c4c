// The alert families of /metrics: ALERTS{alertname, alertstate, ...} 1 and ALERTS_FOR_STATE{...} (the time
// the alert became active, in seconds) for pending and firing alerts, as Prometheus's rule manager exposes
// them, plus the delivery counters per receiver.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "alerting/alert.h"
#include "alerting/delivery_worker.h"
#include "exposition/exposition.h"

namespace gpuwatch::alerting {

struct ReceiverCounters {
  std::string receiver;
  DeliveryCounters counters;
};

// The alert families with the alerts their series' label names point into: kept together.
struct AlertFamilies {
  std::vector<Alert> alerts;
  std::vector<Family> families;  // ALERTS, ALERTS_FOR_STATE, gpuwatch_alerts_* per receiver
};

AlertFamilies alert_families(std::vector<Alert> alerts, std::span<const ReceiverCounters> receivers);

void append_alert_metrics(std::string& out, ExpositionFormat format, std::span<const Alert> alerts,
                          std::span<const ReceiverCounters> receivers);

// gpuwatch_silences_load_errors{source="config"|"api"}: the problems found in the maintenance-window file and
// in the saved API silences when the agent started (each cost one silence, or the whole file).
Family silence_family(std::size_t config_errors, std::size_t saved_errors);

}  // namespace gpuwatch::alerting
