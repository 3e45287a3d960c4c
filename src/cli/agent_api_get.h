// A GET of one of a running agent's JSON APIs, for the commands that show what the agent knows (alerts, slo
// status): the parsed body, or an exit code with the reason already on stderr, naming the command and URL.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuwatch {

struct AgentApiReply {
  nlohmann::json body;  // {"status":"success","data":...} when exit_code is 0
  int exit_code = 0;  // kExitUsage for a bad --url, kExitRuntime when no agent answers or it answers an error
};

AgentApiReply get_agent_api(const std::string& command, const std::string& url, const std::string& api_path);

}  // namespace gpuwatch
