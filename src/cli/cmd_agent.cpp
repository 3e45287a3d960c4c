// `gpuwatch agent`: parses the flags and runs the Agent (src/agent) until SIGTERM/SIGINT; SIGHUP re-reads the
// config file.
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <utility>

#include "agent/agent.h"
#include "agent/collector_setup.h"
#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "config/agent_options.h"
#include "config/scrape_section.h"
#include "core/duration.h"

namespace gpuwatch {
namespace {

void wait_for_stop(const AgentFlags& flags, Agent& agent, const SignalWaiter& signals) {
  for (;;) {
    const int sig = signals.wait();
    if (sig != SIGHUP) {
      spdlog::info("received signal {}, stopping", sig);
      return;
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
    // Resolved as at start (the simulator next to gpuwatch for a scenario), so an unchanged file changes
    // nothing.
    if (auto problem = locate_simulator(reloaded); !problem.empty()) {
      spdlog::error("reload: {}; keeping the running settings", problem);
      continue;
    }
    agent.reload(std::move(reloaded));
    spdlog::info("reloaded {}", flags.config_path());
  }
}

int run_agent(const AgentFlags& flags) {
  AgentOptions options;
  if (!flags.resolve(options)) return kExitUsage;
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    spdlog::error("{}", problem);
    return kExitUsage;
  }
  // A game day's own settings (its `gpuwatch:` section: scrape targets, SLO files), each unless the config
  // file has it.
  if (!options.sim_scenario.empty()) {
    const auto errors = apply_scenario_settings(options.sim_scenario, options);
    for (const auto& e : errors) spdlog::error("{}", e.to_string());
    if (!errors.empty()) return kExitUsage;
  }
  SignalWaiter signals;  // before any thread starts

  std::unique_ptr<Agent> agent;
  try {
    agent = std::make_unique<Agent>(options);
  } catch (const AgentSetupError& e) {
    spdlog::error("{}", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {  // the listen address cannot be bound (taken, not this host's)
    spdlog::error("cannot serve: {}", e.what());
    return kExitRuntime;
  }
  try {
    agent->start();
  } catch (const std::exception& e) {
    spdlog::error("cannot serve: {}", e.what());
    agent->stop();
    return kExitRuntime;
  }
  // The bound address: with port 0 the one the system picked, as the alerts' links name it.
  spdlog::info("gpuwatch {} serving on {} (port {}), alert links to {}, interval {}, NVML library {}",
               GPUWATCH_VERSION, agent->address(), agent->port(), agent->external_url(),
               format_duration(options.interval),
               options.nvml_library.empty() ? "libnvidia-ml.so.1" : options.nvml_library);

  wait_for_stop(flags, *agent, signals);
  const bool clean = agent->stop();  // never waits on a hung driver call or a stuck sink for long
  spdlog::info("stopped");
  if (!clean) {
    // A thread is blocked inside the driver library (or a sink); running the library's exit-time destructors
    // under it could crash. Leave without them: everything worth keeping is already flushed.
    spdlog::shutdown();
    std::_Exit(kExitOk);
  }
  return kExitOk;
}

}  // namespace

void add_agent_command(CLI::App& app, CommandAction& action, const TypedFlags& typed) {
  CLI::App* agent = app.add_subcommand("agent", "Collect every interval and serve /metrics and the API");
  auto flags = std::make_shared<AgentFlags>(*agent, kAgentCommand, ConfigFlag::kTaken, typed);
  agent->callback([&action, flags] { action = [flags] { return run_agent(*flags); }; });
}

}  // namespace gpuwatch
