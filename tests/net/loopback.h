// Loopback peers for the client's tests: cpp-httplib's server on a port it picks, a socket that listens but
// never answers, and a port nothing listens on.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>

namespace gpuwatch::net::test {

// Serves `server` on 127.0.0.1 from a thread, on a port the system picks; stops it when destroyed.
class Serving {
 public:
  explicit Serving(std::unique_ptr<httplib::Server> server) : server_(std::move(server)) {
    port_ = server_->bind_to_any_port("127.0.0.1");
    EXPECT_GT(port_, 0);
    thread_ = std::thread([this] { server_->listen_after_bind(); });
  }
  ~Serving() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

// A listening socket nobody accepts on: connecting succeeds (the kernel's backlog), no answer ever comes.
class Silent {
 public:
  Silent() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  ~Silent() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A port that was free a moment ago and is closed again: connecting to it is refused.
inline int closed_port() {
  const Silent once;
  return once.port();
}

inline std::string url(int port, const std::string& path = "/", const std::string& scheme = "http") {
  return scheme + "://127.0.0.1:" + std::to_string(port) + path;
}

}  // namespace gpuwatch::net::test
