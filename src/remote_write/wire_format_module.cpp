#include "remote_write/wire_format_module.h"

#include <variant>

#include "core/optional_module.h"

namespace gpuwatch::remote_write {

std::shared_ptr<const WireFormat> open_wire_format(const std::string& module_path) {
  auto opened = OptionalModule::open(module_path, kModuleFileName, kOpenWireFormatSymbol);
  if (auto* why = std::get_if<std::string>(&opened))
    throw ModuleMissing("module_missing: the remote-write module: " + *why);
  auto& module = std::get<OptionalModule>(opened);
  std::unique_ptr<WireFormat> format;
  module.entry<OpenWireFormat>()(&format);
  if (!format)
    throw ModuleMissing("module_missing: the remote-write module " + module.path() + " made no format");
  return std::move(module).keep_with(std::move(format));
}

}  // namespace gpuwatch::remote_write
