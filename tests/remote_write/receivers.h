// Real remote-write receivers for the tests, on loopback, each in a temporary directory: Prometheus with its
// remote-write receiver and VictoriaMetrics. Each can be stopped and started again on the same port over the
// same data (a receiver outage), and asked for every raw sample it holds of the series a selector names, so
// a test counts samples one by one rather than through a query's arithmetic.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/series.h"
#include "run_process.h"

namespace httplib {
class Client;
}

namespace gpuwatch::test {

// Series (labels_to_string of its labels) -> its samples, oldest first.
using RawSamples = std::map<std::string, std::vector<Point>>;

class Receiver {
 public:
  virtual ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  int port() const { return port_; }
  // http://127.0.0.1:PORT, or https:// behind a web configuration file.
  std::string origin() const;
  std::string write_url() const { return origin() + "/api/v1/write"; }
  virtual std::string name() const = 0;
  // Starts the process and waits until it is ready (throws with its log when it is not within a minute).
  void start();
  // SIGTERM, waits for the exit.
  void stop();
  // Every raw sample of the series `selector` matches (a PromQL selector), with timestamps up to end_ms.
  virtual RawSamples samples(const std::string& selector, std::int64_t start_ms, std::int64_t end_ms) = 0;

 protected:
  Receiver();
  virtual std::vector<std::string> argv() const = 0;
  virtual std::string ready_path() const = 0;
  // A client of the receiver, with its CA and user when it has them.
  httplib::Client client() const;
  std::string dir_;
  int port_ = 0;
  std::string web_config_, ca_file_, user_, password_;

 private:
  std::unique_ptr<BackgroundProcess> process_;
};

std::unique_ptr<Receiver> make_prometheus_receiver();
// Prometheus serving HTTPS and asking for basic auth as `web_config` (an exporter-toolkit web configuration
// file) says; the test talks to it trusting `ca_file`, as `user`.
struct ReceiverAccess {
  std::string web_config, ca_file, user, password;
};
std::unique_ptr<Receiver> make_prometheus_receiver(const ReceiverAccess& access);
// Prometheus that also scrapes: `scrape_configs` is the YAML list under prometheus.yml's scrape_configs key.
std::unique_ptr<Receiver> make_scraping_prometheus_receiver(const std::string& scrape_configs);
std::unique_ptr<Receiver> make_victoria_metrics_receiver();

}  // namespace gpuwatch::test
