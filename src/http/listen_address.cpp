#include "http/listen_address.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "core/unique_fd.h"

namespace gpuwatch {
ListenAddress parse_listen_address(std::string_view text) {
  const std::string where = "listen address \"" + std::string(text) + "\": ";
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    throw std::invalid_argument(where + "expected ADDR:PORT, e.g. 0.0.0.0:19400");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']'))
      throw std::invalid_argument(where + "an IPv6 address in brackets lacks its ']'");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    throw std::invalid_argument(where + "write an IPv6 address in brackets, e.g. [::1]:19400");
  }
  int port = -1;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    throw std::invalid_argument(where + "the port must be a number from 0 to 65535");
  }
  return ListenAddress{host.empty() ? "0.0.0.0" : std::string(host), port};
}

std::string format_listen_address(const ListenAddress& address) {
  const bool v6 = address.host.find(':') != std::string::npos;
  return (v6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
}

UniqueFd open_listen_socket(const ListenAddress& address, int backlog) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* raw = nullptr;
  const std::string port = std::to_string(address.port);
  if (const int rc = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &raw); rc != 0) {
    throw std::runtime_error(::gai_strerror(rc));
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> info(raw, &::freeaddrinfo);
  std::string reason = "no usable address";
  for (const addrinfo* ai = info.get(); ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd) {
      reason = std::strerror(errno);
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd.get(), backlog) != 0) {
      reason = std::strerror(errno);
      continue;
    }
    return fd;
  }
  throw std::runtime_error(reason);
}

BoundListener bind_listener(std::string_view listen, int backlog) {
  BoundListener out{UniqueFd(), parse_listen_address(listen)};
  try {
    out.socket = open_listen_socket(out.address, backlog);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot listen on " + std::string(listen) + ": " + e.what());
  }
  sockaddr_storage bound{};
  socklen_t bound_len = sizeof bound;
  if (::getsockname(out.socket.get(), reinterpret_cast<sockaddr*>(&bound), &bound_len) == 0) {
    out.address.port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                         : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  return out;
}

}  // namespace gpuwatch
