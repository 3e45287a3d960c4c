#include "alerting/alert_state_file.h"

#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "alerting/fingerprint.h"
#include "alerting/json_position.h"
#include "core/json_text.h"

namespace gpuwatch::alerting {
namespace {

constexpr int kVersion = 1;

std::optional<AlertState> state_named(const std::string& name) {
  for (const AlertState s : {AlertState::kPending, AlertState::kFiring, AlertState::kResolved}) {
    if (alert_state_name(s) == name) return s;
  }
  return std::nullopt;
}

nlohmann::json lifecycle_json(const Alert& a, const std::map<std::uint64_t, AlertState>& notified) {
  nlohmann::json j = {{"labels", a.labels},
                      {"state", alert_state_name(a.state)},
                      {"activeAtMs", a.active_at_ms},
                      {"firedAtMs", a.fired_at_ms},
                      {"resolvedAtMs", a.resolved_at_ms},
                      {"heldUntilMs", a.held_until_ms},
                      {"forMs", a.for_duration.count()}};
  if (const auto it = notified.find(a.fingerprint); it != notified.end())
    j["webhookNotified"] = alert_state_name(it->second);
  return j;
}

// Throws std::runtime_error naming the field that is wrong.
Alert parse_alert(const nlohmann::json& j, std::map<std::uint64_t, AlertState>& notified) {
  if (!j.is_object()) throw std::runtime_error("expected an object");
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.contains(name)) throw std::runtime_error(std::string(name) + ": missing");
    return j.at(name);
  };
  const auto ms = [&](const char* name) {
    const auto& v = field(name);
    if (!v.is_number_integer()) throw std::runtime_error(std::string(name) + ": expected an integer");
    return v.get<std::int64_t>();
  };
  const auto labels = [&](const char* name) {
    const auto& v = field(name);
    if (!v.is_object()) throw std::runtime_error(std::string(name) + ": expected an object of strings");
    LabelSet out;
    for (const auto& [k, value] : v.items()) {
      if (!value.is_string()) throw std::runtime_error(std::string(name) + "." + k + ": expected a string");
      out[k] = value.get<std::string>();
    }
    return out;
  };
  const auto state = [&](const char* name) {
    const auto& v = field(name);
    const auto s = v.is_string() ? state_named(v.get<std::string>()) : std::nullopt;
    if (!s) throw std::runtime_error(std::string(name) + ": expected pending, firing or resolved");
    return *s;
  };
  Alert a;
  a.labels = labels("labels");
  if (a.labels.find("alertname") == a.labels.end()) throw std::runtime_error("labels: no alertname");
  a.annotations = labels("annotations");
  a.state = state("state");
  a.fingerprint = fingerprint(a.labels);
  a.active_at_ms = ms("activeAtMs");
  a.fired_at_ms = ms("firedAtMs");
  a.resolved_at_ms = ms("resolvedAtMs");
  a.last_held_ms = ms("lastHeldMs");
  a.held_until_ms = ms("heldUntilMs");
  a.for_duration = std::chrono::milliseconds(ms("forMs"));
  if (j.contains("webhookNotified")) notified[a.fingerprint] = state("webhookNotified");
  return a;
}

}  // namespace

std::string lifecycle_key(const SavedAlerts& state) {
  nlohmann::json list = nlohmann::json::array();
  for (const Alert& a : state.alerts) list.push_back(lifecycle_json(a, state.webhook_notified));
  return to_json_text(list);
}

std::string alert_state_json(const SavedAlerts& state) {
  nlohmann::json list = nlohmann::json::array();
  for (const Alert& a : state.alerts) {
    nlohmann::json j = lifecycle_json(a, state.webhook_notified);
    j["annotations"] = a.annotations;
    j["lastHeldMs"] = a.last_held_ms;
    list.push_back(std::move(j));
  }
  // Labels and annotations quote what GPUs and processes said: made valid UTF-8 before they are written.
  nlohmann::json doc = {{"version", kVersion}, {"savedAtMs", state.saved_at_ms}, {"alerts", std::move(list)}};
  return to_json_text(doc, 1) + "\n";
}

SavedAlerts read_alert_state(const std::string& path, std::string& error) {
  const auto document = read_json_file(path, true, error);
  if (!document) return {};
  const nlohmann::json& doc = *document;
  if (!doc.is_object() || !doc.contains("version") || doc["version"] != kVersion || !doc.contains("alerts") ||
      !doc["alerts"].is_array() || !doc.contains("savedAtMs") || !doc["savedAtMs"].is_number_integer()) {
    error = path + ": expected {\"version\": " + std::to_string(kVersion) +
            ", \"savedAtMs\": ..., \"alerts\": [...]} as gpuwatch writes it";
    return {};
  }
  SavedAlerts out;
  out.saved_at_ms = doc["savedAtMs"].get<std::int64_t>();
  for (std::size_t i = 0; i < doc["alerts"].size(); ++i) {
    try {
      out.alerts.push_back(parse_alert(doc["alerts"][i], out.webhook_notified));
    } catch (const std::runtime_error& e) {
      error = path + ": alert " + std::to_string(i) + ": " + e.what();
      return {};
    }
  }
  return out;
}

}  // namespace gpuwatch::alerting
