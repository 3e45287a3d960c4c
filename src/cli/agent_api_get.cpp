#include "cli/agent_api_get.h"

#include <iostream>

#include "cli/commands.h"
#include "net/http_client.h"
#include "net/url.h"

namespace gpuwatch {

AgentApiReply get_agent_api(const std::string& command, const std::string& url, const std::string& api_path) {
  std::string error;
  const auto agent = net::parse_url(url, &error);
  if (!agent) {
    std::cerr << "gpuwatch " << command << ": --url: " << error << "\n";
    return {{}, kExitUsage};
  }
  const std::string base = agent->target == "/" ? "" : agent->target;
  const std::string shown = net::redacted_url(url);
  net::Result res;
  try {
    net::ClientOptions options;
    options.timeouts = {std::chrono::seconds(3), std::chrono::seconds(10), {}};
    res = net::make_http_client(*agent, options)->send({"GET", base + api_path, {}, {}, {}, {}});
  } catch (const net::ClientError& e) {  // an https:// URL without the TLS module
    std::cerr << "gpuwatch " << command << ": " << e.what() << "\n";
    return {{}, kExitRuntime};
  }
  if (!res.ok()) {
    std::cerr << "gpuwatch " << command << ": no agent answers at " << shown << " (" << res.failure.message
              << "); is `gpuwatch agent` running there? Pass --url to ask another.\n";
    return {{}, kExitRuntime};
  }
  auto body = nlohmann::json::parse(res.response.body, nullptr, false);
  if (res.response.status != 200 || body.is_discarded() || !body.contains("data")) {
    std::cerr << "gpuwatch " << command << ": " << shown << api_path << " answered HTTP "
              << res.response.status << ": " << res.response.body.substr(0, 300) << "\n";
    return {{}, kExitRuntime};
  }
  return {std::move(body), kExitOk};
}

}  // namespace gpuwatch
