#include "cli/named_files_check.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "agent/alerting_setup.h"
#include "alerting/silences_file.h"

namespace gpuwatch {
namespace {

namespace fs = std::filesystem;

std::string readable_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path + ": is a directory, expected a file";
  std::ifstream in(path);
  if (!in) return path + ": cannot read: " + std::strerror(errno);
  return "";
}

std::string directory(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return path + ": no such directory";
  if (!fs::is_directory(path, ec)) return path + ": not a directory";
  return "";
}

// The agent creates the data dir when it is missing: its nearest existing ancestor must be a writable
// directory.
std::string usable_data_dir(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec) && p != p.root_path()) p = p.parent_path();
  if (!fs::is_directory(p, ec)) return path + ": " + p.string() + " is not a directory";
  if (::access(p.c_str(), W_OK | X_OK) != 0)
    return path + ": cannot write in " + p.string() + ": " + std::strerror(errno);
  return "";
}

}  // namespace

std::vector<std::string> check_named_files(const AgentOptions& options) {
  const AgentOptions defaults;
  std::vector<std::string> problems;
  auto add = [&problems](const char* key, const std::string& problem) {
    if (!problem.empty()) problems.push_back(std::string(key) + ": " + problem);
  };
  if (!options.api_token_file.empty()) {
    std::string error;
    read_api_token(options.api_token_file, error);
    add("api_token_file", error);
  }
  if (!options.silences_file.empty()) {
    for (const auto& e : alerting::read_silences_file(options.silences_file, false).errors)
      add("silences_file", e);
  }
  if (!options.sim_scenario.empty()) add("sim_scenario", readable_file(options.sim_scenario));
  if (!options.data_dir.empty() && options.data_dir != defaults.data_dir)
    add("data_dir", usable_data_dir(options.data_dir));
  if (options.runbook_dir != defaults.runbook_dir && !options.runbook_dir.empty())
    add("runbook_dir", directory(options.runbook_dir));
  if (options.proc_root != defaults.proc_root && !options.proc_root.empty())
    add("proc_root", directory(options.proc_root));
  if (options.sysfs_root != defaults.sysfs_root && !options.sysfs_root.empty())
    add("sysfs_root", directory(options.sysfs_root));
  if (options.kmsg != defaults.kmsg && !options.kmsg.empty()) add("kmsg", readable_file(options.kmsg));
  if (options.nvml_library.find('/') != std::string::npos)
    add("nvml_library", readable_file(options.nvml_library));
  return problems;
}

}  // namespace gpuwatch
