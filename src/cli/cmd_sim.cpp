// `gpuwatch sim proc-tree` and `gpuwatch sim sysfs-tree`: lay out the scenario's fake /proc tree (process
// names, command lines, cgroups, mapped CUDA libraries) under --proc-root, or its PCI tree (switches and
// links) under --sysfs-root, so attribution and topology can be exercised on the simulator.
#include <filesystem>
#include <iostream>
#include <memory>

#include "agent/collector_setup.h"
#include "cli/agent_flags.h"
#include "cli/commands.h"
#include "cli/open_simulator.h"
#include "sources/nvml/nvml_library.h"

namespace gpuwatch {
namespace {

struct TreeCommand {
  const char* name;
  const char* help;
  const char* key;                 // the setting naming the directory
  std::string AgentOptions::*dir;  // where that option lands
  const char* host_path;           // the real tree, never written
  const char* symbol;              // the simulator's writer
  OptionCommand taker;             // its flags: the scenario, the library and its directory
};

constexpr TreeCommand kTreeCommands[] = {
    {"proc-tree", "Write the scenario's fake /proc tree under --proc-root", "proc_root",
     &AgentOptions::proc_root, "/proc", "gpuwatchSimWriteProcTree", kSimProcTreeCommand},
    {"sysfs-tree", "Write the scenario's fake /sys PCI tree (GPUs, switches, links) under --sysfs-root",
     "sysfs_root", &AgentOptions::sysfs_root, "/sys", "gpuwatchSimWriteSysfsTree", kSimSysfsTreeCommand},
};

int write_tree(const TreeCommand& command, AgentOptions& options) {
  const std::string& dir = options.*command.dir;
  if (options.sim_scenario.empty() || dir.empty() || dir == command.host_path) {
    std::cerr << "sim " << command.name << " needs --sim-scenario FILE and --" << flag_name(command.key)
              << " DIR (not " << command.host_path << ")\n";
    return kExitUsage;
  }
  int exit_code = kExitOk;
  const auto library = open_simulator(options, exit_code);
  if (!library) return exit_code;
  using WriteTree = int (*)(const char*);
  auto write = reinterpret_cast<WriteTree>(library->optional_symbol(command.symbol));
  if (!write) {
    std::cerr << library->path() << " is not the gpuwatch simulator\n";
    library->fn().nvmlShutdown();
    return kExitUsage;
  }
  std::filesystem::create_directories(dir);
  const int rc = write(dir.c_str());
  library->fn().nvmlShutdown();
  if (rc != 0) {
    std::cerr << "the simulator could not write " << dir << " (NVML code " << rc << ")\n";
    return kExitRuntime;
  }
  std::cout << dir << "\n";
  return kExitOk;
}

}  // namespace

void add_sim_command(CLI::App& app, CommandAction& action, const TypedFlags& typed) {
  CLI::App* sim = app.add_subcommand("sim", "Tools for the bundled NVML simulator");
  sim->require_subcommand(1);
  add_sim_export_command(*sim, action, typed);
  add_sim_serve_command(*sim, action, typed);
  for (const auto& command : kTreeCommands) {
    CLI::App* tree = sim->add_subcommand(command.name, command.help);
    auto flags = std::make_shared<AgentFlags>(*tree, command.taker, ConfigFlag::kNone, typed);
    // The agent's default is the host's tree, which these never write; write_tree says what is missing.
    // (Only flags that were built, for --help or because they were typed, are there to be refined.)
    if (auto* dir = flags->flag(command.key)) {
      dir->default_str("")->description(std::string("Directory to write the tree in (required; not ") +
                                        command.host_path + ")");
    }
    if (auto* scenario = flags->flag("sim_scenario")) scenario->description("The scenario (required)");
    if (auto* library = flags->flag("nvml_library")) {
      library->description(
          "The simulator's library (default: the one next to gpuwatch; env GPUWATCH_NVML_LIB)");
    }
    tree->callback([&action, &command, flags] {
      action = [&command, flags] {
        AgentOptions options;
        if (!flags->resolve(options)) return static_cast<int>(kExitUsage);
        return write_tree(command, options);
      };
    });
  }
}

}  // namespace gpuwatch
