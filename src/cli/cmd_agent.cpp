// `gpuwatch agent`: collects every interval and serves /metrics, the JSON API and health endpoints until
// SIGTERM/SIGINT; SIGHUP re-reads the config file.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>
#include <stop_token>
#include <thread>
#include <utility>

#include "cli/agent_flags.h"
#include "cli/alerting_setup.h"
#include "cli/collector_setup.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "collector/abandonable_worker.h"
#include "collector/collector.h"
#include "config/agent_options.h"
#include "core/duration.h"
#include "http/http_server.h"
#include "query/query_api.h"

namespace gpuwatch {
namespace {

// A collector and the thread that drives it; replaced as a whole when a reload changes how to collect.
// The driving thread may be stuck in a driver call that never returns (nvmlInit on a hung driver): stopping
// waits a moment for it and then walks away, so shutdown and reloads never hang.
class RunningCollector {
 public:
  explicit RunningCollector(const AgentOptions& options)
      : collector_(std::make_shared<Collector>(collector_options(options))),
        driver_(std::make_unique<AbandonableWorker>(
            [c = collector_](std::stop_token stop) {
              c->tick();
              log_first_collection(*c->latest());
              c->run(std::move(stop));
            },
            kStopGrace)) {
    driver_->start();
  }
  ~RunningCollector() { stop(); }
  RunningCollector(const RunningCollector&) = delete;
  RunningCollector& operator=(const RunningCollector&) = delete;

  // Stops collecting. Returns false when the driving thread had to be left behind in a driver call.
  bool stop() {
    if (stopped_) return !stuck_;
    stopped_ = true;
    driver_->request_stop();
    collector_->clock().interrupt();
    stuck_ = !driver_->wait_until(std::chrono::steady_clock::now() + kStopGrace);
    if (stuck_) spdlog::warn("a collection thread is stuck in a driver call; leaving it behind");
    return !stuck_;
  }
  const std::shared_ptr<Collector>& collector() const { return collector_; }

 private:
  static constexpr std::chrono::milliseconds kStopGrace{2000};
  static void log_first_collection(const Snapshot& snap) {
    if (!snap.source_error.empty()) {
      spdlog::error("no GPU could be read: {}", snap.source_error);
    } else {
      spdlog::info("first collection: {} device(s), driver {}", snap.devices.size(),
                   snap.node.driver_version);
    }
  }

  std::shared_ptr<Collector> collector_;
  std::unique_ptr<AbandonableWorker> driver_;
  bool stopped_ = false;
  bool stuck_ = false;
};

spdlog::level::level_enum log_level(const std::string& name) {
  return spdlog::level::from_str(name);
}

bool collection_settings_changed(const AgentOptions& a, const AgentOptions& b) {
  return a.interval != b.interval || effective_deadline(a) != effective_deadline(b) ||
         a.hostname != b.hostname;
}

void warn_about_restart_only_changes(const AgentOptions& before, const AgentOptions& after) {
  for (const auto& spec : option_table()) {
    if (!spec.reloadable && spec.show(before) != spec.show(after)) {
      spdlog::warn("reload: '{}' changed from '{}' to '{}'; it takes effect after a restart", spec.key,
                   spec.show(before), spec.show(after));
    }
  }
}

int run_agent(const AgentFlags& flags) {
  AgentOptions options;
  if (!flags.resolve(options)) return kExitUsage;
  spdlog::set_default_logger(spdlog::stderr_color_mt("gpuwatch"));  // stdout stays free for data
  spdlog::set_level(log_level(options.log_level));
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    spdlog::error("{}", problem);
    return kExitUsage;
  }
  SignalWaiter signals;  // before any thread starts

  std::atomic<std::shared_ptr<RunningCollector>> running{std::make_shared<RunningCollector>(options)};
  std::string alerting_error;
  const std::shared_ptr<alerting::AlertingService> alerts = make_alerting(
      options, [&running] { return running.load()->collector()->latest()->timestamp_ms; }, alerting_error);
  if (!alerts) {
    spdlog::error("alerting: {}", alerting_error);
    return kExitUsage;
  }
  // Every snapshot is evaluated on the collector's thread, right after it is published.
  const auto evaluate_on = [alerts](RunningCollector& c) {
    c.collector()->set_snapshot_callback([alerts](const SnapshotPtr& s) { evaluate_alerts(*alerts, *s); });
  };
  evaluate_on(*running.load());
  HttpServerOptions server_options;
  server_options.routes = alerts->routes();
  server_options.extra_metrics = [alerts](std::string& out, ExpositionFormat f) {
    alerts->append_metrics(out, f);
  };
  server_options.listen = options.listen;
  server_options.naming = options.naming;
  server_options.dcgm_hostname_label = options.dcgm_hostname_label;
  // The Prometheus query API over the history store. STORE HOOK: set `history` to the agent's store once
  // it lands (src/store); until then the agent serves no /api/v1/query.
  std::shared_ptr<const store::SeriesSource> history;
  if (history) server_options.routes = query::query_routes(history);
  HttpServer server(
      server_options, [&running] { return running.load()->collector()->latest(); },
      [&running] { return running.load()->collector()->ready(); });
  try {
    server.start();
  } catch (const std::exception& e) {
    spdlog::error("cannot serve: {}", e.what());
    return kExitRuntime;
  }
  spdlog::info("gpuwatch {} serving on {} (port {}), interval {}, NVML library {}", GPUWATCH_VERSION,
               options.listen, server.port(), format_duration(options.interval),
               options.nvml_library.empty() ? "libnvidia-ml.so.1" : options.nvml_library);

  for (;;) {
    const int sig = signals.wait();
    if (sig != SIGHUP) {
      spdlog::info("received signal {}, stopping", sig);
      break;
    }
    if (flags.config_path().empty()) {
      spdlog::info("SIGHUP: no --config file to reload");
      continue;
    }
    AgentOptions reloaded;
    if (!flags.resolve(reloaded)) {
      spdlog::error("reload: {} has errors (printed above); keeping the running settings",
                    flags.config_path());
      continue;
    }
    warn_about_restart_only_changes(options, reloaded);
    spdlog::set_level(log_level(reloaded.log_level));
    server.set_naming(reloaded.naming);
    // Restart-only settings keep their running values.
    reloaded.listen = options.listen;
    reloaded.nvml_library = options.nvml_library;
    reloaded.proc_root = options.proc_root;
    reloaded.sysfs_root = options.sysfs_root;
    reloaded.sim_scenario = options.sim_scenario;
    reloaded.dcgm_hostname_label = options.dcgm_hostname_label;
    if (collection_settings_changed(options, reloaded)) {
      auto fresh = std::make_shared<RunningCollector>(reloaded);
      evaluate_on(*fresh);
      running.store(std::move(fresh));
    }
    options = reloaded;
    spdlog::info("reloaded {}", flags.config_path());
  }
  server.stop();
  const bool clean = running.load()->stop();  // never waits on a hung driver call for long
  spdlog::info("stopped");
  if (!clean) {
    // A thread is blocked inside the driver library; running the library's exit-time destructors under it
    // could crash. Leave without them: everything worth keeping is already flushed.
    spdlog::shutdown();
    std::_Exit(kExitOk);
  }
  return kExitOk;
}

}  // namespace

void add_agent_command(CLI::App& app, CommandAction& action) {
  CLI::App* agent = app.add_subcommand("agent", "Collect every interval and serve /metrics and the API");
  auto flags = std::make_shared<AgentFlags>(*agent);
  agent->callback([&action, flags] { action = [flags] { return run_agent(*flags); }; });
}

}  // namespace gpuwatch
