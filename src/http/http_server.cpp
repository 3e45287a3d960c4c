#include "http/http_server.h"

#include <httplib.h>

#include <sys/socket.h>

#include <array>
#include <regex>
#include <stdexcept>

#include "http/json_api.h"
#include "http/listen_address.h"
#include "http/negotiation.h"

namespace gpuwatch {
namespace {

struct Endpoint {
  const char* path;
  const char* what;
};
constexpr std::array kEndpoints = {
    Endpoint{"/metrics",
             "Prometheus metrics (text 0.0.4; OpenMetrics on request; ?naming=dcgm for dcgm-exporter names)"},
    Endpoint{"/api/v1/gpus", "every GPU, its health, metrics and processes as JSON"},
    Endpoint{"/healthz", "200 while the server runs"},
    Endpoint{"/readyz", "200 after the first complete collection, 503 before"},
    Endpoint{"/", "this page"},
};

bool is_endpoint(const std::string& path) {
  for (const auto& e : kEndpoints) {
    if (path == e.path) return true;
  }
  return false;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string index_html(const std::vector<HttpRoute>& routes) {
  std::string html =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>gpuwatch</title></head><body>\n"
      "<h1>gpuwatch</h1>\n<ul>\n";
  for (const auto& e : kEndpoints) {
    html += "<li><a href=\"" + std::string(e.path) + "\">" + e.path + "</a>: " + e.what + "</li>\n";
  }
  for (const auto& r : routes) {
    if (r.what.empty()) continue;
    html += "<li><code>" + html_escape(r.pattern) + "</code>: " + html_escape(r.what) + "</li>\n";
  }
  return html + "</ul>\n</body></html>\n";
}

HttpRequest plain_request(const httplib::Request& req) {
  HttpRequest out;
  out.method = req.method;
  out.path = req.path;
  for (std::size_t i = 1; i < req.matches.size(); ++i) out.captures.push_back(req.matches[i].str());
  for (const auto& [k, v] : req.params) out.params.emplace(k, v);
  for (const auto& [k, v] : req.headers) out.headers.emplace(k, v);
  out.body = req.body;
  out.remote_addr = req.remote_addr;
  return out;
}

void send_reply(httplib::Response& res, HttpReply reply) {
  res.status = reply.status;
  for (auto& [k, v] : reply.headers) res.set_header(k, v);
  res.set_content(std::move(reply.body), reply.content_type);
}

bool route_matches(const std::vector<HttpRoute>& routes, const std::string& path) {
  for (const auto& r : routes) {
    if (std::regex_match(path, std::regex(r.pattern))) return true;
  }
  return false;
}

std::string allowed_methods(const std::vector<HttpRoute>& routes, const std::string& path) {
  std::string allow;
  for (const auto& r : routes) {
    if (!std::regex_match(path, std::regex(r.pattern))) continue;
    for (const auto& m : r.methods) allow += (allow.empty() ? "" : ", ") + m;
  }
  return allow;
}

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
}

}  // namespace

struct HttpServer::Impl {
  Impl(DcgmOptions dcgm, ExtraFamilies extra) : cache(dcgm, std::move(extra)) {}
  httplib::Server server;
  MetricsCache cache;
  std::atomic<bool> finished{false};  // the accept loop has returned
};

HttpServer::HttpServer(HttpServerOptions options, std::function<SnapshotPtr()> latest,
                       std::function<bool()> ready)
    : options_(std::move(options)),
      latest_(std::move(latest)),
      ready_(std::move(ready)),
      naming_(options_.naming) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::start() {
  if (impl_) throw std::logic_error("HttpServer::start called twice");
  const ListenAddress address = parse_listen_address(options_.listen);
  impl_ = std::make_unique<Impl>(DcgmOptions{options_.dcgm_hostname_label}, options_.extra_metrics);
  httplib::Server& server = impl_->server;
  MetricsCache& cache = impl_->cache;
  const unsigned threads = std::max(1U, options_.threads);
  // httplib owns the queue it gets from this factory.
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let a second agent share the port
  // silently instead of failing to start.
  server.set_socket_options([](int sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Short keep-alive so stop() returns promptly even with idle client connections open.
  server.set_keep_alive_timeout(1);
  // Scrapers reuse their connection: do not close it every 5 requests (httplib's default).
  server.set_keep_alive_max_count(1000);
  // A response is written in two sends (headers, then the cached body); without TCP_NODELAY the second waits
  // for the client's delayed ACK, ~40 ms a request on loopback.
  server.set_tcp_nodelay(true);

  server.Get("/metrics", [this, &cache](const httplib::Request& req, httplib::Response& res) {
    MetricNaming naming = naming_.load();
    if (req.has_param("naming")) {
      const std::string value = req.get_param_value("naming");
      if (value == "dcgm") {
        naming = MetricNaming::kDcgm;
      } else if (value == "native") {
        naming = MetricNaming::kNative;
      } else {
        send_json(res, 400, {{"error", "naming must be dcgm or native, not \"" + value + "\""}});
        return;
      }
    }
    RenderVariant variant;
    variant.naming = naming;
    if (header_accepts(req.get_header_value("Accept"), "application/openmetrics-text")) {
      variant.format = ExpositionFormat::kOpenMetrics;
    }
    variant.gzip = header_accepts(req.get_header_value("Accept-Encoding"), "gzip");
    const Rendering r = cache.get(latest_(), variant);
    if (variant.gzip) res.set_header("Content-Encoding", "gzip");
    res.set_header("Vary", "Accept, Accept-Encoding");
    // A content provider of known length serves the cached bytes without a copy, and keeps httplib from
    // compressing them a second time.
    res.set_content_provider(
        r.body->size(), std::string(r.content_type),
        [body = r.body](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
          return sink.write(body->data() + offset, length);
        });
  });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  server.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    if (ready_()) {
      res.set_content("ready\n", "text/plain; charset=utf-8");
    } else {
      res.status = 503;
      res.set_content("not ready: no complete collection yet\n", "text/plain; charset=utf-8");
    }
  });
  server.Get("/api/v1/gpus", [this](const httplib::Request&, httplib::Response& res) {
    const SnapshotPtr snapshot = latest_();
    if (!snapshot) {
      send_json(res, 503, {{"error", "no complete collection yet"}});
      return;
    }
    send_json(res, 200, snapshot_to_json(*snapshot, options_.health_settings));
  });
  server.Get("/", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(index_html(options_.routes), "text/html; charset=utf-8");
  });
  for (const HttpRoute& route : options_.routes) {
    const auto handler = [&route](const httplib::Request& req, httplib::Response& res) {
      send_reply(res, route.handle(plain_request(req)));
    };
    for (const std::string& method : route.methods) {
      if (method == "GET") {
        server.Get(route.pattern, handler);
      } else if (method == "POST") {
        server.Post(route.pattern, handler);
      } else if (method == "PUT") {
        server.Put(route.pattern, handler);
      } else if (method == "DELETE") {
        server.Delete(route.pattern, handler);
      } else {
        throw std::invalid_argument("route " + route.pattern + ": unsupported method " + method);
      }
    }
  }
  const auto other_method = [this](const httplib::Request& req, httplib::Response& res) {
    if (route_matches(options_.routes, req.path)) {
      res.set_header("Allow", allowed_methods(options_.routes, req.path));
      send_json(res, 405, {{"error", "method " + req.method + " not allowed on " + req.path}});
    } else if (is_endpoint(req.path)) {
      res.set_header("Allow", "GET, HEAD");
      send_json(res, 405, {{"error", "method " + req.method + " not allowed on " + req.path + "; use GET"}});
    } else {
      send_json(res, 404, {{"error", "not found"}, {"path", req.path}});
    }
  };
  server.Get(".*", other_method);
  server.Post(".*", other_method);
  server.Put(".*", other_method);
  server.Delete(".*", other_method);
  server.Patch(".*", other_method);
  server.Options(".*", other_method);
  // httplib calls this for every status >= 400; only answer the ones no handler filled in.
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const char* error = res.status == 404 ? "not found" : "bad request";
        send_json(res, res.status, {{"error", error}, {"path", req.path}});
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_json(res, 500, {{"error", what}});
  });

  const std::string shown = options_.listen;
  bool bound = false;
  if (address.port == 0) {
    port_ = server.bind_to_any_port(address.host);
    bound = port_ > 0;
  } else {
    bound = server.bind_to_port(address.host, address.port);
    port_ = bound ? address.port : 0;
  }
  if (!bound) {
    impl_.reset();
    throw std::runtime_error("cannot listen on " + shown + ": " + bind_failure_reason(address));
  }
  std::atomic<bool>& finished = impl_->finished;
  thread_ = std::thread([&server, &finished] {
    server.listen_after_bind();
    finished = true;
  });
  // httplib's stop() does nothing until the accept loop runs: wait for it, so that a stop() right after
  // start() cannot miss it and leave the thread running.
  while (!server.is_running() && !finished) std::this_thread::yield();
  if (finished) throw std::runtime_error("the server on " + shown + " stopped as soon as it started");
}

void HttpServer::stop() {
  if (!impl_) return;
  impl_->server.stop();
  if (thread_.joinable()) thread_.join();
  impl_.reset();
}

}  // namespace gpuwatch
