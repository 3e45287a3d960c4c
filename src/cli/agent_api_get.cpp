#include "cli/agent_api_get.h"

#include <httplib.h>

#include <iostream>

#include "alerting/receiver.h"
#include "cli/commands.h"

namespace gpuwatch {

AgentApiReply get_agent_api(const std::string& command, const std::string& url, const std::string& api_path) {
  std::string origin, path;
  if (auto error = alerting::split_url(url, origin, path); !error.empty()) {
    std::cerr << "gpuwatch " << command << ": --url: " << error << "\n";
    return {{}, kExitUsage};
  }
  httplib::Client client(origin);
  client.set_connection_timeout(std::chrono::seconds(3));
  client.set_read_timeout(std::chrono::seconds(10));
  const std::string base = path == "/" ? "" : path;
  const auto res = client.Get(base + api_path);
  if (!res) {
    std::cerr << "gpuwatch " << command << ": no agent answers at " << url << " ("
              << httplib::to_string(res.error())
              << "); is `gpuwatch agent` running there? Pass --url to ask another.\n";
    return {{}, kExitRuntime};
  }
  auto body = nlohmann::json::parse(res->body, nullptr, false);
  if (res->status != 200 || body.is_discarded() || !body.contains("data")) {
    std::cerr << "gpuwatch " << command << ": " << url << api_path << " answered HTTP " << res->status << ": "
              << res->body.substr(0, 300) << "\n";
    return {{}, kExitRuntime};
  }
  return {std::move(body), kExitOk};
}

}  // namespace gpuwatch
