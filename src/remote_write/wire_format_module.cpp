#include "remote_write/wire_format_module.h"

#include "core/optional_module.h"

namespace gpuwatch::remote_write {

std::shared_ptr<const WireFormat> open_wire_format(const std::string& module_path) {
  return make_with_module<WireFormat, ModuleMissing, OpenWireFormat>(module_path, kModuleFileName,
                                                                     kOpenWireFormatSymbol, "remote-write");
}

}  // namespace gpuwatch::remote_write
