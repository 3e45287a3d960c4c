#include <array>
#include <cctype>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "config/agent_options.h"
#include "config/option_kinds.h"
#include "config/tunable_options.h"
#include "config/workload_options.h"
#include "core/utf8.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;

using Apply = std::function<std::optional<std::string>(AgentOptions&, std::string_view)>;
using Show = std::function<std::string(const AgentOptions&)>;

Apply string_setter(std::string AgentOptions::*field) {
  return [field](AgentOptions& o, std::string_view v) -> std::optional<std::string> {
    o.*field = std::string(v);
    return std::nullopt;
  };
}
Show string_getter(std::string AgentOptions::*field) {
  return [field](const AgentOptions& o) { return o.*field; };
}

std::optional<std::string> apply_naming(AgentOptions& o, std::string_view v) {
  if (v == "native")
    o.naming = MetricNaming::kNative;
  else if (v == "dcgm")
    o.naming = MetricNaming::kDcgm;
  else
    return "expected native or dcgm";
  return std::nullopt;
}

std::optional<std::string> apply_hostname_label(AgentOptions& o, std::string_view v) {
  if (v != "Hostname" && v != "hostname") return "expected Hostname (dcgm-exporter 3.x) or hostname (4.x)";
  o.dcgm_hostname_label = std::string(v);
  return std::nullopt;
}

std::optional<std::string> apply_listen(AgentOptions& o, std::string_view v) {
  const auto colon = v.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == v.size())
    return "expected HOST:PORT, e.g. 0.0.0.0:19400 or [::1]:19400";
  const std::string port(v.substr(colon + 1));
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535)
    return "the port must be a number from 0 to 65535";
  o.listen = std::string(v);
  return std::nullopt;
}

std::optional<std::string> apply_log_level(AgentOptions& o, std::string_view v) {
  static constexpr std::array kLevels = {"debug", "info", "warn", "error"};
  for (const char* level : kLevels) {
    if (v == level) {
      o.log_level = std::string(v);
      return std::nullopt;
    }
  }
  return "expected debug, info, warn or error";
}

std::optional<std::string> apply_store(AgentOptions& o, std::string_view v) {
  if (v == "on" || v == "true") {
    o.store = true;
  } else if (v == "off" || v == "false") {
    o.store = false;
  } else {
    return "expected on or off";
  }
  return std::nullopt;
}

std::optional<std::string> check_url(std::string_view v) {
  if (!v.empty() && v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0) {
    return "expected an http:// or https:// URL, e.g. http://127.0.0.1:9093";
  }
  return std::nullopt;
}

Apply url_setter(std::string AgentOptions::*field) {
  return [field](AgentOptions& o, std::string_view v) -> std::optional<std::string> {
    if (auto error = check_url(v)) return error;
    o.*field = std::string(v);
    while (!(o.*field).empty() && (o.*field).back() == '/') (o.*field).pop_back();
    return std::nullopt;
  };
}

// The longest name DNS allows; the hostname is a label of every series and alert.
constexpr std::size_t kMaxHostnameBytes = 253;

std::optional<std::string> apply_hostname(AgentOptions& o, std::string_view v) {
  o.hostname = to_valid_utf8(v, kMaxHostnameBytes);
  return std::nullopt;
}

std::optional<std::string> apply_alert_labels(AgentOptions& o, std::string_view v) {
  // Every alert carries them: an invalid one would make each delivery fail.
  if (!is_valid_utf8(v)) return "label values must be valid UTF-8";
  std::string_view rest = v;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0) return "expected name=value pairs separated by commas";
    for (char c : pair.substr(0, eq)) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return "label names are [a-zA-Z0-9_]";
    }
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  o.alert_labels = std::string(v);
  return std::nullopt;
}

