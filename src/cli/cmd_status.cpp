// `gpuwatch status [--json | --query-gpu FIELDS | --query-compute-apps FIELDS]`: reads every GPU once and
// prints one table (or the JSON snapshot, or a CSV of chosen fields). The exit code says how the node is:
// 0 healthy, 2 warning, 3 critical, 4 no GPU or no driver.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>

#include "agent/collector_setup.h"
#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "cli/one_shot_process.h"
#include "cli/status_csv.h"
#include "cli/status_table.h"
#include "collector/abandonable_worker.h"
#include "collector/collector.h"
#include "config/agent_options.h"
#include "core/duration.h"
#include "core/json_text.h"
#include "detect/detection.h"
#include "http/json_api.h"
#include "rules/health.h"

namespace gpuwatch {
namespace {

struct StatusArgs {
  bool json = false;
  std::string query_gpu;           // --query-gpu FIELDS
  std::string query_compute_apps;  // --query-compute-apps FIELDS
  std::string format = "csv";
  bool help_query_gpu = false;
  bool help_query_compute_apps = false;
  std::unique_ptr<AgentFlags> flags;
};

// The CSV query asked for, if any: the field lists are checked before any GPU is read. Returns false after
// printing a usage error or the field help (`code` is set then).
bool parse_query(const StatusArgs& args, std::optional<StatusQuery>& query, int& code) {
  for (const auto& [kind, fields, help] :
       {std::tuple{StatusQueryKind::kGpu, &args.query_gpu, args.help_query_gpu},
        std::tuple{StatusQueryKind::kComputeApps, &args.query_compute_apps, args.help_query_compute_apps}}) {
    if (help || is_field_help(*fields)) {
      std::cout << status_query_help(kind);
      code = kExitOk;
      return false;
    }
    if (fields->empty()) continue;
    query.emplace();
    if (auto problem = parse_status_query(kind, *fields, args.format, *query); !problem.empty()) {
      std::cerr << "gpuwatch: " << problem << "\n";
      code = kExitUsage;
      return false;
    }
  }
  return true;
}

// The worst GPU decides, by the same verdict the table shows and the detectors' settings.
int exit_code_for(const Snapshot& snap, const rules::DetectorSettings& settings) {
  if (snap.devices.empty()) return kExitNoGpu;
  int code = kExitOk;
  for (const auto& device : snap.devices) {
    switch (assess_health(device, settings).verdict) {
      case HealthVerdict::kCritical:
        return kExitCritical;
      case HealthVerdict::kWarning:
        code = kExitWarning;
        break;
      case HealthVerdict::kHealthy:
        break;
    }
  }
  return code;
}

void explain_no_gpu(const Snapshot& snap, const AgentOptions& options) {
  if (!snap.source_error.empty()) {
    // The source's own message: source_error adds when the agent retries, and status reads only once.
    const auto nvml = std::find_if(snap.sources.begin(), snap.sources.end(),
                                   [](const SourceStatus& s) { return s.name == "nvml"; });
    const bool has_message = nvml != snap.sources.end() && !nvml->message.empty();
    std::cerr << "gpuwatch: no GPU could be read: " << (has_message ? nvml->message : snap.source_error)
              << "\n";
  } else {
    std::cerr << "gpuwatch: NVML answered but reports no GPU";
    if (!snap.node.nvml_library.empty()) std::cerr << " (library " << snap.node.nvml_library << ")";
    std::cerr << ".\n";
  }
  if (options.nvml_library.empty()) {
    std::cerr
        << "  Is the NVIDIA driver installed and loaded (lsmod | grep nvidia)? To use another NVML library,\n"
           "  pass --nvml-lib PATH or set GPUWATCH_NVML_LIB; to try gpuwatch without a GPU, run make demo.\n";
  }
}

int run_status(const StatusArgs& args) {
  std::optional<StatusQuery> query;
  if (int code = kExitOk; !parse_query(args, query, code)) return code;
  AgentOptions options;
  if (!args.flags->resolve(options)) return kExitUsage;
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    std::cerr << "gpuwatch: " << problem << "\n";
    return kExitUsage;
  }
  CollectorOptions copts = collector_options(options);
  copts.listen_events = false;
  copts.read_in_turn = true;
  settle_one_shot_process();
  auto collector = std::make_shared<Collector>(copts);
  // The read runs on a thread of its own so that a driver that never answers (a hung nvmlInit) ends in a
  // clear message instead of a status command that hangs too. One read, no second one after a pause: NVML's
  // utilization is already the driver's average over its last sample period, and the GPM ratios (SM active,
  // tensor, DRAM), which need two samples 100 ms apart, are left to the agent and top (docs/status.md).
  AbandonableWorker reader([collector](const std::stop_token&) { collector->tick(); });
  reader.start();
  const auto limit = copts.effective_deadline() * 2 + std::chrono::seconds(5);
  if (!reader.wait_until(std::chrono::steady_clock::now() + limit)) {
    std::cerr
        << "gpuwatch: the NVIDIA driver did not answer within " << format_duration(limit)
        << " (a hung driver call); the GPUs cannot be read. Check the kernel log (dmesg) for NVRM errors.\n";
    end_one_shot_process(kExitCritical);  // the reading thread is stuck inside the driver library
  }
  const SnapshotPtr snap = collector->latest();
  if (query) {
    std::cout << render_status_query(*snap, *query, options.detectors);
  } else if (args.json) {
    std::cout << to_json_text(snapshot_to_json(*snap, options.detectors), 2) << "\n";
  } else {
    const bool terminal = ::isatty(STDOUT_FILENO) == 1;
    const bool colour = terminal && std::getenv("NO_COLOR") == nullptr;
    // Fitted to a terminal; piped output (scripts) keeps every column.
    winsize size{};
    const std::size_t width = terminal && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
    if (!snap->devices.empty()) {
      std::cout << render_status_table(*snap, StatusTableStyle{colour, width}, options.detectors) << "\n";
      // The detectors on this one reading: what needs a window (trends, rates) cannot fire here.
      detect::Detection detection(detect::DetectionOptions{options.detectors, options.accounting});
      auto conditions = detection.evaluate(*snap);
      std::erase_if(conditions, [](const alerting::Condition& c) { return c.alertname == "Watchdog"; });
      std::cout << render_status_alerts(conditions, StatusTableStyle{colour, width});
    }
  }
  const int code = exit_code_for(*snap, options.detectors);
  if (code == kExitNoGpu) explain_no_gpu(*snap, options);
  end_one_shot_process(code);
}

}  // namespace

