// Endpoints that other parts of the agent add to the HTTP server (the query API, alerts, silences,
// runbooks), without depending on the HTTP library. A route sees a plain request and returns a plain reply.
#pragma once

#include <functional>
#include <map>
#include <string>
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

struct HttpRoute {
  std::vector<std::string> methods;  // e.g. {"GET", "POST"}; other methods get 405 with an Allow header
  std::string pattern;               // an ECMAScript regex matched against the whole path
  std::string what;                  // one line for the index page; "" keeps it off the index
  std::function<HttpReply(const HttpRequest&)> handle;  // called on a server thread; must be thread-safe
};

}  // namespace gpuwatch
