// The JSON shapes alerts travel in: the "wire" form kept in the delivery queue (Alertmanager's alert plus
// status and fingerprint), Alertmanager's API v2 postable alert, its webhook v4 message, and the entry of
// Prometheus's GET /api/v1/alerts.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alerting/alert.h"

namespace gpuwatch::alerting {

// {labels, annotations, startsAt, endsAt, generatorURL, status, fingerprint}. A firing alert's endsAt is
// now + valid_for: if the agent falls silent, Alertmanager resolves it by itself when that passes (as
// Prometheus does with 4 x its resend interval). A resolved alert's endsAt is when it resolved.
nlohmann::json wire_alert(const Alert& a, std::int64_t now_ms, std::chrono::milliseconds valid_for,
                          const std::string& generator_url);

// Alertmanager's postable alert: the wire form without status and fingerprint.
nlohmann::json postable_alert(const nlohmann::json& wire);

// A webhook v4 message for one group of wire alerts (as Alertmanager's webhook receiver sends them).
nlohmann::json webhook_message(const std::vector<nlohmann::json>& group, const LabelSet& group_labels,
                               const std::string& receiver, const std::string& external_url);

// One entry of Prometheus's /api/v1/alerts: {labels, annotations, state, activeAt, value}.
nlohmann::json prometheus_alert(const Alert& a);

}  // namespace gpuwatch::alerting
