#include "core/optional_module.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

namespace gpuwatch {

std::string default_module_path(const std::string& file_name) {
  std::error_code ec;
  const auto bindir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  const std::filesystem::path installed =
      (bindir / GPUWATCH_MODULES_FROM_BINDIR / file_name).lexically_normal();
  if (ec) return installed.string();
  if (const auto beside = bindir / file_name; std::filesystem::exists(beside, ec)) return beside.string();
  return installed.string();
}

void OptionalModule::Closer::operator()(void* handle) const {
  dlclose(handle);
}

std::variant<OptionalModule, std::string> OptionalModule::open(const std::string& path,
                                                               const std::string& file_name,
                                                               const char* symbol) {
  OptionalModule module;
  module.path_ = path.empty() ? default_module_path(file_name) : path;
  module.handle_.reset(dlopen(module.path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE));
  if (!module.handle_) {
    const char* why = dlerror();
    return "cannot load " + module.path_ + ": " + (why ? why : "unknown error");
  }
  module.entry_ = dlsym(module.handle_.get(), symbol);
  if (!module.entry_) return module.path_ + " has no " + symbol + " (built from another tree?)";
  return module;
}

}  // namespace gpuwatch
