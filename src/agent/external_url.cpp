#include "agent/external_url.h"

#include <unistd.h>

#include "core/utf8.h"

namespace gpuwatch {
namespace {

std::string machine_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return to_valid_utf8(name);  // it goes into every alert's runbook URL
}

}  // namespace

std::string reachable_address(const ListenAddress& bound, const std::string& hostname) {
  if (bound.host == "0.0.0.0" || bound.host == "::")
    return (hostname.empty() ? machine_hostname() : hostname) + ":" + std::to_string(bound.port);
  return format_listen_address(bound);
}

std::string default_external_url(const ListenAddress& bound, const std::string& hostname) {
  return "http://" + reachable_address(bound, hostname);
}

}  // namespace gpuwatch
