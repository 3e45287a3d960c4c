// The HTTP server's record of its open connections: how many each client holds, and which phase of a
// request each is in since when. A watchdog thread cuts off (shuts down the socket of) a connection whose
// request line and headers, or whose body, take longer than their deadline: the library's own timeout is an
// idle timeout, which a client sending a byte every few seconds would never meet. It also closes, within a
// second or so, a connection whose client has closed its side between requests or in the middle of one.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "http/server_stats.h"

namespace gpuwatch {

class ConnectionDeadlines {
 public:
  enum class Phase {
    kHeaders,   // from accept, or from the request line on a reused connection, until the headers are in
    kBody,      // until the body is in
    kHandling,  // the server is answering: no deadline (the worker pool bounds that work)
    kIdle,      // a kept-alive connection between requests: bounded by idle + header deadline together
  };
  struct Timeouts {
    std::chrono::milliseconds header{10'000};
    std::chrono::milliseconds body{30'000};
    std::chrono::milliseconds idle{60'000};
  };
  class Connection {
   public:
    Connection(int fd, std::string client) : fd_(fd), client_(std::move(client)) {}
    // Called on the server's event thread as the request moves on.
    void enter(Phase phase);
    Phase phase() const { return phase_.load(); }
    const std::string& client() const { return client_; }

   private:
    friend class ConnectionDeadlines;
    const int fd_;
    const std::string client_;
    std::atomic<Phase> phase_{Phase::kHeaders};
    std::atomic<std::chrono::steady_clock::rep> since_{
        std::chrono::steady_clock::now().time_since_epoch().count()};
    bool cut_ = false;  // guarded by the registry's mutex
  };

  // Starts the watchdog; cut-offs are counted in `stats` (which must outlive this).
  ConnectionDeadlines(Timeouts timeouts, ServerStats& stats);
  ~ConnectionDeadlines();  // stops the watchdog
  ConnectionDeadlines(const ConnectionDeadlines&) = delete;
  ConnectionDeadlines& operator=(const ConnectionDeadlines&) = delete;

  // A new connection, in kHeaders; the pointer stays valid until close(it).
  Connection* open(int fd, std::string client);
  // Before the socket is closed: the watchdog never touches it afterwards.
  void close(Connection* connection);

  std::size_t open_connections() const;
  std::size_t open_from(const std::string& client) const;

 private:
  void watch();
  void cut_late_or_gone(std::chrono::steady_clock::time_point now);

  const Timeouts timeouts_;
  ServerStats& stats_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::unordered_map<const Connection*, std::unique_ptr<Connection>> connections_;
  std::map<std::string, std::size_t, std::less<>> per_client_;
  std::thread watchdog_;
};

}  // namespace gpuwatch
