#include "agent/alerting_setup.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace gpuwatch {
namespace {

bool read_file(const std::string& path, std::string& text, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot read";
    return false;
  }
  std::stringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  const auto start = s.find_first_not_of(" \t\r\n");
  return start == std::string::npos ? "" : s.substr(start);
}

bool load_windows(const std::string& path, std::vector<alerting::Silence>& out, std::string& error) {
  std::string text;
  if (!read_file(path, text, error)) return false;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) {
    error = path + ": expected a JSON list of silences [{matchers, startsAt, endsAt, comment}, ...]";
    return false;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    std::string why;
    auto s = alerting::parse_silence(j[i], why);
    if (!s) {
      error = path + ": silence " + std::to_string(i) + ": " + why;
      return false;
    }
    out.push_back(std::move(*s));
  }
  return true;
}

std::string machine_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

std::unique_ptr<alerting::AlertingService> make_alerting(const AgentOptions& options,
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
  a.external_url = options.external_url;
  if (a.external_url.empty()) {
    const std::string host = options.hostname.empty() ? machine_hostname() : options.hostname;
    a.external_url = "http://" + host + ":" + options.listen.substr(options.listen.rfind(':') + 1);
  }
  a.engine.runbook_url_prefix = a.external_url + "/runbooks/";
  a.alertmanager_url = options.alertmanager_url;
  a.webhook_url = options.alert_webhook_url;
  a.data_dir = options.data_dir;
  a.runbook_dir = options.runbook_dir;
  a.resend_interval = options.alert_resend_interval;
  if (!options.api_token_file.empty()) {
    if (!read_file(options.api_token_file, a.api_token, error)) return nullptr;
    a.api_token = trimmed(a.api_token);
    if (a.api_token.empty()) {
      error = options.api_token_file + ": the token file is empty";
      return nullptr;
    }
  }
  if (!options.silences_file.empty() && !load_windows(options.silences_file, a.config_silences, error)) {
    return nullptr;
  }
  try {
    return std::make_unique<alerting::AlertingService>(std::move(a), std::move(now));
  } catch (const std::exception& e) {
    error = e.what();
    return nullptr;
  }
}

}  // namespace gpuwatch
