// A fake kubelet for tests: a gRPC server speaking the real PodResources v1 protocol (the same
// pod_resources.proto, Debian's gRPC) on a unix socket, answering List (device plugin allocations and DRA
// claims) and GetAllocatableResources from what the test sets. stop() removes the socket as a kubelet does
// when it exits; start() again is a kubelet restart (a new socket file).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sources/kubelet/device_allocation.h"

namespace grpc {
class Server;
}

namespace gpuwatch::test {

// The simulator's kubelet answer (gpuwatchSimPodResources: "namespace<TAB>pod<TAB>container<TAB>resource<TAB>
// device id" a line) as the allocations a fake kubelet serves.
std::vector<kubelet::DeviceAllocation> allocations_from_sim(const std::string& text);

class FakeKubelet {
 public:
  explicit FakeKubelet(std::string socket_path);
  ~FakeKubelet();
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  void start();
  void stop();
  void set_allocations(std::vector<kubelet::DeviceAllocation> allocations);
  // DRA: each claim's device is served in its container's dynamic_resources.
  void set_claims(std::vector<kubelet::ClaimAllocation> claims);
  void set_allocatable(std::vector<std::string> device_ids);
  // An older kubelet: GetAllocatableResources answers UNIMPLEMENTED.
  void set_allocatable_unimplemented(bool unimplemented);
  int list_calls() const;

  struct State;

 private:
  std::string socket_path_;
  std::shared_ptr<State> state_;
  std::unique_ptr<grpc::Server> server_;
  struct Service;
  std::unique_ptr<Service> service_;
};

}  // namespace gpuwatch::test
