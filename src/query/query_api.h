// Prometheus's HTTP query API over a SeriesSource, as routes for the agent's HTTP server, so Grafana can use
// the agent as a Prometheus data source: /api/v1/query, /api/v1/query_range, /api/v1/series,
// /api/v1/labels, /api/v1/label/<name>/values, /api/v1/metadata, /api/v1/status/buildinfo (GET and POST
// form). Same JSON and error shapes as Prometheus: bad_data -> 400, execution -> 422, timeout -> 503. Error
// messages echo the query's text made valid UTF-8.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/series.h"
#include "http/http_route.h"
#include "query/evaluator.h"

namespace gpuwatch::query {

struct QueryApiOptions {
  EvalOptions eval;                      // the lookback and the limits: timeout, samples, points per series
  std::function<std::int64_t()> now_ms;  // the default query time; the system clock when empty
};

std::vector<HttpRoute> query_routes(std::shared_ptr<const store::SeriesSource> source,
                                    QueryApiOptions options = {});

}  // namespace gpuwatch::query
