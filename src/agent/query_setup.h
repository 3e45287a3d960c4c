// The agent's Prometheus query API (src/query) from its options and parts: over the history store, or with
// the store off over the latest snapshot; both seen through the dcgm view (dcgm-exporter's names answered
// from the native series) and with the labels a Prometheus scraping the agent would add: instance (the
// address the agent is reached at, host:port) and job="gpuwatch".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/published_families.h"
#include "config/agent_options.h"
#include "core/snapshot.h"
#include "http/http_route.h"
#include "store/retrying_history.h"

namespace gpuwatch {

// The job label of the agent's own series in query answers.
inline constexpr std::string_view kQueryJob = "gpuwatch";

struct QuerySetup {
  std::shared_ptr<store::RetryingHistory> history;  // null: the store is off
  std::shared_ptr<const PublishedState> published;
  std::function<SnapshotPtr()> latest;
  std::string instance;  // host:port, as reachable_address() names the agent
};

std::vector<HttpRoute> query_api_routes(const AgentOptions& options, const QuerySetup& setup);

}  // namespace gpuwatch
