// gpuwatch's HTTP endpoint: /metrics (text 0.0.4, OpenMetrics, dcgm naming, gzip), /healthz, /readyz,
// /api/v1/gpus (JSON), an index at /, and the routes other parts add (HttpServerOptions::routes). Handlers
// read only the latest snapshot, never a device, so a hung driver call cannot hang a scrape.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/snapshot.h"
#include "http/http_route.h"
#include "http/metrics_cache.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

struct HttpServerOptions {
  std::string listen = "127.0.0.1:19400";        // ADDR:PORT; port 0 picks a free port (see port())
  MetricNaming naming = MetricNaming::kNative;   // the default; /metrics?naming=dcgm|native overrides it
  std::string dcgm_hostname_label = "Hostname";  // or "hostname" (dcgm-exporter 4.x)
  unsigned threads = 4;
  // Further endpoints (query API, alerts, ...), matched before the built-in 404/405 answers.
  std::vector<HttpRoute> routes;
  // Families appended to /metrics in every naming (the alerts); see ExtraFamilies.
  ExtraFamilies extra_metrics;
  // The detectors' settings, for each GPU's health verdict in /api/v1/gpus (as `gpuwatch status` judges).
  rules::DetectorSettings health_settings;
};

class HttpServer {
 public:
  // `latest` returns the newest snapshot (null before the first collection); `ready` says whether the first
  // complete collection is done. Both are called on request threads and must be thread-safe.
  HttpServer(HttpServerOptions options, std::function<SnapshotPtr()> latest, std::function<bool()> ready);
  ~HttpServer();  // stops the server
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving on a thread of its own. Throws std::invalid_argument for a malformed listen
  // address and std::runtime_error naming the address and the system's reason when it cannot bind.
  void start();
  // The bound port (useful after listening on port 0); 0 before start().
  int port() const { return port_; }
  // Stops accepting, finishes requests in flight and joins the server thread. Safe to call twice.
  void stop();
  // Changes the default naming (a configuration reload); takes effect on the next request.
  void set_naming(MetricNaming naming) { naming_ = naming; }

 private:
  struct Impl;
  HttpServerOptions options_;
  std::function<SnapshotPtr()> latest_;
  std::function<bool()> ready_;
  std::atomic<MetricNaming> naming_;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace gpuwatch
