#include "cli/open_simulator.h"

#include <iostream>

#include "agent/collector_setup.h"
#include "cli/commands.h"

namespace gpuwatch {

std::shared_ptr<NvmlLibrary> open_simulator(AgentOptions& options, int& exit_code) {
  if (auto problem = prepare_simulator(options); !problem.empty()) {
    std::cerr << problem << "\n";
    exit_code = kExitUsage;
    return nullptr;
  }
  auto opened = NvmlLibrary::open(options.nvml_library);
  if (!opened.library) {
    std::cerr << opened.error << "\n";
    exit_code = kExitNoGpu;
    return nullptr;
  }
  if (int init = opened.library->fn().nvmlInit_v2(); init != NVML_SUCCESS) {
    std::cerr << "the simulator failed to start: " << opened.library->fn().nvmlErrorString(init) << "\n";
    exit_code = kExitUsage;
    return nullptr;
  }
  return opened.library;
}

}  // namespace gpuwatch
