// The boundary between the agent and the kubelet module (gpuwatch-kubelet.so): the PodResources client the
// kubelet source reads through, and the one C entry point the module exports to make one. gRPC and protobuf
// live only behind it, so an agent without a kubelet (and every one-shot command) maps none of their
// libraries. The module and the binary are built together from one tree; the entry point's name carries the
// version of this interface, so a module from another build is refused rather than called.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <variant>

#include "sources/kubelet/device_allocation.h"

namespace gpuwatch::kubelet {

// Why a read failed: a fixed reason (module_missing, socket_missing, unavailable, deadline_exceeded,
// rpc_failed) and what the kubelet (or the loader) answered.
struct PodResourcesError {
  std::string reason;
  std::string message;
};

class PodResourcesApi {
 public:
  virtual ~PodResourcesApi() = default;
  virtual std::variant<PodResourcesReading, PodResourcesError> read(std::chrono::milliseconds deadline) = 0;
  // Drops the channel; the next read connects afresh.
  virtual void reconnect() = 0;
};

// The module's entry point: sets *out to a client of the PodResources API at socket_path.
using OpenPodResources = void(const char* socket_path, std::unique_ptr<PodResourcesApi>* out);
inline constexpr const char* kOpenPodResourcesSymbol = "gpuwatch_kubelet_open_v1";
inline constexpr const char* kModuleFileName = "gpuwatch-kubelet.so";

}  // namespace gpuwatch::kubelet
