// Loads the kubelet module (gpuwatch-kubelet.so: the PodResources client with gRPC and protobuf) with dlopen,
// only when the kubelet source is configured. A missing or broken module is a reason (module_missing) for
// the kubelet source alone, like a missing socket; the rest of the agent never needs it.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "core/optional_module.h"
#include "sources/kubelet/pod_resources_api.h"

namespace gpuwatch::kubelet {

// A client made by the module, holding the module loaded for as long as the client lives.
class ModuleClient {
 public:
  PodResourcesApi& operator*() const { return *client_; }
  PodResourcesApi* operator->() const { return client_.get(); }

 private:
  friend std::variant<ModuleClient, PodResourcesError> open_pod_resources(const std::string&,
                                                                          const std::string&);
  OptionalModule module_;                    // declared first: closed after the client is gone
  std::unique_ptr<PodResourcesApi> client_;  // never null
};

// Loads module_path ("" = the default gpuwatch-kubelet.so, default_module_path) and makes a client of
// socket_path with it.
std::variant<ModuleClient, PodResourcesError> open_pod_resources(const std::string& socket_path,
                                                                 const std::string& module_path);

}  // namespace gpuwatch::kubelet
