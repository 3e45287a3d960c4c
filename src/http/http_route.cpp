#include "http/http_route.h"

#include <strings.h>

namespace gpuwatch {

std::string HttpRequest::param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? std::string() : it->second;
}

std::vector<std::string> HttpRequest::params_named(const std::string& name) const {
  std::vector<std::string> out;
  auto [begin, end] = params.equal_range(name);
  for (auto it = begin; it != end; ++it) out.push_back(it->second);
  return out;
}

std::string HttpRequest::header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (::strcasecmp(k.c_str(), name.c_str()) == 0) return v;
  }
  return {};
}

}  // namespace gpuwatch
