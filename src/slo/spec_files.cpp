#include "slo/spec_files.h"

#include "core/file_io.h"

namespace gpuwatch::slo {

SpecError error_at(const std::string& file, const YAML::Node& node, const std::string& message) {
  const YAML::Mark m = node.Mark();  // 0-based; -1 when the node is not in the text
  return SpecError(file, m.line >= 0 ? m.line + 1 : 1, m.column >= 0 ? m.column + 1 : 1, message);
}

const YAML::Node required(const YAML::Node& parent, const char* key, const std::string& file) {
  const YAML::Node child = parent[key];
  if (!child) throw error_at(file, parent, std::string("missing \"") + key + "\"");
  return child;
}

std::string origin_of(const std::string& file, const YAML::Node& node) {
  return file + ":" + std::to_string(node.Mark().line + 1);
}

std::vector<SloSpec> parse_slo_text(const std::string& text, const std::string& file) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw SpecError(file, e.mark.line + 1, e.mark.column + 1, "invalid YAML: " + e.msg);
  }
  std::erase_if(docs, [](const YAML::Node& d) { return d.IsNull(); });
  if (docs.empty()) throw SpecError(file, 1, 1, "no SLO in the file");
  const YAML::Node& first = docs.front();
  if (!first.IsMap()) throw error_at(file, first, "expected a mapping (a Sloth or OpenSLO document)");
  if (first["version"]) {
    if (first["version"].as<std::string>("") != "prometheus/v1")
      throw error_at(file, first["version"], "unknown Sloth version (expected \"prometheus/v1\")");
    if (docs.size() > 1) throw error_at(file, docs[1], "a Sloth file holds one document");
    return parse_sloth(first, file);
  }
  if (first["apiVersion"]) return parse_openslo(docs, file);
  throw error_at(file, first,
                 "neither a Sloth (version: prometheus/v1) nor an OpenSLO (apiVersion: openslo/v1) file");
}

std::vector<SloSpec> load_slo_file(const std::string& path) {
  const auto text = read_file(path);
  if (!text) throw SpecError(path, 1, 1, "cannot read the file");
  return parse_slo_text(*text, path);
}

}  // namespace gpuwatch::slo
