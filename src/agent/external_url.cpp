#include "agent/external_url.h"

#include <unistd.h>

#include <stdexcept>

#include "core/utf8.h"
#include "http/listen_address.h"

namespace gpuwatch {
namespace {

std::string machine_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return to_valid_utf8(name);  // it goes into every alert's runbook URL
}

}  // namespace

std::string default_external_url(const std::string& listen, const std::string& hostname) {
  ListenAddress address{"0.0.0.0", 0};
  try {
    address = parse_listen_address(listen);
  } catch (const std::invalid_argument&) {
    // The server refuses the same text with the reason; the links then name the host.
  }
  std::string host = address.host;
  if (host == "0.0.0.0" || host == "::") {
    host = hostname.empty() ? machine_hostname() : hostname;
  } else if (host.find(':') != std::string::npos) {
    host = "[" + host + "]";
  }
  return "http://" + host + ":" + std::to_string(address.port);
}

}  // namespace gpuwatch
