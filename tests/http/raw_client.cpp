#include "raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <strings.h>
#include <cstdlib>

namespace gpuwatch::testing {
namespace {

using Clock = std::chrono::steady_clock;

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

// The Content-Length of a header block, or 0.
std::size_t content_length(std::string_view headers) {
  std::size_t pos = 0;
  while ((pos = headers.find("\r\n", pos)) != std::string_view::npos) {
    pos += 2;
    constexpr std::string_view kName = "content-length:";
    if (headers.size() - pos > kName.size() &&
        ::strncasecmp(headers.data() + pos, kName.data(), kName.size()) == 0) {
      return std::strtoul(std::string(headers.substr(pos + kName.size(), 20)).c_str(), nullptr, 10);
    }
  }
  return 0;
}

}  // namespace

RawClient::RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (!fd_) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fd_.reset();
}

bool RawClient::send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void RawClient::shutdown_write() {
  ::shutdown(fd_.get(), SHUT_WR);
}

std::string RawClient::read_reply(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string& got = buffered_;
  while (true) {
    if (const auto end = got.find("\r\n\r\n"); end != std::string::npos) {
      const std::size_t total = end + 4 + content_length(std::string_view(got).substr(0, end + 2));
      if (got.size() >= total) {
        std::string reply = got.substr(0, total);
        got.erase(0, total);
        return reply;
      }
    }
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, ms_left(deadline)) <= 0) break;
    char chunk[16384];
    const ssize_t n = ::recv(fd_.get(), chunk, sizeof chunk, 0);
    if (n <= 0) break;
    got.append(chunk, static_cast<std::size_t>(n));
  }
  return std::exchange(got, std::string());
}

bool RawClient::closed_within(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, ms_left(deadline)) <= 0) return false;
    char chunk[4096];
    if (::recv(fd_.get(), chunk, sizeof chunk, 0) <= 0) return true;
  }
}

int reply_status(const std::string& reply) {
  if (reply.size() < 12 || !reply.starts_with("HTTP/1.")) return 0;
  return std::atoi(reply.substr(9, 3).c_str());
}

std::string reply_body(const std::string& reply) {
  const auto end = reply.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : reply.substr(end + 4);
}

}  // namespace gpuwatch::testing
