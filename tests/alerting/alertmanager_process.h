// A real Alertmanager (Debian's prometheus-alertmanager) for tests: on 127.0.0.1 at a free port, clustering
// off, its config and storage in a temporary directory removed afterwards, its webhook receiver pointing at
// `webhook_url` with short group timings. Stopped (by PID) on destruction.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "../cli/run_process.h"

namespace gpuwatch::alerting::testing {

using test::free_port;

class AlertmanagerProcess {
 public:
  AlertmanagerProcess(const std::string& dir, const std::string& webhook_url);
  ~AlertmanagerProcess();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Starts (again, on the same port and storage) and waits until it answers /-/ready. False on timeout,
  // with the reason in the test log.
  bool start();
  void stop();
  // GET /api/v2/alerts (active, not silenced or inhibited by default): the array, or null on failure.
  nlohmann::json alerts() const;

 private:
  std::string dir_;
  int port_;
  std::unique_ptr<test::BackgroundProcess> process_;
};

}  // namespace gpuwatch::alerting::testing
