// `gpuwatch agent`: collects every interval and serves /metrics, the JSON API and health endpoints until
// SIGTERM/SIGINT; SIGHUP re-reads the config file.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>
#include <stop_token>
#include <thread>

#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "cli/simulator_setup.h"
#include "collector/collector.h"
#include "config/agent_options.h"
#include "core/duration.h"
#include "http/http_server.h"

namespace gpuwatch {
namespace {

CollectorOptions collector_options(const AgentOptions& o) {
  CollectorOptions c;
  c.nvml_library = o.nvml_library;
  c.interval = o.interval;
  c.deadline = effective_deadline(o);
  c.proc_root = o.proc_root;
  c.hostname = o.hostname;
  return c;
}

// A collector and the thread that drives it; replaced as a whole when a reload changes how to collect.
class RunningCollector {
 public:
  explicit RunningCollector(const AgentOptions& options)
      : collector_(std::make_shared<Collector>(collector_options(options))) {
    collector_->tick();  // the first snapshot is there before anyone can ask for it
    thread_ = std::jthread([c = collector_](std::stop_token stop) { c->run(stop); });
  }
  ~RunningCollector() {
    thread_.request_stop();
    collector_->clock().interrupt();
  }
  const std::shared_ptr<Collector>& collector() const { return collector_; }

 private:
  std::shared_ptr<Collector> collector_;
  std::jthread thread_;
};

spdlog::level::level_enum log_level(const std::string& name) { return spdlog::level::from_str(name); }

bool collection_settings_changed(const AgentOptions& a, const AgentOptions& b) {
  return a.interval != b.interval || effective_deadline(a) != effective_deadline(b) || a.hostname != b.hostname;
}

void warn_about_restart_only_changes(const AgentOptions& before, const AgentOptions& after) {
  for (const auto& spec : option_table()) {
    if (!spec.reloadable && spec.show(before) != spec.show(after)) {
      spdlog::warn("reload: '{}' changed from '{}' to '{}'; it takes effect after a restart", spec.key,
                   spec.show(before), spec.show(after));
    }
  }
}

MetricNaming to_metric_naming(Naming n) { return n == Naming::kDcgm ? MetricNaming::kDcgm : MetricNaming::kNative; }

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
  HttpServerOptions server_options;
  server_options.listen = options.listen;
  server_options.naming = to_metric_naming(options.naming);
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
  {
    const auto snap = running.load()->collector()->latest();
    spdlog::info("gpuwatch {} serving on {} (port {}), interval {}, {} device(s){}{}", GPUWATCH_VERSION,
                 options.listen, server.port(), format_duration(options.interval), snap->devices.size(),
                 snap->source_error.empty() ? "" : ": ", snap->source_error);
  }

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
      spdlog::error("reload: {} has errors (printed above); keeping the running settings", flags.config_path());
      continue;
    }
    warn_about_restart_only_changes(options, reloaded);
    spdlog::set_level(log_level(reloaded.log_level));
    server.set_naming(to_metric_naming(reloaded.naming));
    // Restart-only settings keep their running values.
    reloaded.listen = options.listen;
    reloaded.nvml_library = options.nvml_library;
    reloaded.proc_root = options.proc_root;
    reloaded.sysfs_root = options.sysfs_root;
    reloaded.sim_scenario = options.sim_scenario;
    reloaded.dcgm_hostname_label = options.dcgm_hostname_label;
    if (collection_settings_changed(options, reloaded)) {
      running.store(std::make_shared<RunningCollector>(reloaded));
    }
    options = reloaded;
    spdlog::info("reloaded {}", flags.config_path());
  }
  server.stop();
  running.store(nullptr);  // stops collection; never waits on a hung driver call
  spdlog::info("stopped");
  return kExitOk;
}

}  // namespace

void add_agent_command(CLI::App& app, CommandAction& action) {
  CLI::App* agent = app.add_subcommand("agent", "Collect every interval and serve /metrics and the API");
  auto flags = std::make_shared<AgentFlags>(*agent);
  agent->callback([&action, flags] { action = [flags] { return run_agent(*flags); }; });
}

}  // namespace gpuwatch
