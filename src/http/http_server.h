// gpuwatch's HTTP endpoint: /metrics (text 0.0.4, OpenMetrics, dcgm naming, gzip), /healthz, /readyz,
// /api/v1/gpus (JSON), an index at /endpoints, and the routes other parts add (HttpServerOptions::routes).
// Handlers read only the latest snapshot, never a device, so a hung driver call cannot hang a scrape.
//
// The server is event-driven (Boost.Beast for plain HTTP in the module gpuwatch-http-server.so, libmicrohttpd
// and GnuTLS for TLS in gpuwatch-tls-server.so, loaded by start(), so that a process that never serves maps
// none of it): a slow or idle client holds a connection, not a thread. The
// built-in routes are answered on the event threads at once; the added routes run on a small bounded worker
// pool, so a slow query never delays a scrape, and when the pool's queue is full they are answered 503 at
// once. Deadlines and limits (HttpServerOptions) bound what one client can make the server wait for or hold.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "http/http_route.h"
#include "http/listen_address.h"
#include "http/metrics_cache.h"
#include "http/web_config.h"
#include "rules/detector_settings.h"

namespace gpuwatch {

struct HttpServerOptions {
  std::string listen = "127.0.0.1:19400";        // ADDR:PORT; port 0 picks a free port (see port())
  MetricNaming naming = MetricNaming::kNative;   // the default; /metrics?naming=dcgm|native overrides it
  std::string dcgm_hostname_label = "Hostname";  // or "hostname" (dcgm-exporter 4.x)
  unsigned threads = 4;                          // worker threads for the added routes (queries, alerts)
  std::size_t queue = 16;                        // added-route requests that may wait for a worker; then 503
  unsigned event_threads = 2;                    // threads that read requests and answer the built-in routes

  // Limits. A refused request or connection is counted in gpuwatch_http_requests_rejected_total{reason}.
  unsigned max_connections = 512;  // open connections in all; more are refused at accept
  // Open connections from one client address: half of all, as a local proxy may bring every client from one.
  unsigned max_connections_per_client = 256;
  std::chrono::milliseconds header_timeout{10'000};  // request line and headers, from accept (or first byte)
  std::chrono::milliseconds body_timeout{30'000};    // the body, from the end of the headers
  std::chrono::milliseconds idle_timeout{60'000};    // a kept-alive connection with no request
  std::size_t max_header_bytes = 80 * 1024;  // request line (so a 64 KiB query URI fits) and headers; 431
  std::size_t max_headers = 100;             // header fields; 431
  std::size_t max_body_bytes = 1024 * 1024;  // for a route that does not say (HttpRoute::max_body_bytes); 413
  std::size_t max_reply_bytes = 64 * 1024 * 1024;  // an added route's reply (a query result); 422
  // Further endpoints (query API, alerts, ...), matched before the built-in 404/405 answers.
  std::vector<HttpRoute> routes;
  // false: the routes alone answer, even at the built-in endpoints' paths (a server of other content:
  // `gpuwatch sim serve`'s model servers, whose /metrics is theirs).
  bool builtin_endpoints = true;
  // Families appended to /metrics in every naming (the alerts); see ExtraFamilies.
  ExtraFamilies extra_metrics;
  // The detectors' settings, for each GPU's health verdict in /api/v1/gpus (as `gpuwatch status` judges).
  rules::DetectorSettings health_settings;
  // TLS, mutual TLS and basic auth from a web configuration file (http/web_config.h); plain HTTP for anyone
  // when absent.
  std::optional<WebConfig> web;
  // The event loop's modules (http/event_loop.h): plain HTTP's (which also checks basic auth's passwords) and
  // TLS's; "" finds each as every optional module is found (core/optional_module.h). Without the one it needs
  // start() throws, saying module_missing and why.
  std::string module_path;
  std::string tls_module_path;
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
  // address and std::runtime_error naming the address and the system's reason when it cannot bind, or
  // "module_missing" and the loader's reason when the event loop's module cannot be loaded.
  void start();
  // Binds `listen` as start() does, for an owner that needs the port before the server starts: the port the
  // system picked for port 0 is in the address. Throws as start() does.
  static BoundListener bind(std::string_view listen);
  // Starts serving on a socket from bind().
  void start(BoundListener listener);
  // The bound port (useful after listening on port 0); 0 before start().
  int port() const { return port_; }
  // Stops accepting, finishes the requests the workers are answering (queued ones get 503), closes every
  // connection and joins the server's threads. Safe to call twice.
  void stop();
  // Changes the default naming (a configuration reload); takes effect on the next request.
  void set_naming(MetricNaming naming) { naming_ = naming; }
  // The server's own families (gpuwatch_http_*), as /metrics shows them, for the history; empty while the
  // server is not running. Thread-safe, also against stop().
  std::vector<Family> self_families() const;

 private:
  struct Impl;
  HttpServerOptions options_;
  std::function<SnapshotPtr()> latest_;
  std::function<bool()> ready_;
  std::atomic<MetricNaming> naming_;
  mutable std::mutex impl_mu_;  // guards impl_ against self_families() from other threads
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace gpuwatch
