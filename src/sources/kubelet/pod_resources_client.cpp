#include "sources/kubelet/pod_resources_client.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include "pod_resources.grpc.pb.h"

namespace gpuwatch::kubelet {

struct PodResourcesClient::Channel {
  std::unique_ptr<v1::PodResourcesLister::Stub> stub;
};

namespace {

PodResourcesError rpc_error(const grpc::Status& status, const std::string& method) {
  std::string reason = "rpc_failed";
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) reason = "deadline_exceeded";
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) reason = "unavailable";
  return {reason, method + ": " + status.error_message()};
}

void set_deadline(grpc::ClientContext& context, std::chrono::milliseconds deadline) {
  context.set_deadline(std::chrono::system_clock::now() + deadline);
}

}  // namespace

PodResourcesClient::PodResourcesClient(std::string socket_path) : socket_path_(std::move(socket_path)) {}

PodResourcesClient::~PodResourcesClient() = default;

void PodResourcesClient::reconnect() {
  channel_.reset();
  allocatable_unimplemented_ = false;
}

std::variant<PodResourcesReading, PodResourcesError> PodResourcesClient::read(
    std::chrono::milliseconds deadline) {
  struct stat st {};
  if (::stat(socket_path_.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    channel_.reset();
    return PodResourcesError{"socket_missing", "no kubelet socket at " + socket_path_};
  }
  if (!channel_) {
    grpc::ChannelArguments args;
    // A kubelet that went away is tried again at once on the next read, not after gRPC's backoff.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    auto channel =
        grpc::CreateCustomChannel("unix://" + socket_path_, grpc::InsecureChannelCredentials(), args);
    channel_ = std::make_unique<Channel>(Channel{v1::PodResourcesLister::NewStub(channel)});
  }

  PodResourcesReading out;
  {
    grpc::ClientContext context;
    set_deadline(context, deadline);
    v1::ListPodResourcesResponse response;
    const grpc::Status status = channel_->stub->List(&context, v1::ListPodResourcesRequest{}, &response);
    if (!status.ok()) return rpc_error(status, "List");
    for (const auto& pod : response.pod_resources()) {
      for (const auto& container : pod.containers()) {
        for (const auto& devices : container.devices()) {
          for (const auto& id : devices.device_ids()) {
            out.allocations.push_back(
                {devices.resource_name(), id, pod.namespace_(), pod.name(), container.name()});
          }
        }
        for (const auto& claim : container.dynamic_resources()) {
          for (const auto& resource : claim.claim_resources()) {
            ClaimAllocation a{pod.namespace_(),
                              pod.name(),
                              container.name(),
                              claim.claim_namespace(),
                              claim.claim_name(),
                              resource.driver_name(),
                              resource.pool_name(),
                              resource.device_name(),
                              {}};
            for (const auto& cdi : resource.cdi_devices()) a.cdi_devices.push_back(cdi.name());
            out.claims.push_back(std::move(a));
          }
        }
      }
    }
  }
  if (!allocatable_unimplemented_) {
    grpc::ClientContext context;
    set_deadline(context, deadline);
    v1::AllocatableResourcesResponse response;
    const grpc::Status status =
        channel_->stub->GetAllocatableResources(&context, v1::AllocatableResourcesRequest{}, &response);
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      allocatable_unimplemented_ = true;  // kubelets before 1.23, or the feature gate off
    } else if (!status.ok()) {
      return rpc_error(status, "GetAllocatableResources");
    } else {
      for (const auto& devices : response.devices())
        for (const auto& id : devices.device_ids()) out.allocatable.push_back(id);
    }
  }
  return out;
}

}  // namespace gpuwatch::kubelet
