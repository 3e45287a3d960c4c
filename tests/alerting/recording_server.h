// A tiny HTTP server on 127.0.0.1 (a free port) that records the JSON bodies POSTed to it: it stands in for
// an Alertmanager or a webhook receiver. It can be told to fail the next requests with HTTP 503.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuwatch::alerting::testing {

class RecordingServer {
 public:
  RecordingServer();
  ~RecordingServer();
  RecordingServer(const RecordingServer&) = delete;
  RecordingServer& operator=(const RecordingServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  void fail_next(int n);
  std::vector<nlohmann::json> bodies() const;
  // Waits (wall time, bounded) until pred(bodies) holds; returns whether it did.
  bool wait_for(const std::function<bool(const std::vector<nlohmann::json>&)>& pred,
                std::chrono::milliseconds limit = std::chrono::seconds(20)) const;
  int failures_served() const;

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<nlohmann::json> bodies_;
  int fail_next_ = 0;
  int failures_served_ = 0;
};

}  // namespace gpuwatch::alerting::testing
