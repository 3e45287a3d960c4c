// SLO files as people write them: Sloth's `version: "prometheus/v1"` (one service, its slos) and OpenSLO
// `apiVersion: openslo/v1` (documents of kind SLO, SLI and Service; other kinds are read past). Which one a
// file is comes from its first document. Every problem is a SpecError at the file's line and column.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "slo/slo_spec.h"
#include "slo/spec_error.h"

namespace gpuwatch::slo {

std::vector<SloSpec> load_slo_file(const std::string& path);
// The same from text already read (tests, a scenario's gpuwatch: section); `file` names it in errors.
std::vector<SloSpec> parse_slo_text(const std::string& text, const std::string& file);

std::vector<SloSpec> parse_sloth(const YAML::Node& doc, const std::string& file);
std::vector<SloSpec> parse_openslo(const std::vector<YAML::Node>& docs, const std::string& file);

// Shared by both readers: the error at a node, a required child, and the node's "file:line".
SpecError error_at(const std::string& file, const YAML::Node& node, const std::string& message);
const YAML::Node required(const YAML::Node& parent, const char* key, const std::string& file);
std::string origin_of(const std::string& file, const YAML::Node& node);

}  // namespace gpuwatch::slo
