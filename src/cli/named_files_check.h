// `gpuwatch config check` reads every file and directory a config names, as the agent would use it: the
// token file, the maintenance windows, the data dir, the scenario, the roots the agent reads from. A problem
// the agent would only log at start (and then run without that part) fails the check.
#pragma once

#include <string>
#include <vector>

#include "config/agent_options.h"

namespace gpuwatch {

// Problems with the paths `options` set to something other than their defaults, each "key: path: reason".
std::vector<std::string> check_named_files(const AgentOptions& options);

}  // namespace gpuwatch
