// gpuwatch: one binary, one subcommand per job (agent, status, top, config, sim, query, alerts, import,
// store).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <malloc.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>

#include "cli/commands.h"

namespace {

// Each command takes only its own flags; one of another command's (status --listen) is named with the command
// that does not take it.
int report_unexpected(const CLI::App& app, const CLI::ExtrasError& e) {
  std::string command = "gpuwatch";
  const CLI::App* typed = &app;
  while (!typed->get_subcommands().empty()) {
    typed = typed->get_subcommands().front();
    command += " " + typed->get_name();
  }
  std::string flags;
  for (const std::string& arg : typed->remaining()) {
    if (arg.size() < 2 || arg[0] != '-') continue;
    flags += (flags.empty() ? "" : ", ") + arg.substr(0, arg.find('='));
  }
  if (flags.empty()) return app.exit(e) == 0 ? gpuwatch::kExitOk : gpuwatch::kExitUsage;
  std::cerr << command << " does not take " << flags << " (" << command
            << " --help lists the flags it takes)\n";
  return gpuwatch::kExitUsage;
}

using AddCommand = void (*)(CLI::App&, gpuwatch::CommandAction&, const gpuwatch::TypedFlags&);
// Every command, in the order --help lists them.
constexpr std::pair<std::string_view, AddCommand> kCommands[] = {
    {"agent", &gpuwatch::add_agent_command},   {"status", &gpuwatch::add_status_command},
    {"config", &gpuwatch::add_config_command}, {"sim", &gpuwatch::add_sim_command},
    {"query", &gpuwatch::add_query_command},   {"report", &gpuwatch::add_report_command},
    {"alerts", &gpuwatch::add_alerts_command}, {"slo", &gpuwatch::add_slo_command},
    {"rules", &gpuwatch::add_rules_command},   {"import", &gpuwatch::add_import_command},
    {"store", &gpuwatch::add_store_command},   {"top", &gpuwatch::add_top_command},
};

// Only the command typed first is built, when it is one: building every command's flags (their options,
// help texts and checks) is paid by each run of every command, the one-shot ones too. Anything else
// (--help, --version, a mistyped command) builds them all, so that help and errors name every command.
void add_commands(CLI::App& app, gpuwatch::CommandAction& action, std::string_view first,
                  const gpuwatch::TypedFlags& typed) {
  for (const auto& [name, add] : kCommands) {
    if (name == first) return add(app, action, typed);
  }
  for (const auto& command : kCommands) command.second(app, action, typed);
}

}  // namespace

int main(int argc, char** argv) {
  // glibc gives each thread that allocates an arena of its own; the agent's per-GPU workers, event thread,
  // HTTP and store threads would hold a few pages each for the process's life. Two arenas keep the resident
  // memory about 3 MiB lower (docs/benchmarks.md) at no measurable cost: the threads allocate little, once a
  // tick. An operator's MALLOC_ARENA_MAX still wins.
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 2);
  // Logs go to stderr in every command: stdout carries data (query results, status tables, exports).
  spdlog::set_default_logger(spdlog::stderr_color_mt("gpuwatch"));
  spdlog::set_level(spdlog::level::warn);  // the agent sets its --log-level; one-shot commands stay quiet
  CLI::App app{"gpuwatch: measures every GPU on this host and explains what it sees"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpuwatch ") + GPUWATCH_VERSION);

  gpuwatch::CommandAction action;
  const gpuwatch::TypedFlags typed(argc, argv);
  add_commands(app, action, argc > 1 ? argv[1] : "", typed);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    return report_unexpected(app, e);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? gpuwatch::kExitOk : gpuwatch::kExitUsage;
  }
  try {
    return action ? action() : gpuwatch::kExitUsage;
  } catch (const std::exception& e) {
    // Every expected failure has its own message and exit code; this is the last word on an unexpected one.
    std::cerr << "gpuwatch: " << e.what() << "\n";
    return gpuwatch::kExitRuntime;
  }
}