void add_status_command(CLI::App& app, CommandAction& action, const TypedFlags& typed) {
  CLI::App* status =
      app.add_subcommand("status", "Read every GPU once and print a table (exit code = health)");
  auto args = std::make_shared<StatusArgs>();
  status->add_flag("--json", args->json, "Print the snapshot as JSON (schema: docs/metrics.md)");
  auto* query_gpu =
      status->add_option("--query-gpu", args->query_gpu,
                         "Print these fields of every GPU as CSV, as nvidia-smi --query-gpu does "
                         "(FIELDS comma-separated; help: list them)");
  auto* query_apps =
      status->add_option("--query-compute-apps", args->query_compute_apps,
                         "Print these fields of every compute process as CSV (help: list them)");
  query_gpu->type_name("FIELDS")->excludes("--json")->excludes(query_apps);
  query_apps->type_name("FIELDS")->excludes("--json");
  status->add_option("--format", args->format, "CSV of a query: csv, with noheader and nounits if wanted")
      ->type_name("csv[,noheader][,nounits]")
      ->capture_default_str();
  status->add_flag("--help-query-gpu", args->help_query_gpu, "List the fields of --query-gpu");
  status->add_flag("--help-query-compute-apps", args->help_query_compute_apps,
                   "List the fields of --query-compute-apps");
  args->flags = std::make_unique<AgentFlags>(*status, kStatusCommand, ConfigFlag::kTaken, typed);
  status->callback([&action, args] { action = [args] { return run_status(*args); }; });
}

}  // namespace gpuwatch
