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
#include "http/exposition.h"
#include "http/http_server.h"
#include "query/query_api.h"
#include "store/snapshot_history.h"

namespace gpuwatch {
namespace {

// A collector and the thread that drives it; replaced as a whole when a reload changes how to collect.
// The driving thread may be stuck in a driver call that never returns (nvmlInit on a hung driver): stopping
// waits a moment for it and then walks away, so shutdown and reloads never hang.
class RunningCollector {
 public:
  RunningCollector(const AgentOptions& options, const SnapshotCallback& on_snapshot)
      : collector_(make_collector(options, on_snapshot)),
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
  static std::shared_ptr<Collector> make_collector(const AgentOptions& options, const SnapshotCallback& cb) {
    auto collector = std::make_shared<Collector>(collector_options(options));
    if (cb) collector->set_snapshot_callback(cb);  // before the first tick, so history misses nothing
    return collector;
  }
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

// The history store, or null when it is off or cannot open (the agent then runs without history).
std::shared_ptr<store::SnapshotHistory> open_history(const AgentOptions& options) {
  if (!options.store) return nullptr;
  store::StoreOptions so;
  so.data_dir = options.data_dir;
  so.clock_domain = store::clock_domain_for(options.sim_scenario);
  so.sync_interval = options.store_sync_interval;
  so.retention_ms = options.retention_time.count();
  so.retention_bytes = options.retention_size;
  so.downsample_after_ms = options.downsample_after.count();
  try {
    return std::make_shared<store::SnapshotHistory>(store::Store::open(so), options.store_max_process_series);
  } catch (const std::exception& e) {
    spdlog::error("history store disabled: {}", e.what());
    return nullptr;
  }
}

int run_agent(const AgentFlags& flags) {
  AgentOptions options;
  if (!flags.resolve(options)) return kExitUsage;
  spdlog::set_level(log_level(options.log_level));
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    spdlog::error("{}", problem);
    return kExitUsage;
  }
  SignalWaiter signals;  // before any thread starts

  // The alert engine's clock is the collector's (scenario time on the simulator).
  std::atomic<std::shared_ptr<RunningCollector>> running;
  std::string alerting_error;
  const std::shared_ptr<alerting::AlertingService> alerts = make_alerting(
      options, [&running] { return running.load()->collector()->latest()->timestamp_ms; }, alerting_error);
  if (!alerts) {
    spdlog::error("alerting: {}", alerting_error);
    return kExitUsage;
  }
  const std::shared_ptr<store::SnapshotHistory> history = open_history(options);
  const auto detection = std::make_shared<detect::Detection>(detect::detection_options(options));
  // Every snapshot goes to the history and the detectors on the collector's thread, right after it is
  // published; set before the first tick so neither misses one.
  const SnapshotCallback on_snapshot = [history, alerts, detection](const SnapshotPtr& s) {
    if (history) history->append(*s);
    evaluate_alerts(*alerts, *detection, *s);
  };
  running.store(std::make_shared<RunningCollector>(options, on_snapshot));
  HttpServerOptions server_options;
  server_options.routes = alerts->routes();
  server_options.health_settings = options.detectors;
  // The Prometheus query API over the history store.
  if (history) {
    for (auto& route : query::query_routes(history->store()))
      server_options.routes.push_back(std::move(route));
  }
  server_options.extra_metrics = [alerts, history, detection](std::string& out, ExpositionFormat f) {
    alerts->append_metrics(out, f);
    detection->append_metrics(out, f);
    if (history) {
      for (const auto& family : history->health_families()) append_family(out, family, f);
    }
  };
  server_options.listen = options.listen;
  server_options.naming = options.naming;
  server_options.dcgm_hostname_label = options.dcgm_hostname_label;
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
    // Restart-only settings keep their running values: every option the table marks not reloadable.
    for (const auto& spec : option_table()) {
      if (!spec.reloadable) spec.apply(reloaded, spec.show(options));
    }
    if (collection_settings_changed(options, reloaded)) {
      running.store(std::make_shared<RunningCollector>(reloaded, on_snapshot));
    }
    options = reloaded;
    spdlog::info("reloaded {}", flags.config_path());
  }
  server.stop();
  const bool clean = running.load()->stop();  // never waits on a hung driver call for long
  if (history) {
    try {
      history->store()->commit();
    } catch (const std::exception& e) {
      spdlog::error("history store: last sync failed: {}", e.what());
    }
  }
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
