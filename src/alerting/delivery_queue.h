// What a receiver still has to be told: the latest wire alert (alert_json.h) per fingerprint. A newer state
// of an alert replaces the older one still waiting (a resolution replaces its firing), so an outage of any
// length holds one entry per alert. With a directory, every entry is a file written atomically (temporary
// file, fsync, rename) before put() returns and removed only once the receiver accepted it, so neither an
// alert nor a resolution is lost across a receiver outage or an agent restart. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuwatch::alerting {

class DeliveryQueue {
 public:
  // dir "" keeps the queue in memory. Otherwise creates dir and loads the entries a previous run left;
  // an unreadable entry is logged and renamed *.bad, never fatal. A dir that cannot be created is logged:
  // the queue then holds its alerts in memory, and put() creates the dir once it can.
  explicit DeliveryQueue(std::string dir);

  // Queues the wire alert under its "fingerprint", replacing what waited under that key. Returns "" or why
  // it could not be written to disk (the entry is still queued in memory).
  std::string put(const nlohmann::json& wire_alert);

  struct Batch {
    std::vector<nlohmann::json> alerts;
    std::vector<std::pair<std::string, std::uint64_t>> versions;  // key and the version taken
  };
  // Everything waiting, oldest put first; empty after stop is requested with nothing to take.
  // Waits up to `until` for something to arrive.
  Batch wait_and_take(std::stop_token stop, std::chrono::steady_clock::time_point until);
  // Removes the entries of a delivered batch, except those replaced since it was taken.
  void acknowledge(const Batch& batch);

  std::size_t size() const;

 private:
  struct Entry {
    nlohmann::json alert;
    std::uint64_t version = 0;  // order of puts, also the age order
  };
  std::string path_of(const std::string& key) const;

  std::string dir_;
  mutable std::mutex mutex_;
  std::condition_variable_any arrived_;
  std::map<std::string, Entry> entries_;
  std::uint64_t next_version_ = 1;
};

}  // namespace gpuwatch::alerting
