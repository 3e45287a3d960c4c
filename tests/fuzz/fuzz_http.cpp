// Raw bytes from a client of the agent's HTTP server: whatever arrives (a broken request line, odd headers,
// chunked bodies, a query API request with any parameters), the server answers or closes the connection,
// never crashes, and goes on serving. One server for the whole run, on loopback, with the query API over a
// few series.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "core/unique_fd.h"
#include "http/http_server.h"
#include "query/memory_series_source.h"
#include "query/query_api.h"

namespace {

using gpuwatch::UniqueFd;

std::shared_ptr<const gpuwatch::store::SeriesSource> series() {
  auto s = std::make_shared<gpuwatch::query::MemorySeriesSource>();
  for (int t = 0; t <= 600; t += 15) {
    s->add({{"__name__", "gpu_utilization_ratio"}, {"gpu", "0"}}, t * 1000LL, t / 600.0);
    s->add({{"__name__", "gpu_power_watts"}, {"gpu", "1"}}, t * 1000LL, 300.0 + t);
  }
  return s;
}

gpuwatch::HttpServer& server() {
  static const auto instance = [] {
    gpuwatch::HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    gpuwatch::query::QueryApiOptions api;
    api.now_ms = [] { return std::int64_t{600'000}; };
    options.routes = gpuwatch::query::query_routes(series(), std::move(api));
    options.header_timeout = std::chrono::milliseconds(500);
    options.body_timeout = std::chrono::milliseconds(500);
    auto s = std::make_unique<gpuwatch::HttpServer>(
        options, [] { return gpuwatch::SnapshotPtr{}; }, [] { return true; });
    s->start();
    return s;
  }();
  return *instance;
}

// Sends `request`, half-closes, and reads until the server closes, falls quiet or 2 s pass; returns what
// came back.
std::string exchange(int port, const std::uint8_t* data, std::size_t size, int quiet_ms) {
  const UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return {};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return {};
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::send(fd.get(), data + done, size - done, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse the rest (413, 431) and close
    done += static_cast<std::size_t>(n);
  }
  ::shutdown(fd.get(), SHUT_WR);
  std::string reply;
  // A reply comes at once or not at all (an incomplete request waits for its deadline): stop reading after
  // quiet_ms without data, so the fuzzer tries inputs instead of waiting.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  char buf[16384];
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, quiet_ms) <= 0) break;
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
  }
  return reply;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return -1;
  const int port = server().port();
  (void)exchange(port, data, size, 100);
  // The server still serves after every input.
  static constexpr char kHealth[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  static unsigned inputs = 0;
  if (++inputs % 64 == 0) {
    const std::string reply =
        exchange(port, reinterpret_cast<const std::uint8_t*>(kHealth), sizeof kHealth - 1, 2000);
    if (reply.rfind("HTTP/1.1 200", 0) != 0) {
      std::fprintf(stderr, "/healthz answered: %.200s\n", reply.c_str());
      __builtin_trap();
    }
  }
  return 0;
}
