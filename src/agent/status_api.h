// Prometheus's status endpoints beside buildinfo (which the query API answers), for the agent:
//   /api/v1/status/runtimeinfo  start time, working directory, last (re)load, threads, CPUs, retention
//   /api/v1/status/flags        every setting the agent takes, by flag name, with the value in effect
//   /api/v1/status/config       the settings in effect as a YAML document ({"yaml": "..."})
// A setting that may hold a credential (OptionSpec::secret) is shown as "<secret>". They answer with or
// without a history store.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "config/agent_options.h"
#include "http/http_route.h"

namespace gpuwatch {

class AgentStatus {
 public:
  // Made when the agent starts (its start time is the wall clock's now).
  explicit AgentStatus(AgentOptions options);
  // The options in effect after a reload (now).
  void reloaded(const AgentOptions& options);

  std::string runtimeinfo_json() const;
  std::string flags_json() const;
  std::string config_json() const;

 private:
  mutable std::mutex mu_;
  AgentOptions options_;
  std::int64_t start_ms_;
  std::int64_t config_ms_;
};

std::vector<HttpRoute> status_routes(std::shared_ptr<const AgentStatus> status);

}  // namespace gpuwatch
