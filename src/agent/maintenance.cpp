#include "agent/maintenance.h"

#include <string>

namespace gpuwatch {

std::function<bool(const DeviceIdentity&, std::int64_t now_ms)> silenced_gpus(
    std::shared_ptr<const alerting::AlertingService> alerts) {
  return [alerts = std::move(alerts)](const DeviceIdentity& id, std::int64_t now_ms) {
    const std::string gpu = std::to_string(id.index);
    if (alerts->silenced({{"gpu", gpu}, {"uuid", id.uuid}}, now_ms)) return true;
    return id.is_mig_instance && alerts->silenced({{"gpu", gpu}, {"uuid", id.parent_uuid}}, now_ms);
  };
}

}  // namespace gpuwatch
