// A real Prometheus for the oracle test: builds a TSDB from an OpenMetrics file with promtool, starts
// `prometheus` on a free loopback port over it, and on destruction stops it (by PID) and removes its data.
#pragma once

#include <memory>
#include <string>

#include "run_process.h"

namespace gpuwatch::test {

class PrometheusServer {
 public:
  // Throws std::runtime_error with promtool's or prometheus's own words when either fails.
  explicit PrometheusServer(const std::string& openmetrics);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  int port() const { return port_; }

 private:
  void start(const std::string& openmetrics);
  void stop();

  std::string dir_;
  int port_ = 0;
  std::unique_ptr<BackgroundProcess> process_;
};

// A loopback TCP port that was free a moment ago.
int free_port();

}  // namespace gpuwatch::test
