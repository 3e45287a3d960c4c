#include "agent/status_api.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/json_text.h"
#include "core/rfc3339.h"
#include "core/wall_clock.h"

namespace gpuwatch {
namespace {

// What a setting shows to the API: its value, or "<secret>" for one that may hold a credential.
std::string shown(const OptionSpec& spec, const AgentOptions& options) {
  std::string value = spec.show(options);
  return spec.secret && !value.empty() ? "<secret>" : value;
}

std::size_t thread_count() {
  std::error_code error;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ++n;
  return n;
}

std::string working_directory() {
  std::error_code error;
  const auto cwd = std::filesystem::current_path(error);
  return error ? "" : cwd.string();
}

HttpReply success(const std::string& data) {
  return HttpReply{200, "application/json", R"({"status":"success","data":)" + data + "}", {}};
}

}  // namespace

AgentStatus::AgentStatus(AgentOptions options)
    : options_(std::move(options)), start_ms_(wall_unix_ms()), config_ms_(start_ms_) {}

void AgentStatus::reloaded(const AgentOptions& options) {
  std::lock_guard lock(mu_);
  options_ = options;
  config_ms_ = wall_unix_ms();
}

std::string AgentStatus::runtimeinfo_json() const {
  std::lock_guard lock(mu_);
  std::string retention = "off";
  if (options_.store) {
    retention = find_option("retention_time")->show(options_) + " or " +
                find_option("retention_size")->show(options_);
  }
  // Prometheus's fields, with the agent's nearest meaning: threads for goroutines, CPUs for GOMAXPROCS.
  std::string out = R"({"startTime":)";
  append_json_string(out, format_rfc3339_ms(start_ms_));
  out += R"(,"CWD":)";
  append_json_string(out, working_directory());
  out += R"(,"reloadConfigSuccess":true,"lastConfigTime":)";
  append_json_string(out, format_rfc3339_ms(config_ms_));
  out += R"(,"corruptionCount":0,"goroutineCount":)" + std::to_string(thread_count());
  out += R"(,"GOMAXPROCS":)" + std::to_string(std::thread::hardware_concurrency());
  out += R"(,"GOGC":"","GODEBUG":"","storageRetention":)";
  append_json_string(out, retention);
  return out + "}";
}

std::string AgentStatus::flags_json() const {
  std::lock_guard lock(mu_);
  std::string out = "{";
  for (const auto& spec : option_table()) {
    if (!spec.taken_by(kAgentCommand)) continue;
    if (out.size() > 1) out += ',';
    append_json_string(out, flag_name(spec.key));
    out += ':';
    append_json_string(out, shown(spec, options_));
  }
  return out + "}";
}

std::string AgentStatus::config_json() const {
  std::lock_guard lock(mu_);
  // One `key: "value"` line a setting, as gpuwatch.yaml spells them; a JSON string is a YAML string too.
  std::string yaml;
  for (const auto& spec : option_table()) {
    if (!spec.taken_by(kAgentCommand)) continue;
    yaml += spec.key;
    yaml += ": ";
    append_json_string(yaml, shown(spec, options_));
    yaml += '\n';
  }
  std::string out = R"({"yaml":)";
  append_json_string(out, yaml);
  return out + "}";
}

std::vector<HttpRoute> status_routes(std::shared_ptr<const AgentStatus> status) {
  return {
      {{"GET"},
       "/api/v1/status/runtimeinfo",
       "",
       [status](const HttpRequest&) { return success(status->runtimeinfo_json()); }},
      {{"GET"},
       "/api/v1/status/flags",
       "",
       [status](const HttpRequest&) { return success(status->flags_json()); }},
      {{"GET"},
       "/api/v1/status/config",
       "the settings in effect (Prometheus's status API)",
       [status](const HttpRequest&) { return success(status->config_json()); }},
  };
}

}  // namespace gpuwatch
