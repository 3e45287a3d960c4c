#include "alerting/delivery_queue.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/file_io.h"
#include "core/json_text.h"

namespace gpuwatch::alerting {
namespace fs = std::filesystem;
namespace {

// Why a file left in the queue directory cannot be a queued alert, or "". The fingerprint names the entry's
// file, so it must be a plain name; everything put() queues passes.
std::string queued_alert_problem(const nlohmann::json& j) {
  if (j.is_discarded()) return "not JSON";
  if (!j.is_object()) return "not a JSON object";
  const auto fingerprint = j.find("fingerprint");
  if (fingerprint == j.end() || !fingerprint->is_string()) return "no \"fingerprint\" string";
  const auto& key = fingerprint->get_ref<const std::string&>();
  if (key.empty() || key.size() > 64 || key.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return "the fingerprint is not hexadecimal";
  for (const char* map : {"labels", "annotations"}) {
    const auto pairs = j.find(map);
    if (pairs == j.end() || !pairs->is_object()) return std::string("no \"") + map + "\" object";
    for (const auto& [name, value] : pairs->items()) {
      if (!value.is_string()) return std::string(map) + " \"" + name + "\" is not a string";
    }
  }
  const auto status = j.find("status");
  if (status == j.end() || !status->is_string()) return "no \"status\" string";
  return "";
}

}  // namespace

DeliveryQueue::DeliveryQueue(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    // The data dir is the agent's own state: a bad one costs the queue's persistence, never the agent.
    // put() makes the directory again when it can, and says why it could not.
    spdlog::error("alert queue: cannot create {}: {}; alerts are kept in memory until it can be written",
                  dir_, ec.message());
    return;
  }
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json")
      files.emplace_back(e.last_write_time(), e.path());
  }
  std::sort(files.begin(), files.end());  // oldest first, so the age order survives a restart
  for (const auto& [time, path] : files) {
    const auto text = read_file(path.string());
    auto j = nlohmann::json::parse(text.value_or(""), nullptr, false);
    if (const std::string problem = queued_alert_problem(j); !problem.empty()) {
      spdlog::error("alert queue: {} is not a queued alert ({}); renamed to {}.bad", path.string(), problem,
                    path.string());
      fs::rename(path, path.string() + ".bad", ec);
      continue;
    }
    const std::string key = j["fingerprint"].get<std::string>();
    entries_[key] = Entry{std::move(j), next_version_++};
  }
  if (!entries_.empty()) spdlog::info("alert queue {}: {} alert(s) left to deliver", dir_, entries_.size());
}

std::string DeliveryQueue::path_of(const std::string& key) const {
  return dir_ + "/" + key + ".json";
}

std::string DeliveryQueue::put(const nlohmann::json& wire_alert) {
  const std::string key = wire_alert.at("fingerprint").get<std::string>();
  std::string error;
  {
    std::lock_guard lock(mutex_);
    // Written under the lock so that the file always holds the newest state of its key.
    if (!dir_.empty()) {
      error = write_file_durably(path_of(key), to_json_text(wire_alert));
      std::error_code ec;
      if (!error.empty() && fs::create_directories(dir_, ec))  // it could not be made at start
        error = write_file_durably(path_of(key), to_json_text(wire_alert));
    }
    entries_[key] = Entry{wire_alert, next_version_++};
  }
  arrived_.notify_all();
  return error;
}

DeliveryQueue::Batch DeliveryQueue::wait_and_take(std::stop_token stop,
                                                  std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mutex_);
  arrived_.wait_until(lock, stop, until, [this] { return !entries_.empty(); });
  std::vector<const std::pair<const std::string, Entry>*> order;
  for (const auto& kv : entries_) order.push_back(&kv);
  std::sort(order.begin(), order.end(),
            [](auto* a, auto* b) { return a->second.version < b->second.version; });
  Batch batch;
  for (const auto* kv : order) {
    batch.alerts.push_back(kv->second.alert);
    batch.versions.emplace_back(kv->first, kv->second.version);
  }
  return batch;
}

void DeliveryQueue::acknowledge(const Batch& batch) {
  std::lock_guard lock(mutex_);
  for (const auto& [key, version] : batch.versions) {
    const auto it = entries_.find(key);
    if (it == entries_.end() || it->second.version != version) continue;  // replaced meanwhile: keep it
    entries_.erase(it);
    if (!dir_.empty()) {
      std::error_code ec;
      fs::remove(path_of(key), ec);
      if (ec) spdlog::warn("alert queue: cannot remove {}: {}", path_of(key), ec.message());
    }
  }
}

std::size_t DeliveryQueue::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace gpuwatch::alerting
