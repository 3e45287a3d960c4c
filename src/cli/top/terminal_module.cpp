#include <stdexcept>

#include "cli/top/terminal.h"
#include "core/optional_module.h"

namespace gpuwatch::top {

std::shared_ptr<Terminal> open_terminal(const std::string& module_path) {
  return make_with_module<Terminal, std::runtime_error, OpenTerminal>(module_path, kTerminalModuleFileName,
                                                                      kOpenTerminalSymbol, "terminal");
}

}  // namespace gpuwatch::top
