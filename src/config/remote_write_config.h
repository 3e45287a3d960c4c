// The `remote_write:` list of gpuwatch.yaml: one mapping per receiver, in the shape of Prometheus's own
// remote_write section where it has the same setting (url, headers, basic_auth, authorization or
// bearer_token, tls_config, write_relabel_configs with keep/drop), plus the disk queue's size.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "config/config_file.h"
#include "config/remote_write_target.h"

namespace gpuwatch {

// Parses the list into `targets` (appended). Each problem is reported at its file:line:column.
void parse_remote_write_list(const std::string& file, const YAML::Node& list,
                             std::vector<RemoteWriteTarget>& targets, std::vector<ConfigError>& errors);

}  // namespace gpuwatch
