#include "http/route_table.h"

#include <re2/re2.h>

#include <algorithm>
#include <stdexcept>

namespace gpuwatch {
namespace {

bool served_method(const std::string& method) {
  return method == "GET" || method == "POST" || method == "PUT" || method == "DELETE";
}

}  // namespace

RouteTable::RouteTable(const std::vector<HttpRoute>& routes) {
  for (const HttpRoute& route : routes) {
    for (const std::string& method : route.methods) {
      if (!served_method(method)) {
        throw std::invalid_argument("route " + route.pattern + ": unsupported method " + method);
      }
    }
    RE2::Options options;
    options.set_log_errors(false);
    auto pattern = std::make_unique<re2::RE2>(route.pattern, options);
    if (!pattern->ok()) {
      throw std::invalid_argument("route " + route.pattern + ": bad pattern: " + pattern->error());
    }
    routes_.push_back(Compiled{&route, std::move(pattern)});
  }
}

RouteTable::~RouteTable() = default;

RouteTable::Match RouteTable::match(std::string_view method, std::string_view path) const {
  Match out;
  for (const Compiled& c : routes_) {
    const int groups = c.pattern->NumberOfCapturingGroups();
    std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(groups) + 1);
    if (!c.pattern->Match(re2::StringPiece(path.data(), path.size()), 0, path.size(), RE2::ANCHOR_BOTH,
                          pieces.data(), static_cast<int>(pieces.size()))) {
      continue;
    }
    for (const std::string& m : c.route->methods) out.allow += (out.allow.empty() ? "" : ", ") + m;
    const auto& methods = c.route->methods;
    if (out.route == nullptr && std::find(methods.begin(), methods.end(), method) != methods.end()) {
      out.route = c.route;
      for (std::size_t i = 1; i < pieces.size(); ++i)
        out.captures.emplace_back(pieces[i].data(), pieces[i].size());
    }
  }
  return out;
}

}  // namespace gpuwatch
