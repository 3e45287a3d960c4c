// Reads gpuwatch.yaml. Every problem is reported, not just the first, each with file:line:column and what was
// expected; unknown keys get a "did you mean" hint.
#pragma once

#include <string>
#include <vector>

#include "config/agent_options.h"

namespace gpuwatch {

struct ConfigError {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string message;

  std::string to_string() const;  // "file:line:column: message"
};

// Applies the file's settings on top of `options`. Returns every error found; options are changed only for
// the keys that were valid. A command other than the agent reads only the keys it takes (the option table
// says which): the others are skipped unread, as `status` shares the agent's file. An unknown key is an error
// for every command.
std::vector<ConfigError> apply_config_file(const std::string& path, AgentOptions& options,
                                           OptionCommand reader = kAgentCommand);

}  // namespace gpuwatch
