#include "config/yaml_duplicate_keys.h"

#include <map>

namespace gpuwatch {
namespace {

void walk(const YAML::Node& node, std::vector<DuplicateKey>& out) {
  if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& entry : node) {
      // Keys are scalars in both formats; a complex key cannot repeat one in a way worth reporting.
      if (entry.first.IsScalar()) {
        const auto [it, fresh] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
        if (!fresh) out.push_back({entry.first.Scalar(), entry.first.Mark(), it->second});
      }
      walk(entry.second, out);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) walk(item, out);
  }
}

}  // namespace

std::string DuplicateKey::message() const {
  return "duplicate key '" + key + "', first at line " + std::to_string(first.line + 1);
}

std::vector<DuplicateKey> find_duplicate_keys(const YAML::Node& root) {
  std::vector<DuplicateKey> out;
  walk(root, out);
  return out;
}

}  // namespace gpuwatch
