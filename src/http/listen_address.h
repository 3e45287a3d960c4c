// Parses the agent's listen setting, "ADDR:PORT": "0.0.0.0:19400", "[::1]:19400", "localhost:19400",
// ":19400" (every IPv4 address).
#pragma once

#include <string>
#include <string_view>

#include "core/unique_fd.h"

namespace gpuwatch {

struct ListenAddress {
  std::string host;  // without brackets: "::1"
  int port = 0;      // 0: any free port
};

// Throws std::invalid_argument saying what is wrong and what was expected.
ListenAddress parse_listen_address(std::string_view text);
// The address as the listen setting writes it: "127.0.0.1:19400", "[::1]:19400".
std::string format_listen_address(const ListenAddress& address);

// A listening TCP socket on host:port (the first address that binds), with SO_REUSEADDR and without
// SO_REUSEPORT, so that a second agent on the same port fails instead of sharing it. Throws
// std::runtime_error with the system's reason ("Address already in use").
UniqueFd open_listen_socket(const ListenAddress& address, int backlog);

// A listening socket and the address it is bound to, with the port the system picked for port 0.
struct BoundListener {
  UniqueFd socket;
  ListenAddress address;  // the host as given, the port as bound
};

// Parses `listen` and opens its socket. Throws std::invalid_argument for a malformed address and
// std::runtime_error "cannot listen on ADDR:PORT: <the system's reason>".
BoundListener bind_listener(std::string_view listen, int backlog);

}  // namespace gpuwatch
