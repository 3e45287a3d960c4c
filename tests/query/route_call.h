// Calls a query route's handler directly, as the HTTP server would after parsing a request.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "http/http_route.h"

namespace gpuwatch::query {

inline HttpReply call_route(const std::vector<HttpRoute>& routes, const std::string& method,
                            const std::string& path, std::multimap<std::string, std::string> params) {
  for (const auto& r : routes) {
    if (r.pattern == path) {
      HttpRequest req;
      req.method = method;
      req.path = path;
      req.params = std::move(params);
      return r.handle(req);
    }
  }
  ADD_FAILURE() << "no route " << path;
  return {};
}

}  // namespace gpuwatch::query
