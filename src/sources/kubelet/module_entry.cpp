// The kubelet module's one export: a PodResources client made inside the module, so its gRPC and protobuf
// code runs (and is mapped) only in a process that loaded it.
#include "sources/kubelet/pod_resources_client.h"

extern "C" void gpuwatch_kubelet_open_v1(const char* socket_path,
                                         std::unique_ptr<gpuwatch::kubelet::PodResourcesApi>* out) {
  *out = std::make_unique<gpuwatch::kubelet::PodResourcesClient>(socket_path);
}

// The type the loader casts the symbol to is the one this definition has.
static_assert(std::is_same_v<decltype(gpuwatch_kubelet_open_v1), gpuwatch::kubelet::OpenPodResources>);
