// Prometheus's HTTP query API over a SeriesSource, as routes for the agent's HTTP server, so Grafana can use
// the agent as a Prometheus data source: /api/v1/query, /api/v1/query_range, /api/v1/series,
// /api/v1/labels, /api/v1/label/<name>/values (with Prometheus 3's `limit`), /api/v1/metadata,
// /api/v1/query_exemplars (the agent keeps no exemplars: always an empty list), /api/v1/status/buildinfo
// (GET and POST form). Same JSON and error shapes as Prometheus: bad_data -> 400, execution -> 422,
// timeout -> 503. Error messages echo the query's text made valid UTF-8.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/series.h"
#include "http/http_route.h"
#include "query/api_metadata.h"
#include "query/evaluator.h"

namespace gpuwatch::query {

struct QueryApiOptions {
  EvalOptions eval;                      // the lookback and the limits: timeout, samples, points per series
  std::function<std::int64_t()> now_ms;  // the default query time; the system clock when empty
  PublishedMetadata published;           // families for /api/v1/metadata beyond the snapshot's and dcgm's
  // Set when the source holds only the latest snapshot (the agent's store is off): range queries fail
  // (execution, HTTP 422) with this reason instead of answering a range with one point in it.
  std::string no_history;
};

std::vector<HttpRoute> query_routes(std::shared_ptr<const store::SeriesSource> source,
                                    QueryApiOptions options = {});

}  // namespace gpuwatch::query
