// Calls a query route's handler directly, as the HTTP server would after parsing a request: the route whose
// pattern matches the whole path, with its capture groups.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "http/http_route.h"

namespace gpuwatch::query {

inline HttpReply call_route(const std::vector<HttpRoute>& routes, const std::string& method,
                            const std::string& path, std::multimap<std::string, std::string> params) {
  for (const auto& r : routes) {
    std::smatch match;
    if (r.pattern == path || std::regex_match(path, match, std::regex(r.pattern))) {
      HttpRequest req;
      req.method = method;
      req.path = path;
      for (std::size_t i = 1; i < match.size(); ++i) req.captures.push_back(match[i].str());
      req.params = std::move(params);
      return r.handle(req);
    }
  }
  ADD_FAILURE() << "no route " << path;
  return {};
}

}  // namespace gpuwatch::query
