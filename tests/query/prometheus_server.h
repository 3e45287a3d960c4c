// A real Prometheus for the tests that compare with one: over a TSDB built from an OpenMetrics file with
// promtool (the oracle test), or scraping what its configuration names (the agent, for the dcgm-exporter
// dashboard test). It runs on a free loopback port in a temporary directory; on destruction it is stopped
// (by PID) and its data removed.
#pragma once

#include <memory>
#include <string>

#include "run_process.h"

namespace gpuwatch::test {

class PrometheusServer {
 public:
  // Throws std::runtime_error with promtool's or prometheus's own words when either fails.
  explicit PrometheusServer(const std::string& openmetrics);
  // No data of its own: `config` is its prometheus.yml (global settings and scrape_configs).
  struct Scraping {
    std::string config;
  };
  explicit PrometheusServer(const Scraping& scraping);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  int port() const { return port_; }

 private:
  // Blocks from `openmetrics` unless it is empty.
  void start(const std::string& config, const std::string& openmetrics);
  void stop();

  std::string dir_;
  int port_ = 0;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace gpuwatch::test
