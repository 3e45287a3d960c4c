#include "sources/hpc_jobs/job_mapping.h"

#include <filesystem>
#include <sstream>

#include "core/file_io.h"

namespace gpuwatch::hpc_jobs {
namespace {

// "0", "12", "2.0": what dcgm-exporter names the files; editors' backups and the like are not GPUs.
bool gpu_file_name(std::string_view name) {
  const auto dot = name.find('.');
  auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (dot == std::string_view::npos) return digits(name);
  return digits(name.substr(0, dot)) && digits(name.substr(dot + 1));
}

}  // namespace

std::vector<std::string> job_ids_from_text(std::string_view text) {
  std::vector<std::string> ids;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    ids.push_back(line.substr(first, last - first + 1));
  }
  return ids;
}

std::optional<JobMapping> read_job_mapping(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return std::nullopt;
  JobMapping out;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!gpu_file_name(name) || !entry.is_regular_file(ec)) continue;
    const auto text = read_file(entry.path().string());
    if (!text) continue;  // cleared between the listing and the read
    auto ids = job_ids_from_text(*text);
    if (!ids.empty()) out.emplace(name, std::move(ids));
  }
  return out;
}

}  // namespace gpuwatch::hpc_jobs