// A list of URLs: the flag repeated (the command line hands them over one a line) or separated by commas.
std::optional<std::string> apply_remote_write_urls(AgentOptions& o, std::string_view v) {
  std::vector<std::string> urls;
  std::string_view rest = v;
  while (!rest.empty()) {
    const auto end = rest.find_first_of(",\n");
    std::string url(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (url.empty()) continue;
    if (auto error = check_url(url)) return error;
    urls.push_back(std::move(url));
  }
  o.remote_write_urls = std::move(urls);
  return std::nullopt;
}

std::string show_remote_write_urls(const AgentOptions& o) {
  std::string out;
  for (const auto& url : o.remote_write_urls) out += (out.empty() ? "" : ",") + url;
  return out;
}

// Beside the agent: what one reading of the GPUs (`status`) uses, and what every command that opens the NVML
// library takes.
constexpr OptionCommands kReading = kAgentCommand | kStatusCommand | kTopCommand;
constexpr OptionCommands kEveryCommand = kReading | kSimProcTreeCommand | kSimSysfsTreeCommand;

std::vector<OptionSpec> make_table() {
  std::vector<OptionSpec> table = {{
      {"listen", "ADDR:PORT", "Address to serve /metrics and the API on", false, apply_listen,
       string_getter(&AgentOptions::listen)},
      duration_option({"interval", "Sampling interval (10ms and up); top's redraw interval", true,
                       kAgentCommand | kTopCommand},
                      &AgentOptions::interval, {.min = 10ms, .example = "1s"}),
      duration_option(
          {"deadline",
           "Per-GPU read deadline; a GPU that misses it is marked stale (default 80% of interval)", true,
           kReading},
          &AgentOptions::deadline, {.min = 1ms, .example = "800ms"}, effective_deadline),
      {"nvml_library", "PATH", "NVML library to load (default libnvidia-ml.so.1; env GPUWATCH_NVML_LIB)",
       false, string_setter(&AgentOptions::nvml_library), string_getter(&AgentOptions::nvml_library),
       kEveryCommand},
      {"naming", "native|dcgm", "Metric names on /metrics: gpuwatch's own, or dcgm-exporter's", true,
       apply_naming,
       [](const AgentOptions& o) {
         return std::string(o.naming == MetricNaming::kDcgm ? "dcgm" : "native");
       }},
      {"dcgm_hostname_label", "Hostname|hostname", "Spelling of the hostname label in dcgm naming", false,
       apply_hostname_label, string_getter(&AgentOptions::dcgm_hostname_label)},
      {"proc_root", "DIR", "Where to read /proc from (process names, attribution)", false,
       string_setter(&AgentOptions::proc_root), string_getter(&AgentOptions::proc_root),
       kReading | kSimProcTreeCommand},
      {"sysfs_root", "DIR", "Where to read /sys from", false, string_setter(&AgentOptions::sysfs_root),
       string_getter(&AgentOptions::sysfs_root), kReading | kSimSysfsTreeCommand},
      {"kmsg", "PATH",
       "Kernel log to read XIDs (with pid and process), PCIe AER and driver messages from; \"\" = off", false,
       string_setter(&AgentOptions::kmsg), string_getter(&AgentOptions::kmsg), kReading},
      {"hostname", "NAME", "Hostname to report (default: this machine's; cut to 253 bytes)", true,
       apply_hostname, string_getter(&AgentOptions::hostname), kReading},
      {"sim_scenario", "FILE", "Run on the bundled NVML simulator with this scenario", false,
       string_setter(&AgentOptions::sim_scenario), string_getter(&AgentOptions::sim_scenario), kEveryCommand},
      {"log_level", "LEVEL", "debug, info, warn or error", true, apply_log_level,
       string_getter(&AgentOptions::log_level)},
      {"store", "on|off", "Keep history (the store) in --data-dir", false, apply_store,
       [](const AgentOptions& o) { return std::string(o.store ? "on" : "off"); }},
      {"data_dir", "DIR", "Where the agent keeps its state: history, alert delivery queue, silences", false,
       string_setter(&AgentOptions::data_dir), string_getter(&AgentOptions::data_dir)},
      duration_option(
          {"store_sync_interval",
           "How often the store's write-ahead log is synced; a crash loses at most this plus one sync"},
          &AgentOptions::store_sync_interval, {.min = 10ms, .max = 60s, .example = "2s"}),
      duration_option({"retention_time", "History older than this is dropped (whole blocks)"},
                      &AgentOptions::retention_time, {.min = 1h, .example = "30d"}),
      size_option({"retention_size", "History is dropped, oldest first, to stay under this size (e.g. 1GiB)"},
                  &AgentOptions::retention_size, {.min = 1 << 20, .example = "1GiB"}),
      size_option({"store_cache_size",
                   "History blocks kept decoded in memory for queries that read them again (part of the "
                   "agent's RSS); 0 = none"},
                  &AgentOptions::store_cache_size, {.min = 0, .example = "64MiB"}),
      count_option(
          {"store_max_process_series",
           "Per-process series kept in history; beyond it processes are summed per GPU (pid=\"other\")"},
          &AgentOptions::store_max_process_series, {.max = 999'999'999, .what = "series", .example = "2000"}),
      duration_option({"query_timeout",
                       "A query still evaluating after this fails with a timeout (HTTP 503), as Prometheus's "
                       "--query.timeout"},
                      &AgentOptions::query_timeout, {.min = 10ms, .example = "2m"}),
      count_option(
          {"query_max_samples",
           "A query that would load more samples fails (HTTP 422), as Prometheus's --query.max-samples"},
          &AgentOptions::query_max_samples,
          {.min = 1, .max = 999'999'999'999, .what = "samples", .example = "50000000"}),
      duration_option({"downsample_after",
                       "History older than this keeps one sample a minute plus :1m_min/max/avg/count series"},
                      &AgentOptions::downsample_after, {.min = 1h, .example = "48h", .off = "off"}),
      {"alertmanager_url", "URL",
       "Alertmanager to send every alert to (it then groups, inhibits and silences); e.g. http://am:9093",
       false, url_setter(&AgentOptions::alertmanager_url), string_getter(&AgentOptions::alertmanager_url),
       kAgentCommand, true},
      {"alert_webhook_url", "URL", "Webhook to notify in Alertmanager's webhook format (version 4)", false,
       url_setter(&AgentOptions::alert_webhook_url), string_getter(&AgentOptions::alert_webhook_url),
       kAgentCommand, true},
      {"alert_tls_ca_file", "FILE",
       "CA certificate (PEM) that https:// Alertmanager and webhook URLs are checked against (default: the "
       "system's)",
       false, string_setter(&AgentOptions::alert_tls_ca_file),
       string_getter(&AgentOptions::alert_tls_ca_file)},
      {"remote_write_url", "URL",
       "Prometheus remote-write receiver to send every stored sample to, through a disk queue (repeatable; "
       "the remote_write: list of the config file takes headers, credentials, TLS and filters)",
       false, apply_remote_write_urls, show_remote_write_urls, kAgentCommand, true},
      duration_option({"alert_resend_interval", "How often firing alerts are sent again to Alertmanager"},
                      &AgentOptions::alert_resend_interval, {.min = 1s, .example = "1m"}),
      {"alert_labels", "NAME=VALUE,...", "Labels added to every alert, e.g. service=training,cluster=west",
       false, apply_alert_labels, string_getter(&AgentOptions::alert_labels)},
      {"api_token_file", "FILE",
       "File holding the bearer token that allows changing silences through the API", false,
       string_setter(&AgentOptions::api_token_file), string_getter(&AgentOptions::api_token_file)},
      {"web_config_file", "FILE",
       "The listener's TLS, client certificates and basic-auth users, in the web configuration file format "
       "Prometheus and its exporters share (exporter-toolkit: tls_server_config, basic_auth_users)",
       false, string_setter(&AgentOptions::web_config_file), string_getter(&AgentOptions::web_config_file)},
      {"silences_file", "FILE", "Maintenance windows: silences in Alertmanager's JSON form, one list", false,
       string_setter(&AgentOptions::silences_file), string_getter(&AgentOptions::silences_file)},
      {"external_url", "URL",
       "How users reach this agent, for alert links (default: the listen address with the bound port; "
       "HOSTNAME for 0.0.0.0 or [::])",
       false, url_setter(&AgentOptions::external_url), string_getter(&AgentOptions::external_url)},
      {"runbook_dir", "DIR",
       "Folder of <alertname>.md files served at /runbooks/<alertname> before the built-in runbooks", false,
       string_setter(&AgentOptions::runbook_dir), string_getter(&AgentOptions::runbook_dir)},
      {"slo_files", "FILE,...",
       "Sloth (prometheus/v1) or OpenSLO (openslo/v1) files of SLOs over the scraped services (docs/slo.md)",
       false, string_setter(&AgentOptions::slo_files), string_getter(&AgentOptions::slo_files)},
      // The HTTP server's deadlines and limits: what one client can make the server wait for or hold.
      duration_option({"http_header_timeout",
                       "A connection whose request line and headers take longer (from accept) is closed"},
                      &AgentOptions::http_header_timeout, {.min = 100ms, .example = "10s"}),
      duration_option(
          {"http_body_timeout", "A connection whose request body takes longer (after the headers) is closed"},
          &AgentOptions::http_body_timeout, {.min = 100ms, .example = "30s"}),
      // The server's library counts idle time in whole seconds.
      duration_option(
          {"http_idle_timeout", "A kept-alive connection with no request for this long is closed"},
          &AgentOptions::http_idle_timeout, {.min = 1s, .example = "1m"}),
      count_option({"http_max_connections", "Open client connections in all; more are closed at accept"},
                   &AgentOptions::http_max_connections,
                   {.min = 1, .max = 1'000'000, .what = "connections", .example = "512"}),
      count_option(
          {"http_max_connections_per_client",
           "Open connections from one client address; more are closed at accept (a proxy counts as one)"},
          &AgentOptions::http_max_connections_per_client,
          {.min = 1, .max = 1'000'000, .what = "connections", .example = "256"}),
      size_option({"http_max_reply_size", "An API reply (a query result) larger than this is answered 422"},
                  &AgentOptions::http_max_reply_size, {.min = 1 << 10, .example = "64MiB"}),
      count_option(
          {"http_workers", "Threads that answer the APIs (queries, alerts); scrapes never wait for them"},
          &AgentOptions::http_workers, {.min = 1, .max = 256, .what = "threads", .example = "4"}),
      count_option({"http_queue", "API requests that may wait for a worker; more are answered 503 at once"},
                   &AgentOptions::http_queue, {.max = 100'000, .what = "requests", .example = "16"}),
  }};
  for (auto& spec : workload_options()) table.push_back(std::move(spec));
  for (auto& spec : tunable_options()) table.push_back(std::move(spec));
  return table;
}

const std::vector<OptionSpec>& table() {
  static const std::vector<OptionSpec> kTable = make_table();
  return kTable;
}

}  // namespace

std::span<const OptionSpec> option_table() {
  return table();
}

const OptionSpec* find_option(std::string_view key) {
  for (const auto& spec : table()) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

std::string option_command_names(OptionCommands commands) {
  static constexpr std::pair<OptionCommand, std::string_view> kNames[] = {
      {kAgentCommand, "agent"},
      {kStatusCommand, "status"},
      {kTopCommand, "top"},
      {kSimProcTreeCommand, "sim proc-tree"},
      {kSimSysfsTreeCommand, "sim sysfs-tree"},
  };
  std::string names;
  for (const auto& [command, name] : kNames) {
    if ((commands & command) == 0) continue;
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

std::string flag_name(std::string_view key) {
  std::string flag(key);
  for (char& c : flag) {
    if (c == '_') c = '-';
  }
  return flag;
}

std::chrono::milliseconds effective_deadline(const AgentOptions& options) {
  if (options.deadline) return *options.deadline;
  return std::max(std::chrono::milliseconds(50), options.interval * 8 / 10);
}

}  // namespace gpuwatch

namespace gpuwatch {

std::vector<RemoteWriteTarget> remote_write_targets(const AgentOptions& options) {
  std::vector<RemoteWriteTarget> targets = options.remote_write;
  for (const auto& url : options.remote_write_urls) {
    RemoteWriteTarget t;
    t.url = url;
    t.name = default_remote_write_name(url);
    targets.push_back(std::move(t));
  }
  return targets;
}

}  // namespace gpuwatch
