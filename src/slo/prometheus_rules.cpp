#include "slo/prometheus_rules.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/duration.h"
#include "slo/burn_rules.h"

namespace gpuwatch::slo {
namespace {

std::string op_text(MatchOp op) {
  switch (op) {
    case MatchOp::kEqual:
      return "=";
    case MatchOp::kNotEqual:
      return "!=";
    case MatchOp::kRegexMatch:
      return "=~";
    case MatchOp::kRegexNoMatch:
      return "!~";
  }
  return "=";
}

// A PromQL string literal: double-quoted with the exposition's escapes (\\, \", \n).
std::string quoted(const std::string& v) {
  std::string out = "\"";
  for (const char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string selector_promql(const EventSelector& s) {
  // Names such as vllm:e2e_... are valid metric names (colons are allowed in PromQL names).
  std::string out = s.metric;
  if (!s.matchers.empty()) {
    out += "{";
    for (std::size_t i = 0; i < s.matchers.size(); ++i) {
      if (i) out += ",";
      out += s.matchers[i].name() + op_text(s.matchers[i].op()) + quoted(s.matchers[i].value());
    }
    out += "}";
  }
  return out;
}

std::string slo_id(const SloSpec& s) {
  return s.service + "-" + s.name;
}

std::string slo_labels_matcher(const SloSpec& s) {
  return fmt::format("{{sloth_id={}, sloth_service={}, sloth_slo={}}}", quoted(slo_id(s)), quoted(s.service),
                     quoted(s.name));
}

void labels(YAML::Emitter& out, const SloSpec& s, const std::string& window = "") {
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "sloth_id" << YAML::Value << slo_id(s);
  out << YAML::Key << "sloth_service" << YAML::Value << s.service;
  out << YAML::Key << "sloth_slo" << YAML::Value << s.name;
  if (!window.empty()) out << YAML::Key << "sloth_window" << YAML::Value << window;
  out << YAML::EndMap;
}

void record(YAML::Emitter& out, const std::string& name, const std::string& expr, const SloSpec& s,
            const std::string& window = "") {
  out << YAML::BeginMap << YAML::Key << "record" << YAML::Value << name << YAML::Key << "expr" << YAML::Value
      << expr;
  labels(out, s, window);
  out << YAML::EndMap;
}

}  // namespace

std::string events_promql(const std::vector<EventSelector>& side, const std::string& window) {
  std::string out;
  for (const auto& s : side) {
    if (!out.empty()) out += " + ";
    out += "sum(rate(" + selector_promql(s) + "[" + window + "]))";
  }
  return out;
}

std::string error_ratio_promql(const SloSpec& s, const std::string& window) {
  const std::string ratio =
      "(" + events_promql(s.events, window) + ") / (" + events_promql(s.total, window) + ")";
  return s.kind == EventKind::kGood ? "1 - (" + ratio + ")" : ratio;
}

std::string prometheus_rules_yaml(const std::vector<SloSpec>& slos) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  for (const auto& s : slos) {
    const std::string period = window_name(s.period);
    const std::string m = slo_labels_matcher(s);
    const double budget = 1 - s.objective;
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "sloth-slo-sli-recordings-" + slo_id(s);
    out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
    for (const auto w : slo_windows()) {
      const std::string win = window_name(w);
      record(out, "slo:sli_error:ratio_rate" + win, error_ratio_promql(s, win), s, win);
    }
    record(out, "slo:sli_error:ratio_rate" + period, error_ratio_promql(s, period), s, period);
    out << YAML::EndSeq << YAML::EndMap;

    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "sloth-slo-meta-recordings-" + slo_id(s);
    out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
    record(out, "slo:objective:ratio", fmt::format("vector({})", s.objective), s);
    record(out, "slo:error_budget:ratio", fmt::format("vector(1 - {})", s.objective), s);
    record(out, "slo:time_period:days",
           fmt::format("vector({})", std::chrono::duration<double, std::ratio<86400>>(s.period).count()), s);
    const std::string on = " / on (sloth_id, sloth_slo, sloth_service) group_left ";
    record(out, "slo:current_burn_rate:ratio",
           "slo:sli_error:ratio_rate5m" + m + on + "slo:error_budget:ratio" + m, s);
    record(out, "slo:period_burn_rate:ratio",
           "slo:sli_error:ratio_rate" + period + m + on + "slo:error_budget:ratio" + m, s);
    record(out, "slo:period_error_budget_remaining:ratio", "1 - slo:period_burn_rate:ratio" + m, s);
    record(out, "sloth_slo_info", "vector(1)", s);
    out << YAML::EndSeq << YAML::EndMap;

    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "sloth-slo-alerts-" + slo_id(s);
    out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
    for (const Severity sev : {Severity::kPage, Severity::kTicket}) {
      if (sev == Severity::kPage ? !s.page_enabled : !s.ticket_enabled) continue;
      std::string expr;
      for (const auto& rule : workbook_burn_rules()) {
        if (rule.severity != sev) continue;
        if (!expr.empty()) expr += "\nor\n";
        const auto side = [&](std::chrono::milliseconds w) {
          return fmt::format("max(slo:sli_error:ratio_rate{}{} > ({} * {})) without (sloth_window)",
                             window_name(w), m, rule.factor, budget);
        };
        expr += "(" + side(rule.short_window) + "\nand\n" + side(rule.long_window) + ")";
      }
      out << YAML::BeginMap << YAML::Key << "alert" << YAML::Value << s.alertname;
      out << YAML::Key << "expr" << YAML::Value << YAML::Literal << expr;
      out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "slo" << YAML::Value << s.name << YAML::Key << "service" << YAML::Value
          << s.service;
      out << YAML::Key << "severity" << YAML::Value << std::string(severity_name(sev)) << YAML::EndMap;
      out << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "summary" << YAML::Value
          << fmt::format("SLO {} of {} is burning its error budget", s.name, s.service);
      out << YAML::Key << "runbook_url" << YAML::Value << "docs/runbooks/SloErrorBudgetBurn.md";
      out << YAML::EndMap << YAML::EndMap;
    }
    if (s.ticket_enabled) {
      const auto now = "max(slo:sli_error:ratio_rate5m" + m + ") without (sloth_window)";
      out << YAML::BeginMap << YAML::Key << "alert" << YAML::Value << "SloBurnRateEscalating";
      out << YAML::Key << "expr" << YAML::Value
          << fmt::format("{} > 2 * max(slo:sli_error:ratio_rate1d{}) without (sloth_window)\nand\n{} > {}",
                         now, m, now, budget);
      out << YAML::Key << "for" << YAML::Value << "10m";
      out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "slo" << YAML::Value << s.name << YAML::Key << "service" << YAML::Value
          << s.service;
      out << YAML::Key << "severity" << YAML::Value << "ticket" << YAML::EndMap;
      out << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "summary" << YAML::Value
          << fmt::format("SLO {} of {} burns at over twice its usual rate", s.name, s.service);
      out << YAML::Key << "runbook_url" << YAML::Value << "docs/runbooks/SloBurnRateEscalating.md";
      out << YAML::EndMap << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gpuwatch::slo
