// /api/v1/cost: the cost report (accounting/cost_report.h) over any window of the history, as
// {"status":"success","data":<report>}. The window: `start` and `end` (RFC 3339 or Unix seconds, as the
// query API takes them; end defaults to now), or `since` (a duration such as 7d, back from end).
// 503 while there is no history.
#pragma once

#include <memory>
#include <vector>

#include "http/http_route.h"
#include "store/retrying_history.h"

namespace gpuwatch {

std::vector<HttpRoute> cost_routes(std::shared_ptr<const store::RetryingHistory> history);

}  // namespace gpuwatch
