#include "alerting/alert_json.h"

#include "core/exposition_escaping.h"
#include "core/rfc3339.h"

namespace gpuwatch::alerting {

nlohmann::json wire_alert(const Alert& a, std::int64_t now_ms, std::chrono::milliseconds valid_for,
                          const std::string& generator_url) {
  const bool resolved = a.state == AlertState::kResolved;
  nlohmann::json j{{"labels", a.labels},
                   {"annotations", a.annotations},
                   {"startsAt", format_rfc3339_ms(a.fired_at_ms ? a.fired_at_ms : a.active_at_ms)},
                   {"endsAt", format_rfc3339_ms(resolved ? a.resolved_at_ms : now_ms + valid_for.count())},
                   {"status", resolved ? "resolved" : "firing"},
                   {"fingerprint", fingerprint_hex(a.fingerprint)}};
  if (!generator_url.empty()) j["generatorURL"] = generator_url;
  return j;
}

nlohmann::json postable_alert(const nlohmann::json& wire) {
  nlohmann::json j = wire;
  j.erase("status");
  j.erase("fingerprint");
  return j;
}

nlohmann::json webhook_message(const std::vector<nlohmann::json>& group, const LabelSet& group_labels,
                               const std::string& receiver, const std::string& external_url) {
  bool any_firing = false;
  LabelSet common_labels, common_annotations;
  for (std::size_t i = 0; i < group.size(); ++i) {
    const auto labels = group[i].at("labels").get<LabelSet>();
    const auto annotations = group[i].at("annotations").get<LabelSet>();
    any_firing = any_firing || group[i].at("status") == "firing";
    if (i == 0) {
      common_labels = labels;
      common_annotations = annotations;
      continue;
    }
    std::erase_if(common_labels, [&](const auto& kv) {
      const auto it = labels.find(kv.first);
      return it == labels.end() || it->second != kv.second;
    });
    std::erase_if(common_annotations, [&](const auto& kv) {
      const auto it = annotations.find(kv.first);
      return it == annotations.end() || it->second != kv.second;
    });
  }
  // Alertmanager's group key spelling: {}:{label="value", ...}
  std::string key = "{}:{";
  for (const auto& [name, value] : group_labels) {
    if (key.back() != '{') key += ", ";
    key += name + "=\"";
    append_escaped_label_value(key, value);
    key += '"';
  }
  key += "}";
  return {{"version", "4"},
          {"groupKey", key},
          {"truncatedAlerts", 0},
          {"status", any_firing ? "firing" : "resolved"},
          {"receiver", receiver},
          {"groupLabels", group_labels},
          {"commonLabels", common_labels},
          {"commonAnnotations", common_annotations},
          {"externalURL", external_url},
          {"alerts", group}};
}

nlohmann::json prometheus_alert(const Alert& a) {
  return {{"labels", a.labels},
          {"annotations", a.annotations},
          {"state", std::string(alert_state_name(a.state))},
          {"activeAt", format_rfc3339_ms(a.active_at_ms)},
          {"value", "1e+00"}};
}

}  // namespace gpuwatch::alerting
