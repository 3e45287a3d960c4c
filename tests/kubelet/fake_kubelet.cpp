#include "fake_kubelet.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <map>
#include <sstream>
#include <stdexcept>

#include "pod_resources.grpc.pb.h"

namespace gpuwatch::test {

std::vector<kubelet::DeviceAllocation> allocations_from_sim(const std::string& text) {
  std::vector<kubelet::DeviceAllocation> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    kubelet::DeviceAllocation a;
    std::getline(f, a.namespace_name, '\t');
    std::getline(f, a.pod, '\t');
    std::getline(f, a.container, '\t');
    std::getline(f, a.resource, '\t');
    std::getline(f, a.device_id, '\t');
    out.push_back(a);
  }
  return out;
}

struct FakeKubelet::State {
  std::mutex mu;
  std::vector<kubelet::DeviceAllocation> allocations;
  std::vector<kubelet::ClaimAllocation> claims;
  std::vector<std::string> allocatable;
  bool allocatable_unimplemented = false;
  int list_calls = 0;
};

struct FakeKubelet::Service final : v1::PodResourcesLister::Service {
  explicit Service(std::shared_ptr<State> s) : state(std::move(s)) {}

  grpc::Status List(grpc::ServerContext*, const v1::ListPodResourcesRequest*,
                    v1::ListPodResourcesResponse* response) override {
    std::lock_guard lock(state->mu);
    ++state->list_calls;
    // One PodResources per pod, one ContainerResources per container, one ContainerDevices per resource,
    // as the kubelet groups them.
    std::map<std::pair<std::string, std::string>, v1::PodResources*> pods;
    const auto container_of = [&](const std::string& ns, const std::string& name, const std::string& c) {
      auto& pod = pods[{ns, name}];
      if (!pod) {
        pod = response->add_pod_resources();
        pod->set_name(name);
        pod->set_namespace_(ns);
      }
      for (auto& existing : *pod->mutable_containers())
        if (existing.name() == c) return &existing;
      auto* container = pod->add_containers();
      container->set_name(c);
      return container;
    };
    for (const auto& a : state->allocations) {
      v1::ContainerResources* container = container_of(a.namespace_name, a.pod, a.container);
      v1::ContainerDevices* devices = nullptr;
      for (auto& d : *container->mutable_devices())
        if (d.resource_name() == a.resource) devices = &d;
      if (!devices) {
        devices = container->add_devices();
        devices->set_resource_name(a.resource);
      }
      devices->add_device_ids(a.device_id);
    }
    // One DynamicResource per claim of the container, one ClaimResource per device it was given.
    for (const auto& c : state->claims) {
      v1::ContainerResources* container = container_of(c.namespace_name, c.pod, c.container);
      v1::DynamicResource* claim = nullptr;
      for (auto& d : *container->mutable_dynamic_resources())
        if (d.claim_name() == c.claim_name && d.claim_namespace() == c.claim_namespace) claim = &d;
      if (!claim) {
        claim = container->add_dynamic_resources();
        claim->set_claim_name(c.claim_name);
        claim->set_claim_namespace(c.claim_namespace);
      }
      auto* resource = claim->add_claim_resources();
      resource->set_driver_name(c.driver);
      resource->set_pool_name(c.pool);
      resource->set_device_name(c.device);
      for (const auto& cdi : c.cdi_devices) resource->add_cdi_devices()->set_name(cdi);
    }
    return grpc::Status::OK;
  }

  grpc::Status GetAllocatableResources(grpc::ServerContext*, const v1::AllocatableResourcesRequest*,
                                       v1::AllocatableResourcesResponse* response) override {
    std::lock_guard lock(state->mu);
    if (state->allocatable_unimplemented) return {grpc::StatusCode::UNIMPLEMENTED, "not enabled"};
    auto* devices = response->add_devices();
    devices->set_resource_name("nvidia.com/gpu");
    for (const auto& id : state->allocatable) devices->add_device_ids(id);
    return grpc::Status::OK;
  }

  std::shared_ptr<State> state;
};

FakeKubelet::FakeKubelet(std::string socket_path)
    : socket_path_(std::move(socket_path)), state_(std::make_shared<State>()) {}

FakeKubelet::~FakeKubelet() {
  stop();
}

void FakeKubelet::start() {
  if (server_) return;
  ::unlink(socket_path_.c_str());
  service_ = std::make_unique<Service>(state_);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix://" + socket_path_, grpc::InsecureServerCredentials());
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (!server_) throw std::runtime_error("the fake kubelet cannot listen on " + socket_path_);
}

void FakeKubelet::stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  server_->Wait();
  server_.reset();
  service_.reset();
  ::unlink(socket_path_.c_str());  // as the kubelet leaves it: gone
}

void FakeKubelet::set_allocations(std::vector<kubelet::DeviceAllocation> allocations) {
  std::lock_guard lock(state_->mu);
  state_->allocations = std::move(allocations);
}

void FakeKubelet::set_claims(std::vector<kubelet::ClaimAllocation> claims) {
  std::lock_guard lock(state_->mu);
  state_->claims = std::move(claims);
}

void FakeKubelet::set_allocatable(std::vector<std::string> device_ids) {
  std::lock_guard lock(state_->mu);
  state_->allocatable = std::move(device_ids);
}

void FakeKubelet::set_allocatable_unimplemented(bool unimplemented) {
  std::lock_guard lock(state_->mu);
  state_->allocatable_unimplemented = unimplemented;
}

int FakeKubelet::list_calls() const {
  std::lock_guard lock(state_->mu);
  return state_->list_calls;
}

}  // namespace gpuwatch::test
