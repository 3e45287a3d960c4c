// Everything a user can set for the agent, `status` and the simulator's tree writers. One table
// (options_table.cpp) defines each setting once: its config-file key, its command-line flag (the key with '-'
// for '_'), its help, its parser and the commands that take it, so every flag has a config key, both are
// validated the same way, and each command offers the settings it uses and no others.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <vector>

#include "config/accounting_settings.h"
#include "config/remote_write_target.h"
#include "config/scrape_config.h"
#include "core/metric_naming.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

// Where the agent keeps its history; `query` and `store check` read there unless told otherwise.
inline constexpr std::string_view kDefaultDataDir = "/var/lib/gpuwatch";

struct AgentOptions {
  std::string listen = "0.0.0.0:19400";  // 19400: clear of dcgm-exporter (9400) and node_exporter (9100)
  std::chrono::milliseconds interval{1000};
  std::optional<std::chrono::milliseconds> deadline;  // per-GPU read deadline; default derived from interval
  std::string nvml_library;                           // "" = search libnvidia-ml.so.1, then libnvidia-ml.so
  MetricNaming naming = MetricNaming::kNative;
  std::string dcgm_hostname_label = "Hostname";  // dcgm-exporter's newest release says "hostname"
  std::string proc_root = "/proc";
  std::string sysfs_root = "/sys";
  std::string kmsg = "/dev/kmsg";  // kernel log for XIDs with pid/process, AER and driver messages; "" = off
  std::string hostname;            // "" = the machine's hostname
  std::string sim_scenario;        // runs on libnvml-sim with this scenario (sets GPUWATCH_SIM_SCENARIO)
  std::string log_level = "info";
  // History store (docs/store-format.md).
  bool store = true;
  std::string data_dir{kDefaultDataDir};
  std::chrono::milliseconds store_sync_interval{2000};  // bounds the loss window: at most this plus one sync
  std::chrono::milliseconds retention_time{30LL * 24 * 3600 * 1000};
  std::uint64_t retention_size = std::uint64_t{1} << 30;
  std::uint64_t store_cache_size = std::uint64_t{64} << 20;  // decoded blocks kept for queries; 0 = none
  std::size_t store_max_process_series = 2000;
  std::chrono::milliseconds downsample_after{48LL * 3600 * 1000};  // 0: keep every sample
  // The query API's limits (docs/query.md), as Prometheus's --query.timeout and --query.max-samples.
  std::chrono::milliseconds query_timeout{2 * 60 * 1000};
  std::size_t query_max_samples = 50'000'000;
  // Alerting (docs/alerting.md).
  std::string alertmanager_url;
  std::string alert_webhook_url;
  std::string alert_tls_ca_file;  // CA of https:// Alertmanager and webhook URLs; "" = the system's
  std::chrono::milliseconds alert_resend_interval{60'000};
  std::string alert_labels;  // "service=training,cluster=a": labels added to every alert
  std::string api_token_file;
  std::string web_config_file;  // exporter-toolkit web configuration: TLS, mutual TLS, basic auth
  std::string silences_file;    // maintenance windows
  std::string external_url;     // how users reach the agent; "" = default_external_url(listen, hostname)
  std::string runbook_dir;      // "" = only the runbooks built into the binary
  std::string slo_files;        // Sloth or OpenSLO files, comma-separated (docs/slo.md); "" = no SLOs
  // Remote write (docs/remote-write.md): receivers by URL alone (--remote-write-url, repeatable) and, with
  // every setting, the remote_write: list of gpuwatch.yaml. remote_write_targets() gives both.
  std::vector<std::string> remote_write_urls;
  std::vector<RemoteWriteTarget> remote_write;
  // The HTTP server's deadlines and limits (docs/http-server.md), with HttpServerOptions' defaults.
  std::chrono::milliseconds http_header_timeout{10'000};
  std::chrono::milliseconds http_body_timeout{30'000};
  std::chrono::milliseconds http_idle_timeout{60'000};
  std::size_t http_max_connections = 512;
  std::size_t http_max_connections_per_client = 256;
  std::uint64_t http_max_reply_size = std::uint64_t{64} << 20;
  std::size_t http_workers = 4;
  std::size_t http_queue = 16;
  // Workload names (docs/cost.md): the kubelet's PodResources socket and dcgm-exporter's job-mapping
  // directory; "" = not read.
  std::string pod_resources_socket;
  std::string hpc_job_mapping_dir;
  // Accounting and cost (docs/cost.md).
  AccountingSettings accounting;
  std::size_t accounting_max_workloads = 500;  // beyond it, new workloads are summed as "other"
  std::chrono::milliseconds accounting_workload_expiry{24LL * 3600 * 1000};
  // Every detector's tunables (detect.<detector>.<tunable>); the health verdict reads the same.
  rules::DetectorSettings detectors;
  // The services' /metrics the agent scrapes (the `scrape:` section; docs/scraping.md).
  ScrapeConfig scrape;
};

// The commands that take a setting, as bits of an OptionCommands set. The agent takes every setting;
// `status`, one reading of the GPUs and its verdict, the settings that change what it reads or how it judges
// it; `top` the same as status, and the interval it reads and draws at; the simulator's tree writers the
// scenario, the library and the tree they write.
enum OptionCommand : unsigned {
  kAgentCommand = 1U << 0,
  kStatusCommand = 1U << 1,
  kSimProcTreeCommand = 1U << 2,
  kSimSysfsTreeCommand = 1U << 3,
  kTopCommand = 1U << 4,
};
using OptionCommands = unsigned;

// "agent, status, sim proc-tree": the commands of the set, as users type them.
std::string option_command_names(OptionCommands commands);

struct OptionSpec {
  std::string_view key;         // config key, e.g. "nvml_library"; flag is --nvml-library
  std::string_view value_name;  // shown in --help, e.g. "PATH"
  std::string_view help;
  bool reloadable;  // applied on SIGHUP without a restart
  // Parses text into the options; returns an error message (what was expected) or nullopt.
  std::function<std::optional<std::string>(AgentOptions&, std::string_view)> apply;
  std::function<std::string(const AgentOptions&)> show;
  OptionCommands commands = kAgentCommand;  // the commands that take it (as a flag, and from --config)
  // Its value may hold a credential (a webhook's URL carries its token): the agent's status API, which
  // lists the settings in effect, shows it as "<secret>".
  bool secret = false;

  bool taken_by(OptionCommand command) const { return (commands & command) != 0; }
};

std::span<const OptionSpec> option_table();
const OptionSpec* find_option(std::string_view key);
std::string flag_name(std::string_view key);  // "nvml_library" -> "nvml-library"

// Every remote-write receiver: the list's, then one per --remote-write-url with every setting at its default.
std::vector<RemoteWriteTarget> remote_write_targets(const AgentOptions& options);

// The per-GPU deadline in effect: the configured one, or 80% of the interval (at least 50 ms).
std::chrono::milliseconds effective_deadline(const AgentOptions& options);

}  // namespace gpuwatch
