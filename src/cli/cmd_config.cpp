// `gpuwatch config check FILE`: validates a configuration file and prints the settings it results in.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "config/config_file.h"
#include "config/options_reference.h"

namespace gpuwatch {

void add_config_command(CLI::App& app, CommandAction& action) {
  CLI::App* config = app.add_subcommand("config", "Work with gpuwatch.yaml");
  config->require_subcommand(1);
  CLI::App* check = config->add_subcommand("check", "Report every error in a config file (file:line:column)");
  auto path = std::make_shared<std::string>();
  check->add_option("FILE", *path, "Configuration file")->required();
  check->callback([&action, path] {
    action = [path] {
      AgentOptions options;
      const auto errors = apply_config_file(*path, options);
      for (const auto& error : errors) std::cerr << error.to_string() << "\n";
      if (!errors.empty()) {
        std::cerr << errors.size() << " error(s) in " << *path << "\n";
        return static_cast<int>(kExitUsage);
      }
      std::cout << *path << ": OK\n";
      for (const auto& spec : option_table())
        std::cout << "  " << spec.key << ": " << spec.show(options) << "\n";
      return static_cast<int>(kExitOk);
    };
  });
  CLI::App* reference = config->add_subcommand("reference", "Print the table of every setting (Markdown)");
  reference->callback([&action] {
    action = [] {
      std::cout << options_reference_markdown();
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace gpuwatch
