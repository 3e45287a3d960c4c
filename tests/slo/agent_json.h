// GET a running agent's JSON API on 127.0.0.1: the parsed body, or null when it did not answer 200.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

namespace gpuwatch::test {

inline nlohmann::json get_json(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  const auto r = client.Get(path);
  if (!r || r->status != 200) return nlohmann::json();
  return nlohmann::json::parse(r->body, nullptr, false);
}

}  // namespace gpuwatch::test
