// Inhibition for standalone routing: while a source alert fires, the other alerts that share its `equal`
// labels are consequences, not news, and their notifications are muted. The same table generates the
// inhibit_rules for Alertmanager's config when Alertmanager does the routing (`gpuwatch alerts
// inhibit-rules`), so both routings agree.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alerting/alert.h"

namespace gpuwatch::alerting {

struct InhibitRule {
  std::string_view source_alertname;    // a firing alert of this name ...
  std::vector<std::string_view> equal;  // ... mutes every other alert with these labels equal
  std::string_view why;
};

std::span<const InhibitRule> inhibit_rules();

// True when a firing alert in `alerts` inhibits `target` under the table.
bool inhibited(const Alert& target, std::span<const Alert> alerts);

// Alertmanager's inhibit_rules section for the table, as YAML.
std::string alertmanager_inhibit_rules_yaml();

}  // namespace gpuwatch::alerting
