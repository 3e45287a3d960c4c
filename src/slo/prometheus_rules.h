// The same SLOs as Prometheus rules (gpuwatch rules slo), with Sloth's names so Sloth's dashboards work:
// recording rules slo:sli_error:ratio_rate<window> for 5m, 30m, 1h, 2h, 6h, 1d, 3d and the period,
// slo:objective:ratio, slo:error_budget:ratio, slo:time_period:days, slo:current_burn_rate:ratio,
// slo:period_burn_rate:ratio, slo:period_error_budget_remaining:ratio and sloth_slo_info, labelled sloth_id,
// sloth_service, sloth_slo (and sloth_window); and the workbook's alerts with the agent's labels slo,
// service, severity. One difference from Sloth, so that the rules agree with the agent: the period's error
// ratio is the ratio of the events over the period (as the agent counts it), not Sloth's mean of 5m ratios.
#pragma once

#include <string>
#include <vector>

#include "slo/slo_spec.h"

namespace gpuwatch::slo {

// A rule file (groups:) for promtool check rules and Prometheus's rule_files.
std::string prometheus_rules_yaml(const std::vector<SloSpec>& slos);

// sum(rate(<selector>[window])) + ..., the PromQL of one side of the SLI over a window ("5m", "30d").
std::string events_promql(const std::vector<EventSelector>& side, const std::string& window);

// The error ratio over a window as PromQL (bad / total, or 1 - good / total).
std::string error_ratio_promql(const SloSpec& slo, const std::string& window);

}  // namespace gpuwatch::slo
