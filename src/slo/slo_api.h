// GET /api/v1/slos: {"status":"success","data":[...]}, one entry per SLO with its objective, SLI now (5m) and
// over the period, budget remaining, burn rate per window, alert state, the GPUs serving it and the GPU
// cause.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "http/http_route.h"
#include "slo/slo_engine.h"

namespace gpuwatch::slo {

std::string slos_json(const std::vector<SloStatus>& slos);
HttpRoute slos_route(std::shared_ptr<const SloEngine> engine);

}  // namespace gpuwatch::slo
