#include "http/connection_deadlines.h"

#include <sys/socket.h>

#include <algorithm>

namespace gpuwatch {
namespace {

// Whether the client has closed its side and left nothing unread: then no request can come on this
// connection, nor the rest of one begun. The library, woken once by data and end of stream arriving
// together, may not read again to see the end, and would hold such a connection until its idle timeout.
// Checked only once a phase has lasted a while: the library may have read a whole request (or a pipelined
// next one) and the end of stream behind it, and not yet told us it moved on.
constexpr std::chrono::milliseconds kGoneAfter{250};

bool client_is_gone(int fd) {
  char byte = 0;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace

void ConnectionDeadlines::Connection::enter(Phase phase) {
  since_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  phase_.store(phase);
}

ConnectionDeadlines::ConnectionDeadlines(Timeouts timeouts, ServerStats& stats)
    : timeouts_(timeouts), stats_(stats), watchdog_([this] { watch(); }) {}

ConnectionDeadlines::~ConnectionDeadlines() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

ConnectionDeadlines::Connection* ConnectionDeadlines::open(int fd, std::string client) {
  auto connection = std::make_unique<Connection>(fd, std::move(client));
  Connection* raw = connection.get();
  std::lock_guard lock(mutex_);
  ++per_client_[raw->client()];
  connections_.emplace(raw, std::move(connection));
  return raw;
}

void ConnectionDeadlines::close(Connection* connection) {
  std::lock_guard lock(mutex_);
  const auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  if (const auto c = per_client_.find(connection->client()); c != per_client_.end() && --c->second == 0) {
    per_client_.erase(c);
  }
  connections_.erase(it);
}

std::size_t ConnectionDeadlines::open_connections() const {
  std::lock_guard lock(mutex_);
  return connections_.size();
}

std::size_t ConnectionDeadlines::open_from(const std::string& client) const {
  std::lock_guard lock(mutex_);
  const auto it = per_client_.find(client);
  return it == per_client_.end() ? 0 : it->second;
}

void ConnectionDeadlines::watch() {
  // Checked a few times per shortest deadline, so a cut-off comes at most a quarter of it late.
  const auto shortest = std::min(timeouts_.header, timeouts_.body);
  const auto tick = std::clamp(shortest / 4, std::chrono::milliseconds(20), std::chrono::milliseconds(1000));
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, tick, [this] { return stopping_; })) {
    lock.unlock();
    const auto now = std::chrono::steady_clock::now();
    lock.lock();
    cut_late_or_gone(now);
  }
}

void ConnectionDeadlines::cut_late_or_gone(std::chrono::steady_clock::time_point now) {
  for (auto& [key, c] : connections_) {
    if (c->cut_ || c->fd_ < 0) continue;
    const Phase phase = c->phase_.load();
    const auto since =
        std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(c->since_.load()));
    std::chrono::milliseconds allowed{0};
    RejectReason reason = RejectReason::kHeaderTimeout;
    switch (phase) {
      case Phase::kHeaders:
        allowed = timeouts_.header;
        break;
      case Phase::kBody:
        allowed = timeouts_.body;
        reason = RejectReason::kBodyTimeout;
        break;
      case Phase::kIdle:
        allowed = timeouts_.idle + timeouts_.header;
        break;
      case Phase::kHandling:
        continue;  // a client that half-closed still gets its reply
    }
    const bool late = now - since > allowed;
    if (!late && (now - since < kGoneAfter || !client_is_gone(c->fd_))) continue;
    // Under the mutex: close() cannot run, so the descriptor is still this connection's. Shutting it down
    // (not closing it) makes the event loop see the end of the stream and close the connection itself.
    ::shutdown(c->fd_, SHUT_RDWR);
    c->cut_ = true;
    if (late) stats_.reject(reason);
  }
}

}  // namespace gpuwatch
