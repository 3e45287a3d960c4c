// Endpoints that other parts of the agent add to the HTTP server (the query API, alerts, silences,
// runbooks), without depending on the HTTP library. A route sees a plain request and returns a plain reply.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuwatch {

struct HttpRequest {
  std::string method;                 // "GET", "POST", ...
  std::string path;                   // without the query string
  std::vector<std::string> captures;  // the route pattern's capture groups, in order
  // Query-string parameters, and for POST the form-encoded body's (Prometheus's API accepts both).
  std::multimap<std::string, std::string> params;
  std::multimap<std::string, std::string> headers;  // names as sent; look up with header()
  std::string body;
  std::string remote_addr;
  std::string user;  // the basic-auth user the listener verified (web configuration file); "" without one

  // The first value of a parameter or header (header names compare case-insensitively), or "".
  std::string param(const std::string& name) const;
  std::vector<std::string> params_named(const std::string& name) const;
  bool has_param(const std::string& name) const { return params.count(name) > 0; }
  std::string header(const std::string& name) const;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A route runs on the server's worker pool, never on the threads that answer scrapes: it may take its time,
// and the pool bounds how many run at once (more wait in a bounded queue, then get 503).
struct HttpRoute {
  using Handler = std::function<HttpReply(const HttpRequest&)>;
  using Admission = std::function<std::optional<HttpReply>(const HttpRequest&)>;
  HttpRoute() = default;
  // So that routes written as {methods, pattern, what, handle} need not name the later fields.
  HttpRoute(std::vector<std::string> methods_, std::string pattern_, std::string what_, Handler handle_,
            Admission admit_ = {}, std::size_t max_body_bytes_ = 0)
      : methods(std::move(methods_)),
        pattern(std::move(pattern_)),
        what(std::move(what_)),
        handle(std::move(handle_)),
        admit(std::move(admit_)),
        max_body_bytes(max_body_bytes_) {}

  std::vector<std::string> methods;  // e.g. {"GET", "POST"}; other methods get 405 with an Allow header
  std::string pattern;               // an RE2 regex matched against the whole path (compiled once, at start)
  std::string what;                  // one line for the index page; "" keeps it off the index
  Handler handle;                    // called on a worker thread; must be thread-safe
  // Called before the body is read, with everything but the body (body empty): a reply refuses the
  // request (e.g. 401 without a valid token) so an unauthenticated client cannot make the server read a
  // body. Called on an event thread: must be quick and thread-safe. Empty: every request is admitted.
  Admission admit;
  // The largest body this route accepts (413 above it, checked against Content-Length before reading);
  // 0: HttpServerOptions::max_body_bytes.
  std::size_t max_body_bytes = 0;
};

}  // namespace gpuwatch
