// The added routes (HttpServerOptions::routes) with their path patterns compiled once, at start, by RE2:
// matching a request path costs no compilation and no backtracking, whatever a client sends.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_route.h"

namespace re2 {
class RE2;
}

namespace gpuwatch {

class RouteTable {
 public:
  // Throws std::invalid_argument naming the route for a pattern RE2 cannot compile or a method the server
  // does not serve (it serves GET, POST, PUT and DELETE).
  explicit RouteTable(const std::vector<HttpRoute>& routes);
  ~RouteTable();
  RouteTable(const RouteTable&) = delete;
  RouteTable& operator=(const RouteTable&) = delete;

  struct Match {
    const HttpRoute* route = nullptr;   // null: no route serves this method on this path
    std::vector<std::string> captures;  // the pattern's groups, in order ("" for a group that took no part)
    std::string allow;  // the methods of every route whose pattern matches the path, ", "-joined
  };
  // The first route whose pattern matches the whole path and that serves `method`. The routes stay owned by
  // the caller's vector, which must outlive the table.
  Match match(std::string_view method, std::string_view path) const;

 private:
  struct Compiled {
    const HttpRoute* route;
    std::unique_ptr<re2::RE2> pattern;
  };
  std::vector<Compiled> routes_;
};

}  // namespace gpuwatch
