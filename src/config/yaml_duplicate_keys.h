// YAML allows a key once per mapping, but yaml-cpp keeps every occurrence and a lookup sees only the first:
// a config or scenario with "interval" twice silently ignored one of them. This finds them, so readers can
// report each at file:line:column with where the key first appeared.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace gpuwatch {

struct DuplicateKey {
  std::string key;
  YAML::Mark at;     // the repeated key
  YAML::Mark first;  // its first occurrence in the same mapping

  // "duplicate key 'interval', first at line 3" (lines 1-based).
  std::string message() const;
};

// Every repeated key of every mapping in the document, in document order.
std::vector<DuplicateKey> find_duplicate_keys(const YAML::Node& root);

}  // namespace gpuwatch
