// Loads the remote-write module (gpuwatch-remote-write.so: protobuf and snappy) with dlopen, only when a
// receiver is configured. A missing or broken module turns off remote write alone, with reason
// module_missing; the rest of the agent never needs it.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "remote_write/wire_format.h"

namespace gpuwatch::remote_write {

// what(): "module_missing: " and the path with what the loader said.
class ModuleMissing : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Loads module_path ("" = the default gpuwatch-remote-write.so, default_module_path) and makes its wire
// format; the module stays loaded for as long as the format lives. Throws ModuleMissing.
std::shared_ptr<const WireFormat> open_wire_format(const std::string& module_path);

}  // namespace gpuwatch::remote_write
