// `gpuwatch sim proc-tree`: lays out the scenario's fake /proc tree (process names, command lines, cgroups,
// mapped CUDA libraries) under --proc-root, so attribution can be exercised on the simulator.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/agent_flags.h"
#include "cli/collector_setup.h"
#include "cli/commands.h"
#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

void add_sim_command(CLI::App& app, CommandAction& action) {
  CLI::App* sim = app.add_subcommand("sim", "Tools for the bundled NVML simulator");
  sim->require_subcommand(1);
  add_sim_export_command(*sim, action);
  CLI::App* tree = sim->add_subcommand("proc-tree", "Write the scenario's fake /proc tree under --proc-root");
  auto flags = std::make_shared<AgentFlags>(*tree);
  tree->callback([&action, flags] {
    action = [flags] {
      AgentOptions options;
      if (!flags->resolve(options)) return static_cast<int>(kExitUsage);
      if (options.sim_scenario.empty() || options.proc_root == "/proc") {
        std::cerr << "sim proc-tree needs --sim-scenario FILE and --proc-root DIR (not /proc)\n";
        return static_cast<int>(kExitUsage);
      }
      if (auto problem = prepare_simulator(options); !problem.empty()) {
        std::cerr << problem << "\n";
        return static_cast<int>(kExitUsage);
      }
      auto opened = NvmlLibrary::open(options.nvml_library);
      if (!opened.library) {
        std::cerr << opened.error << "\n";
        return static_cast<int>(kExitNoGpu);
      }
      using WriteProcTree = int (*)(const char*);
      auto write_tree =
          reinterpret_cast<WriteProcTree>(opened.library->optional_symbol("gpuwatchSimWriteProcTree"));
      if (!write_tree) {
        std::cerr << opened.library->path() << " is not the gpuwatch simulator\n";
        return static_cast<int>(kExitUsage);
      }
      std::filesystem::create_directories(options.proc_root);
      // Initialising first makes the simulator load (and validate) its scenario.
      if (int init = opened.library->fn().nvmlInit_v2(); init != NVML_SUCCESS) {
        std::cerr << "the simulator failed to start: " << opened.library->fn().nvmlErrorString(init) << "\n";
        return static_cast<int>(kExitUsage);
      }
      const int rc = write_tree(options.proc_root.c_str());
      opened.library->fn().nvmlShutdown();
      if (rc != 0) {
        std::cerr << "the simulator could not write " << options.proc_root << " (NVML code " << rc << ")\n";
        return static_cast<int>(kExitRuntime);
      }
      std::cout << options.proc_root << "\n";
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace gpuwatch
