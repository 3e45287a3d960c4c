#include "config/config_file.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "config/scrape_section.h"
#include "config/remote_write_config.h"
#include "config/yaml_duplicate_keys.h"
#include "core/file_io.h"
#include "core/spelling.h"

namespace gpuwatch {
namespace {

ConfigError error_at(const std::string& file, const YAML::Mark& mark, std::string message) {
  // yaml-cpp marks are 0-based; a null mark (-1) means "the whole file".
  return ConfigError{file, mark.line >= 0 ? mark.line + 1 : 1, mark.column >= 0 ? mark.column + 1 : 1,
                     std::move(message)};
}

std::string unknown_key_message(const std::string& key) {
  std::vector<std::string_view> keys;
  for (const auto& spec : option_table()) keys.push_back(spec.key);
  keys.push_back("remote_write");
  std::string message = "unknown key '" + key + "'";
  const std::string hint = closest_match(key, keys);
  if (!hint.empty()) message += " (did you mean '" + hint + "'?)";
  return message;
}

}  // namespace

std::string ConfigError::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::vector<ConfigError> apply_config_file(const std::string& path, AgentOptions& options,
                                           OptionCommand reader) {
  std::vector<ConfigError> errors;
  const auto text = read_file(path);
  if (!text) {
    errors.push_back({path, 0, 0, "cannot open the file"});
    return errors;
  }

  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    errors.push_back(error_at(path, e.mark, "invalid YAML: " + e.msg));
    return errors;
  }
  if (root.IsNull()) return errors;  // an empty file is a valid config with every default
  if (!root.IsMap()) {
    errors.push_back(error_at(path, root.Mark(), "expected a mapping of settings (key: value)"));
    return errors;
  }

  for (const auto& duplicate : find_duplicate_keys(root))
    errors.push_back(error_at(path, duplicate.at, duplicate.message()));
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>("");
    if (key == "scrape") {  // a section of its own (a list of targets), not a single setting
      if (reader == kAgentCommand) read_scrape_section(entry.second, path, options.scrape, errors);
      continue;
    }
    if (key == "remote_write") {  // a list of mappings, the one setting no flag can spell
      if (reader == kAgentCommand) parse_remote_write_list(path, entry.second, options.remote_write, errors);
      continue;
    }
    const OptionSpec* spec = find_option(key);
    if (!spec) {
      errors.push_back(error_at(path, entry.first.Mark(), unknown_key_message(key)));
      continue;
    }
    if (!spec->taken_by(reader)) continue;
    const YAML::Node& value = entry.second;
    if (!value.IsScalar()) {
      errors.push_back(
          error_at(path, value.Mark(),
                   "'" + key + "' expects a single value (" + std::string(spec->value_name) + ")"));
      continue;
    }
    if (auto problem = spec->apply(options, value.Scalar())) {
      errors.push_back(
          error_at(path, value.Mark(), "'" + key + "': " + *problem + ", got '" + value.Scalar() + "'"));
    }
  }
  return errors;
}

}  // namespace gpuwatch
