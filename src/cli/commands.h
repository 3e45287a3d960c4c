// Each subcommand lives in its own file and registers itself on the top-level CLI11 app. Parsing selects one
// command; its action runs after parsing and returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "cli/typed_flags.h"

namespace gpuwatch {

using CommandAction = std::function<int()>;
// Each add_*_command registers its command on `app`; `typed` tells the flags typed, for a command to build
// only those of its many settings (cli/typed_flags.h).

// Exit codes shared by the commands (documented in README and docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,     // bad flags or config
  kExitWarning = 2,   // status: some GPU has a warning
  kExitCritical = 3,  // status: some GPU is critical (lost, hung, double-bit ECC, ...)
  kExitNoGpu = 4,     // status: no NVML library, no driver, or no GPU
  kExitRuntime = 5,   // agent: could not start (port taken, ...)
};

void add_agent_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_status_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_config_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_sim_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_query_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_alerts_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_import_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
// `sim export`, registered under the sim command.
void add_sim_export_command(CLI::App& sim, CommandAction& action, const TypedFlags& typed);
void add_sim_serve_command(CLI::App& sim, CommandAction& action, const TypedFlags& typed);
void add_store_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_top_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_report_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_slo_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);
void add_rules_command(CLI::App& app, CommandAction& action, const TypedFlags& typed);

}  // namespace gpuwatch
