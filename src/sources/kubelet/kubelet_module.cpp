#include "sources/kubelet/kubelet_module.h"

namespace gpuwatch::kubelet {

std::variant<ModuleClient, PodResourcesError> open_pod_resources(const std::string& socket_path,
                                                                 const std::string& module_path) {
  auto opened = OptionalModule::open(module_path, kModuleFileName, kOpenPodResourcesSymbol);
  if (auto* why = std::get_if<std::string>(&opened))
    return PodResourcesError{"module_missing", "the kubelet module: " + *why};
  ModuleClient loaded;
  loaded.module_ = std::get<OptionalModule>(std::move(opened));
  loaded.module_.entry<OpenPodResources>()(socket_path.c_str(), &loaded.client_);
  if (!loaded.client_) {
    return PodResourcesError{"module_missing",
                             "the kubelet module " + loaded.module_.path() + " made no client"};
  }
  return loaded;
}

}  // namespace gpuwatch::kubelet
