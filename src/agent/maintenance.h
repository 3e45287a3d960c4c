// Which GPUs are in maintenance, for accounting: a GPU is while an active silence selects its alerts' labels
// (gpu, uuid, with the hostname and extra labels), the way an operator silences a GPU or a node for the
// length of the work (the config's maintenance windows, or a silence made through the API). A silence that
// selects by alertname mutes alerts, not a GPU: it does not count. A MIG instance is in maintenance when its
// GPU is, or it is itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "alerting/alerting_service.h"
#include "core/snapshot.h"

namespace gpuwatch {

std::function<bool(const DeviceIdentity&, std::int64_t now_ms)> silenced_gpus(
    std::shared_ptr<const alerting::AlertingService> alerts);

}  // namespace gpuwatch
