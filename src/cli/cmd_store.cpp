// `gpuwatch store check --data-dir DIR`: verifies a history store (every block's checksum, the series table,
// the write-ahead log) and prints a summary. Exit 0 when clean, 3 when damage was found, 1 on bad flags.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "config/agent_options.h"
#include "store/store_check.h"

namespace gpuwatch {

void add_store_command(CLI::App& app, CommandAction& action, const TypedFlags& /*typed*/) {
  CLI::App* store = app.add_subcommand("store", "Tools for the history store");
  store->require_subcommand(1);
  CLI::App* check = store->add_subcommand("check", "Verify every block and WAL record of a data dir");
  auto data_dir = std::make_shared<std::string>(kDefaultDataDir);
  check->add_option("--data-dir", *data_dir, "The store's directory")->capture_default_str();
  check->callback([&action, data_dir] {
    action = [data_dir] {
      const store::CheckReport report = store::check_store(*data_dir);
      std::cout << *data_dir << "\n" << report.summary();
      return static_cast<int>(report.clean() ? kExitOk : kExitCritical);
    };
  });
}

}  // namespace gpuwatch
