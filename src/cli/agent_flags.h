// Adds the settings of the option table that a command takes (OptionSpec::commands) to its CLI11 subcommand
// as flags, each with its default in --help, plus --config FILE where the command reads one, and resolves the
// final options: defaults < config file < environment (GPUWATCH_NVML_LIB) < flags. A setting the command does
// not take is no flag of it, so giving one is a usage error naming the flag.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/typed_flags.h"
#include "config/agent_options.h"

namespace gpuwatch {

// Every spelling of an option's flag, as CLI11 takes them ("--sim-scenario,--scenario"): commands with
// flags of their own (sim export) name them by the same words as those built from the option table.
std::string flag_names(std::string_view key);

// Whether the command reads a configuration file (--config FILE): the agent and `status` do.
enum class ConfigFlag { kTaken, kNone };

class AgentFlags {
 public:
  // Registers the flags of the settings `taker` takes on `command`, of those only the ones typed unless help
  // was asked for (an untyped flag has nothing to parse; a flag the command does not take stays a usage
  // error); the object must outlive parsing.
  AgentFlags(CLI::App& command, OptionCommand taker, ConfigFlag config, const TypedFlags& typed);

  // After parsing: applies config file, environment and flags. Prints each problem to stderr
  // (file:line:column for the config file, --flag for flags) and returns false when there was any.
  bool resolve(AgentOptions& options) const;

  const std::string& config_path() const { return config_path_; }
  // The flag of setting `key`, for a command to refine (its help, its default); null when it has none or it
  // was not built (not typed).
  CLI::Option* flag(std::string_view key) const;

 private:
  OptionCommand taker_;
  std::string config_path_;
  // Flag values as typed, by option key; only flags the user gave are applied.
  std::map<std::string, std::unique_ptr<std::string>> values_;
  std::map<std::string, CLI::Option*> flags_;
};

}  // namespace gpuwatch
