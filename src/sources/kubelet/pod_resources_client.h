// A client of the kubelet's PodResources v1 API over its unix socket: List (the allocations) and, where the
// kubelet offers it, GetAllocatableResources. Each call has a deadline, so a kubelet that accepts and never
// answers costs at most that. The channel is made again on reconnect(): after a kubelet restart the socket is
// a new file, and gRPC's own reconnection backoff (up to two minutes) would leave pods unnamed that long.
// Built into the kubelet module only (see pod_resources_api.h).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <variant>

#include "sources/kubelet/pod_resources_api.h"

namespace gpuwatch::kubelet {

class PodResourcesClient final : public PodResourcesApi {
 public:
  explicit PodResourcesClient(std::string socket_path);
  ~PodResourcesClient() override;
  PodResourcesClient(const PodResourcesClient&) = delete;
  PodResourcesClient& operator=(const PodResourcesClient&) = delete;

  std::variant<PodResourcesReading, PodResourcesError> read(std::chrono::milliseconds deadline) override;
  void reconnect() override;
  const std::string& socket_path() const { return socket_path_; }

 private:
  struct Channel;
  std::string socket_path_;
  std::unique_ptr<Channel> channel_;
  bool allocatable_unimplemented_ = false;  // an older kubelet: not asked again
};

}  // namespace gpuwatch::kubelet
