#include "sources/kubelet/kubelet_module.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

namespace gpuwatch::kubelet {

std::string default_module_path() {
  std::error_code ec;
  const auto bindir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  const std::filesystem::path installed =
      (bindir / GPUWATCH_MODULES_FROM_BINDIR / kModuleFileName).lexically_normal();
  if (ec) return installed.string();
  if (const auto beside = bindir / kModuleFileName; std::filesystem::exists(beside, ec))
    return beside.string();
  return installed.string();
}

void ModuleClient::Closer::operator()(void* handle) const {
  dlclose(handle);
}

std::variant<ModuleClient, PodResourcesError> open_pod_resources(const std::string& socket_path,
                                                                 const std::string& module_path) {
  const std::string path = module_path.empty() ? default_module_path() : module_path;
  // RTLD_NODELETE: gRPC keeps threads and exit handlers of its own, which must not outlive its code; the
  // handle is closed with the client, the code stays mapped until the process ends.
  ModuleClient loaded;
  loaded.handle_.reset(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE));
  if (!loaded.handle_) {
    const char* why = dlerror();
    return PodResourcesError{"module_missing",
                             "cannot load the kubelet module " + path + ": " + (why ? why : "unknown error")};
  }
  void* symbol = dlsym(loaded.handle_.get(), kOpenPodResourcesSymbol);
  if (!symbol) {
    return PodResourcesError{"module_missing", "the kubelet module " + path + " has no " +
                                                   kOpenPodResourcesSymbol + " (built from another tree?)"};
  }
  reinterpret_cast<OpenPodResources*>(symbol)(socket_path.c_str(), &loaded.client_);
  if (!loaded.client_) {
    return PodResourcesError{"module_missing", "the kubelet module " + path + " made no client"};
  }
  return loaded;
}

}  // namespace gpuwatch::kubelet
