#include <stdexcept>
#include <variant>

#include "cli/top/terminal.h"
#include "core/optional_module.h"

namespace gpuwatch::top {

std::shared_ptr<Terminal> open_terminal(const std::string& module_path) {
  auto opened = OptionalModule::open(module_path, kTerminalModuleFileName, kOpenTerminalSymbol);
  if (auto* why = std::get_if<std::string>(&opened))
    throw std::runtime_error("module_missing: the terminal module: " + *why);
  auto& module = std::get<OptionalModule>(opened);
  std::unique_ptr<Terminal> terminal;
  std::string error;
  module.entry<OpenTerminal>()(&terminal, &error);
  if (!terminal)
    throw std::runtime_error(error.empty() ? "the terminal module " + module.path() + " made no terminal"
                                           : error);
  return std::move(module).keep_with(std::move(terminal));
}

}  // namespace gpuwatch::top
