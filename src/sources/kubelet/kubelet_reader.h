// The kubelet source of the host reader: the PodResources API read every tick through its socket, whose
// directory is watched so that a restarted kubelet (a new socket) is reconnected to at once. While the
// kubelet cannot be read the source fails with a reason (socket_missing, unavailable, deadline_exceeded,
// rpc_failed) and its last reading is carried for kCarryMs, so a kubelet restart does not unname every pod
// for a tick; after that the GPUs show as allocated to nobody. The client comes from the kubelet module,
// loaded when the reader is made; where it cannot be loaded every read fails with module_missing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "sources/kubelet/device_allocation.h"
#include "sources/kubelet/kubelet_module.h"
#include "sources/kubelet/socket_watch.h"

namespace gpuwatch::kubelet {

struct KubeletRead {
  std::shared_ptr<const PodResourcesReading> reading;  // never null; shared while unchanged
  std::optional<PodResourcesError> error;              // set when this read failed
};

class KubeletReader {
 public:
  static constexpr std::int64_t kCarryMs = 60'000;
  // module_path: the kubelet module; "" = the one next to the binary (default_module_path).
  explicit KubeletReader(const std::string& socket_path, const std::string& module_path = "");
  KubeletRead read(std::int64_t now_ms, std::chrono::milliseconds deadline);

 private:
  SocketWatch watch_;
  std::variant<ModuleClient, PodResourcesError> client_;
  std::shared_ptr<const PodResourcesReading> last_ = std::make_shared<const PodResourcesReading>();
  std::optional<std::int64_t> last_ok_ms_;
};

}  // namespace gpuwatch::kubelet
