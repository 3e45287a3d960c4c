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
      {"web_config_file", "--web.config.file"},  // exporter-toolkit's spelling, as node_exporter takes it
  };
  std::string names = "--" + flag_name(key);
  for (const auto& [option, alias] : kAliases)
    if (option == key) names += "," + std::string(alias);
  return names;
}

AgentFlags::AgentFlags(CLI::App& command, OptionCommand taker, ConfigFlag config, const TypedFlags& typed)
    : taker_(taker) {
  if (config == ConfigFlag::kTaken) {
    const std::string help =
        taker == kAgentCommand
            ? "Configuration file (gpuwatch.yaml); SIGHUP reads it again"
            : "The agent's configuration file (gpuwatch.yaml); " + command.get_name() +
                  " reads only the settings it has flags for (below) and skips the other keys";
    command.add_option("-c,--config", config_path_, help)->type_name("FILE");
  }
  const AgentOptions defaults;
  for (const auto& spec : option_table()) {
    if (!spec.taken_by(taker)) continue;
    const std::string names = flag_names(spec.key);
    if (!typed.any_of(names)) continue;
    auto value = std::make_unique<std::string>();
    CLI::Option* opt = command.add_option(names, *value, std::string(spec.help));
    opt->type_name(std::string(spec.value_name));
    // A list setting may be given again and again: CLI11 joins the values one a line for its parser.
    if (spec.key == "remote_write_url") opt->multi_option_policy(CLI::MultiOptionPolicy::Join);
    opt->default_str(spec.show(defaults));  // shown in --help only: unset flags are not applied
    flags_[std::string(spec.key)] = opt;
    values_[std::string(spec.key)] = std::move(value);
  }
}

CLI::Option* AgentFlags::flag(std::string_view key) const {
  const auto found = flags_.find(std::string(key));
  return found == flags_.end() ? nullptr : found->second;
}

bool AgentFlags::resolve(AgentOptions& options) const {
  bool ok = true;
  if (!config_path_.empty()) {
    for (const auto& error : apply_config_file(config_path_, options, taker_)) {
      std::cerr << error.to_string() << "\n";
      ok = false;
    }
  }
  if (const char* env = std::getenv("GPUWATCH_NVML_LIB"); env && *env && flags_.contains("nvml_library"))
    options.nvml_library = env;
  for (const auto& spec : option_table()) {
    const auto flag = flags_.find(std::string(spec.key));
    if (flag == flags_.end() || flag->second->count() == 0) continue;
    const std::string& value = *values_.at(flag->first);
    if (auto problem = spec.apply(options, value)) {
      std::cerr << "--" << flag_name(spec.key) << ": " << *problem << ", got '" << value << "'\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace gpuwatch
