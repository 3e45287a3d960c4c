#include "alerting/alert_metrics.h"

namespace gpuwatch::alerting {
namespace {

Series alert_series(const Alert& a, bool with_state, double value) {
  Series s{{}, value};
  // Label names point into the alert, which outlives the family.
  for (const auto& [name, v] : a.labels) s.labels.emplace_back(name, v);
  if (with_state) s.labels.emplace_back("alertstate", std::string(alert_state_name(a.state)));
  return s;
}

}  // namespace

namespace {

std::vector<Family> families_of(std::span<const Alert> alerts, std::span<const ReceiverCounters> receivers) {
  Family state{"ALERTS", FamilyType::kGauge, "", "Pending and firing alerts of gpuwatch's detectors", {}};
  Family for_state{"ALERTS_FOR_STATE",
                   FamilyType::kGauge,
                   "",
                   "When each pending or firing alert became active, seconds since the epoch",
                   {}};
  for (const Alert& a : alerts) {
    if (!a.active()) continue;
    state.series.push_back(alert_series(a, true, 1));
    for_state.series.push_back(alert_series(a, false, static_cast<double>(a.active_at_ms) / 1000.0));
  }
  Family sent{"gpuwatch_alerts_sent_total",
              FamilyType::kCounter,
              "",
              "Alerts accepted by each receiver (every send and re-send counts)",
              {}};
  Family failed{"gpuwatch_alerts_delivery_failures_total",
                FamilyType::kCounter,
                "",
                "Delivery attempts that failed, per receiver (retried with backoff)",
                {}};
  Family queued{"gpuwatch_alerts_queued",
                FamilyType::kGauge,
                "",
                "Alerts waiting for delivery, per receiver (persisted in the data dir)",
                {}};
  for (const auto& r : receivers) {
    sent.series.push_back(Series{{{"receiver", r.receiver}}, static_cast<double>(r.counters.sent)});
    failed.series.push_back(Series{{{"receiver", r.receiver}}, static_cast<double>(r.counters.failed)});
    queued.series.push_back(Series{{{"receiver", r.receiver}}, static_cast<double>(r.counters.queued)});
  }
  std::vector<Family> out;
  for (Family* f : {&state, &for_state, &sent, &failed, &queued}) out.push_back(std::move(*f));
  return out;
}

}  // namespace

AlertFamilies alert_families(std::vector<Alert> alerts, std::span<const ReceiverCounters> receivers) {
  AlertFamilies out{std::move(alerts), {}};
  out.families = families_of(out.alerts, receivers);  // after the move: the labels point into out.alerts
  return out;
}

void append_alert_metrics(std::string& out, ExpositionFormat format, std::span<const Alert> alerts,
                          std::span<const ReceiverCounters> receivers) {
  for (const auto& f : families_of(alerts, receivers)) append_family(out, f, format);
}

Family silence_family(std::size_t config_errors, std::size_t saved_errors) {
  Family errors{"gpuwatch_silences_load_errors",
                FamilyType::kGauge,
                "",
                "Problems found loading silences at start, per source (config: silences_file; api: the saved "
                "ones); the agent runs without the silences concerned",
                {}};
  errors.series.push_back(Series{{{"source", "config"}}, static_cast<double>(config_errors)});
  errors.series.push_back(Series{{{"source", "api"}}, static_cast<double>(saved_errors)});
  return errors;
}

}  // namespace gpuwatch::alerting
