#include "cli/agent_flags.h"

#include <cstdlib>
#include <iostream>
#include <utility>

#include "config/config_file.h"

namespace gpuwatch {

std::string flag_names(std::string_view key) {
  // The shorter spellings users (and the benchmarks) already type.
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"nvml_library", "--nvml-lib"},
      {"sim_scenario", "--scenario"},
  };
  std::string names = "--" + flag_name(key);
  for (const auto& [option, alias] : kAliases)
    if (option == key) names += "," + std::string(alias);
  return names;
}

AgentFlags::AgentFlags(CLI::App& command) {
  command.add_option("-c,--config", config_path_, "Configuration file (gpuwatch.yaml)");
  for (const auto& spec : option_table()) {
    auto value = std::make_unique<std::string>();
    CLI::Option* opt = command.add_option(flag_names(spec.key), *value, std::string(spec.help));
    opt->type_name(std::string(spec.value_name));
    flags_[std::string(spec.key)] = opt;
    values_[std::string(spec.key)] = std::move(value);
  }
}

bool AgentFlags::resolve(AgentOptions& options) const {
  bool ok = true;
  if (!config_path_.empty()) {
    for (const auto& error : apply_config_file(config_path_, options)) {
      std::cerr << error.to_string() << "\n";
      ok = false;
    }
  }
  if (const char* env = std::getenv("GPUWATCH_NVML_LIB"); env && *env) options.nvml_library = env;
  for (const auto& spec : option_table()) {
    const std::string key(spec.key);
    if (flags_.at(key)->count() == 0) continue;
    if (auto problem = spec.apply(options, *values_.at(key))) {
      std::cerr << "--" << flag_name(spec.key) << ": " << *problem << ", got '" << *values_.at(key) << "'\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace gpuwatch
