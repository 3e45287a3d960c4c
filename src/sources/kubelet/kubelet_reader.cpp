#include "sources/kubelet/kubelet_reader.h"

namespace gpuwatch::kubelet {

KubeletReader::KubeletReader(const std::string& socket_path, const std::string& module_path)
    : watch_(socket_path), client_(open_pod_resources(socket_path, module_path)) {}

KubeletRead KubeletReader::read(std::int64_t now_ms, std::chrono::milliseconds deadline) {
  const bool changed = watch_.changed();
  auto* client = std::get_if<ModuleClient>(&client_);
  if (changed && client) (*client)->reconnect();
  auto result =
      client ? (*client)->read(deadline)
             : std::variant<PodResourcesReading, PodResourcesError>{std::get<PodResourcesError>(client_)};
  if (auto* reading = std::get_if<PodResourcesReading>(&result)) {
    if (!(*reading == *last_)) last_ = std::make_shared<const PodResourcesReading>(std::move(*reading));
    last_ok_ms_ = now_ms;
    return {last_, std::nullopt};
  }
  if (!last_ok_ms_ || now_ms - *last_ok_ms_ > kCarryMs) {
    if (!last_->allocations.empty() || !last_->allocatable.empty())
      last_ = std::make_shared<const PodResourcesReading>();
  }
  return {last_, std::get<PodResourcesError>(std::move(result))};
}

}  // namespace gpuwatch::kubelet
