#include "sim_serve/sim_services.h"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "http/http_server.h"

namespace gpuwatch {
namespace {

using ServiceCount = int (*)(unsigned*);
using ServiceInfo = int (*)(unsigned, unsigned*, unsigned*, char*, unsigned);
using ServiceMetrics = int (*)(unsigned, char*, unsigned, unsigned*);
constexpr int kGpuIsLost = 15;                        // NVML_ERROR_GPU_IS_LOST
constexpr int kInsufficientSize = 7;                  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr unsigned long long kInodeBase = 7'300'000;  // the fake sockets' inodes: base + service index

template <typename F>
F symbol(const NvmlLibrary& lib, const char* name) {
  auto* f = reinterpret_cast<F>(lib.optional_symbol(name));
  if (!f) throw std::runtime_error(lib.path() + " is not the gpuwatch simulator (no " + name + ")");
  return f;
}

}  // namespace

// One service's listener, re-bound after its GPU came back (a reset) and closed while the GPU is lost.
struct SimServices::Listener {
  Listener(ServiceMetrics metrics, unsigned index, unsigned port)
      : metrics_(metrics), index_(index), port_(port) {}
  ~Listener() {
    stopping_ = true;
    if (watch_.joinable()) watch_.join();
    close();
  }

  // The text now, or nullopt when the GPU is lost.
  std::optional<std::string> render() const {
    std::string buf(1 << 16, '\0');
    unsigned needed = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      const int rc = metrics_(index_, buf.data(), static_cast<unsigned>(buf.size()), &needed);
      if (rc == kGpuIsLost) return std::nullopt;
      if (rc == kInsufficientSize) {
        buf.resize(needed);
        continue;
      }
      if (rc != 0) return std::string();
      buf.resize(needed > 0 ? needed - 1 : 0);
      return buf;
    }
    return std::string();
  }

  unsigned open(bool any_port) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(any_port ? 0 : port_);
    options.threads = 1;
    options.event_threads = 1;
    options.builtin_endpoints = false;
    options.routes.push_back(
        {{"GET"}, "/metrics", "", [this](const HttpRequest&) {
           auto text = render();
           if (!text) return HttpReply{503, "text/plain", "the GPU is lost\n", {}};
           return HttpReply{200, "text/plain; version=0.0.4; charset=utf-8", std::move(*text), {}};
         }});
    auto server = std::make_unique<HttpServer>(
        std::move(options), [] { return SnapshotPtr(); }, [] { return true; });
    try {
      server->start();
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot serve 127.0.0.1:" + std::to_string(port_) + ": " + e.what());
    }
    port_ = static_cast<unsigned>(server->port());
    server_ = std::move(server);
    return port_;
  }

  void close() { server_.reset(); }

  // Closes the listener while the GPU is lost, so connections are refused, and opens it again after.
  void watch() {
    watch_ = std::thread([this] {
      while (!stopping_) {
        const bool lost = !render().has_value();
        if (lost && server_) close();
        if (!lost && !server_) {
          try {
            open(false);
          } catch (const std::runtime_error&) {
            // The port is taken meanwhile: try again on the next round.
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }

  unsigned port() const { return port_; }

 private:
  ServiceMetrics metrics_;
  unsigned index_;
  unsigned port_;
  std::unique_ptr<HttpServer> server_;
  std::thread watch_;
  std::atomic<bool> stopping_{false};
};

SimServices::SimServices(std::shared_ptr<const NvmlLibrary> library, bool any_port)
    : library_(std::move(library)) {
  const auto count = symbol<ServiceCount>(*library_, "gpuwatchSimServiceCount");
  const auto info = symbol<ServiceInfo>(*library_, "gpuwatchSimServiceInfo");
  const auto metrics = symbol<ServiceMetrics>(*library_, "gpuwatchSimServiceMetrics");
  unsigned n = 0;
  if (count(&n) != 0) throw std::runtime_error("the simulator is not initialised");
  for (unsigned i = 0; i < n; ++i) {
    SimService s;
    s.index = i;
    char kind[16] = {};
    if (info(i, &s.port, &s.pid, kind, sizeof kind) != 0)
      throw std::runtime_error("cannot read service " + std::to_string(i));
    s.kind = kind;
    auto listener = std::make_unique<Listener>(metrics, i, any_port ? 0 : s.port);
    s.port = listener->open(any_port);
    listener->watch();
    listeners_.push_back(std::move(listener));
    services_.push_back(std::move(s));
  }
}

SimServices::~SimServices() = default;

bool SimServices::write_proc_sockets(const std::string& dir) const {
  std::map<unsigned, std::vector<const SimService*>> by_pid;
  for (const auto& s : services_) by_pid[s.pid].push_back(&s);
  std::error_code ec;
  for (const auto& [pid, services] : by_pid) {
    const std::filesystem::path proc = std::filesystem::path(dir) / std::to_string(pid);
    std::filesystem::create_directories(proc / "net", ec);
    std::filesystem::create_directories(proc / "fd", ec);
    if (ec) return false;
    std::ofstream tcp(proc / "net" / "tcp");
    tcp << "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
           "inode\n";
    unsigned slot = 0;
    for (const auto* s : services) {
      const unsigned long long inode = kInodeBase + s->index;
      char row[200];
      std::snprintf(
          row, sizeof row,
          "%4u: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 %llu 1 "
          "0000000000000000 100 0 0 10 0\n",
          slot++, s->port, inode);
      tcp << row;
      const auto link = proc / "fd" / std::to_string(20 + s->index);
      std::filesystem::remove(link, ec);
      std::filesystem::create_symlink("socket:[" + std::to_string(inode) + "]", link, ec);
      if (ec) return false;
    }
    if (!tcp) return false;
    std::ofstream(proc / "net" / "tcp6")
        << "  sl  local_address                         remote_address                        st\n";
  }
  return true;
}

}  // namespace gpuwatch
