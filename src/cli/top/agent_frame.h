// A frame from what a running agent serves: its /api/v1/gpus (the snapshot's JSON, schema in docs/metrics.md)
// and its /api/v1/alerts, read back into the snapshot the agent holds, so that `top --url` draws exactly what
// `top` on the GPUs themselves draws.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "cli/top/frame.h"

namespace gpuwatch::top {

// The frame of one /api/v1/gpus answer and one /api/v1/alerts answer (null when the agent gave none). Throws
// std::runtime_error naming the field when the answer does not follow the schema.
TopFrame frame_from_agent(const nlohmann::json& gpus, const nlohmann::json& alerts);

}  // namespace gpuwatch::top
