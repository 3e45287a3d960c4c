#include "agent/alerting_setup.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "agent/source_alerts.h"
#include "alerting/silences_file.h"
#include "core/file_io.h"
#include "detect/detector_table.h"

namespace gpuwatch {
namespace {

bool read_file(const std::string& path, std::string& text, std::string& error) {
  auto read = gpuwatch::read_file(path, &error);
  if (!read) return false;
  text = std::move(*read);
  return true;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  const auto start = s.find_first_not_of(" \t\r\n");
  return start == std::string::npos ? "" : s.substr(start);
}

// /api/v1/rules: a group per detector with the alerts it raises, and the agent's own source alerts.
std::vector<alerting::RuleGroup> rule_groups() {
  std::vector<alerting::RuleGroup> groups;
  for (const auto& row : detect::detector_table()) {
    groups.push_back({std::string(row.name), detect::alertnames_of(row)});
  }
  alerting::RuleGroup agent{"agent", {}};
  for (auto name : kSourceAlertNames) agent.alertnames.emplace_back(name);
  groups.push_back(std::move(agent));
  return groups;
}

}  // namespace

std::string read_api_token(const std::string& path, std::string& error) {
  std::string text;
  if (!read_file(path, text, error)) return "";
  text = trimmed(text);
  if (text.empty()) error = path + ": the token file is empty";
  return text;
}

std::unique_ptr<alerting::AlertingService> make_alerting(const AgentOptions& options,
                                                         const std::string& external_url,
                                                         std::function<std::int64_t()> now,
                                                         std::string& error) {
  alerting::AlertingOptions a;
  a.engine.hostname = options.hostname;
  for (std::string_view rest = options.alert_labels; !rest.empty();) {
    const auto comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    const auto eq = pair.find('=');
    a.engine.extra_labels[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  a.external_url = external_url;
  a.engine.runbook_url_prefix = a.external_url + "/runbooks/";
  a.alertmanager_url = options.alertmanager_url;
  a.webhook_url = options.alert_webhook_url;
  a.tls_ca_file = options.alert_tls_ca_file;
  a.data_dir = options.data_dir;
  a.runbook_dir = options.runbook_dir;
  a.resend_interval = options.alert_resend_interval;
  a.rule_groups = rule_groups();
  a.evaluation_interval = options.interval;
  if (!options.api_token_file.empty()) {
    a.api_token = read_api_token(options.api_token_file, a.api_token_error);
    if (a.api_token.empty()) spdlog::error("alerting: {}; silences cannot be changed", a.api_token_error);
  }
  if (!options.silences_file.empty()) {
    auto windows = alerting::read_silences_file(options.silences_file, false);
    for (const auto& e : windows.errors) spdlog::error("alerting: {}; starting without it", e);
    a.config_silences = std::move(windows.silences);
    a.config_silence_errors = windows.errors.size();
  }
  try {
    return std::make_unique<alerting::AlertingService>(std::move(a), std::move(now));
  } catch (const std::exception& e) {
    error = e.what();
    return nullptr;
  }
}

}  // namespace gpuwatch
