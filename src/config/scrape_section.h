// Reads the `scrape:` section (config/scrape_config.h) from gpuwatch.yaml or a scenario's `gpuwatch:`
// section, reporting every problem at file:line:column with what was expected.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "config/config_file.h"
#include "config/scrape_config.h"

namespace gpuwatch {

// Replaces `out` with the section's targets and discovery; appends the problems found to `errors`.
void read_scrape_section(const YAML::Node& node, const std::string& file, ScrapeConfig& out,
                         std::vector<ConfigError>& errors);

// Applies a scenario's `gpuwatch:` section (the settings a game day needs: `scrape:`, and `slo_files:`
// relative to the scenario's folder) to the options; the problems found, at file:line:column.
std::vector<ConfigError> apply_scenario_settings(const std::string& scenario_path, AgentOptions& options);

}  // namespace gpuwatch
