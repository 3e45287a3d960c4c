#include "agent/cost_api.h"

#include "accounting/cost_report_json.h"
#include "core/json_text.h"
#include "core/wall_clock.h"
#include "query/api_params.h"

namespace gpuwatch {
namespace {

HttpReply error(int status, const std::string& type, const std::string& message) {
  nlohmann::json body = {{"status", "error"}, {"errorType", type}, {"error", message}};
  return HttpReply{status, "application/json", body.dump(), {}};
}

HttpReply cost(const store::RetryingHistory& history, const HttpRequest& request) {
  if (!history.store()) return error(503, "unavailable", "no history: " + history.unavailable_reason());
  std::int64_t end = wall_unix_ms();
  if (request.has_param("end")) {
    const auto t = query::parse_api_time(request.param("end"));
    if (!t) return error(400, "bad_data", "invalid parameter 'end': expected RFC 3339 or Unix seconds");
    end = *t;
  }
  std::int64_t start = end - 7LL * 86'400'000;
  if (request.has_param("start")) {
    const auto t = query::parse_api_time(request.param("start"));
    if (!t) return error(400, "bad_data", "invalid parameter 'start': expected RFC 3339 or Unix seconds");
    start = *t;
  } else if (request.has_param("since")) {
    const auto d = query::parse_api_duration(request.param("since"));
    if (!d || *d <= 0)
      return error(400, "bad_data", "invalid parameter 'since': expected a duration such as 7d");
    start = end - *d;
  }
  if (start >= end) return error(400, "bad_data", "the window's start must come before its end");
  const auto report = accounting::build_cost_report(history, start, end);
  nlohmann::json body = {{"status", "success"}, {"data", accounting::to_json(report)}};
  return HttpReply{200, "application/json", body.dump(), {}};
}

}  // namespace

std::vector<HttpRoute> cost_routes(std::shared_ptr<const store::RetryingHistory> history) {
  return {{{"GET", "POST"},
           "/api/v1/cost",
           "GPU-hours by state, cost by workload and team over a window (docs/cost.md)",
           [history](const HttpRequest& request) {
             if (!history) return error(503, "unavailable", "the history store is off (--store off)");
             return cost(*history, request);
           }}};
}

}  // namespace gpuwatch
