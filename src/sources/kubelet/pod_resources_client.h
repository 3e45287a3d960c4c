// A client of the kubelet's PodResources v1 API over its unix socket: List (the allocations) and, where the
// kubelet offers it, GetAllocatableResources. Each call has a deadline, so a kubelet that accepts and never
// answers costs at most that. The channel is made again on reconnect(): after a kubelet restart the socket is
// a new file, and gRPC's own reconnection backoff (up to two minutes) would leave pods unnamed that long.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <variant>

#include "sources/kubelet/device_allocation.h"

namespace gpuwatch::kubelet {

// Why a read failed: a fixed reason (socket_missing, unavailable, deadline_exceeded, rpc_failed) and what
// the kubelet answered.
struct PodResourcesError {
  std::string reason;
  std::string message;
};

class PodResourcesClient {
 public:
  explicit PodResourcesClient(std::string socket_path);
  ~PodResourcesClient();
  PodResourcesClient(const PodResourcesClient&) = delete;
  PodResourcesClient& operator=(const PodResourcesClient&) = delete;

  std::variant<PodResourcesReading, PodResourcesError> read(std::chrono::milliseconds deadline);
  // Drops the channel; the next read connects afresh.
  void reconnect();
  const std::string& socket_path() const { return socket_path_; }

 private:
  struct Channel;
  std::string socket_path_;
  std::unique_ptr<Channel> channel_;
  bool allocatable_unimplemented_ = false;  // an older kubelet: not asked again
};

}  // namespace gpuwatch::kubelet
