// `gpuwatch sim serve`: the scenario's model servers (Triton-, vLLM- and TGI-shaped /metrics) on loopback
// until SIGINT or SIGTERM, and their listening sockets in the fake proc tree under --proc-root (when given),
// so the agent discovers them on the GPUs of their processes. Run beside the agent with the same scenario,
// epoch and time scale: both see the same moment of the scenario.
#include <iostream>
#include <memory>

#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "cli/open_simulator.h"
#include "cli/signal_waiter.h"
#include "sim_serve/sim_services.h"

namespace gpuwatch {
namespace {

int serve(AgentOptions& options) {
  if (options.sim_scenario.empty()) {
    std::cerr << "sim serve needs --sim-scenario FILE\n";
    return kExitUsage;
  }
  int exit_code = kExitOk;
  const auto library = open_simulator(options, exit_code);
  if (!library) return exit_code;
  const SignalWaiter signals;  // before the listeners' threads, so they inherit the blocked signals
  std::unique_ptr<SimServices> services;
  try {
    services = std::make_unique<SimServices>(library, false);
  } catch (const std::runtime_error& e) {
    std::cerr << "sim serve: " << e.what() << "\n";
    return kExitRuntime;
  }
  const bool proc_tree = !options.proc_root.empty() && options.proc_root != "/proc";
  if (proc_tree && !services->write_proc_sockets(options.proc_root)) {
    std::cerr << "sim serve: cannot write the sockets into " << options.proc_root << "\n";
    return kExitRuntime;
  }
  for (const auto& s : services->services()) {
    std::cout << s.kind << " (pid " << s.pid << ") on http://127.0.0.1:" << s.port << "/metrics\n";
  }
  std::cout.flush();
  signals.wait();
  services.reset();
  library->fn().nvmlShutdown();
  return kExitOk;
}

}  // namespace

void add_sim_serve_command(CLI::App& sim, CommandAction& action, const TypedFlags& typed) {
  CLI::App* cmd = sim.add_subcommand("serve", "Serve the scenario's model servers' /metrics on loopback");
  auto flags = std::make_shared<AgentFlags>(*cmd, kSimProcTreeCommand, ConfigFlag::kNone, typed);
  // Only flags that were built (for --help, or typed) are there to be refined.
  if (auto* proc_root = flags->flag("proc_root")) {
    proc_root->default_str("")->description(
        "A fake proc tree (from `sim proc-tree`) to add the servers' listening sockets to");
  }
  if (auto* scenario = flags->flag("sim_scenario")) scenario->description("The scenario (required)");
  cmd->callback([&action, flags] {
    action = [flags] {
      AgentOptions options;
      options.proc_root.clear();
      if (!flags->resolve(options)) return static_cast<int>(kExitUsage);
      return serve(options);
    };
  });
}

}  // namespace gpuwatch
