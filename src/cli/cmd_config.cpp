// `gpuwatch config check FILE`: validates a configuration file and the files it names, and prints the
// settings it results in.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/named_files_check.h"
#include "config/config_file.h"
#include "config/options_reference.h"
#include "core/duration.h"

namespace gpuwatch {
namespace {

// The scrape section as it resulted: each target with its job, url, interval and timeout.
void print_scrape_section(const ScrapeConfig& scrape) {
  if (scrape.empty()) return;
  std::cout << "  scrape:\n";
  for (const auto& t : scrape.targets) {
    std::cout << "    - " << t.job << " " << t.url << " every " << format_duration(t.interval) << ", timeout "
              << format_duration(t.timeout) << "\n";
  }
  if (scrape.discovery.enabled) {
    const auto& d = scrape.discovery.target;
    std::cout << "    discovery: job " << d.job << ", path " << scrape.discovery.path << ", every "
              << format_duration(d.interval) << ", timeout " << format_duration(d.timeout) << "\n";
  }
}

}  // namespace

void add_config_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
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
      // The files it names, read as the agent reads them (only where the file itself was valid).
      const auto named = errors.empty() ? check_named_files(options) : std::vector<std::string>{};
      for (const auto& problem : named) std::cerr << *path << ": " << problem << "\n";
      if (!errors.empty() || !named.empty()) {
        std::cerr << errors.size() + named.size() << " error(s) in " << *path << " and the files it names\n";
        return static_cast<int>(kExitUsage);
      }
      std::cout << *path << ": OK\n";
      for (const auto& spec : option_table())
        std::cout << "  " << spec.key << ": " << spec.show(options) << "\n";
      print_scrape_section(options.scrape);
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
