// Adds every setting of the option table to a CLI11 subcommand as a flag, plus --config FILE, and resolves
// the final options: defaults < config file < environment (GPUWATCH_NVML_LIB) < flags.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/agent_options.h"

namespace gpuwatch {

// Every spelling of an option's flag, as CLI11 takes them ("--sim-scenario,--scenario"): commands with
// flags of their own (sim export) name them by the same words as those built from the option table.
std::string flag_names(std::string_view key);

class AgentFlags {
 public:
  // Registers the flags on `command`; the object must outlive parsing.
  explicit AgentFlags(CLI::App& command);

  // After parsing: applies config file, environment and flags. Prints each problem to stderr
  // (file:line:column for the config file, --flag for flags) and returns false when there was any.
  bool resolve(AgentOptions& options) const;

  const std::string& config_path() const { return config_path_; }

 private:
  std::string config_path_;
  // Flag values as typed, by option key; only flags the user gave are applied.
  std::map<std::string, std::unique_ptr<std::string>> values_;
  std::map<std::string, CLI::Option*> flags_;
};

}  // namespace gpuwatch
