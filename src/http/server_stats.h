// What the HTTP server counts about itself for /metrics: requests it refused, by reason, and the connections
// and requests it holds now. Updated from the server's threads; read when /metrics is rendered.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exposition/exposition.h"

namespace gpuwatch {

enum class RejectReason {
  kHeaderTimeout,          // the request line and headers did not arrive within the header deadline
  kBodyTimeout,            // the body did not arrive within the body deadline
  kHeadersTooLarge,        // 431: too many header fields, or too many bytes of them
  kBodyTooLarge,           // 413: more body than the route accepts
  kBusy,                   // 503: the worker pool's queue was full
  kReplyTooLarge,          // 422: an added route's reply (a query result) exceeded the reply limit
  kConnectionLimit,        // the connection was refused: the server holds its maximum of connections
  kClientConnectionLimit,  // the connection was refused: that client address holds its maximum
};
inline constexpr std::size_t kRejectReasons = 8;

// The reason's label value on gpuwatch_http_requests_rejected_total.
const char* reject_reason_name(RejectReason reason);

class ServerStats {
 public:
  void reject(RejectReason reason) { rejected_[static_cast<std::size_t>(reason)].fetch_add(1); }
  std::uint64_t rejected(RejectReason reason) const {
    return rejected_[static_cast<std::size_t>(reason)].load();
  }

  std::atomic<std::int64_t> connections{0};  // open client connections

  // Appends gpuwatch_http_requests_rejected_total{reason}, gpuwatch_http_connections and, from `pool`,
  // gpuwatch_http_requests_in_flight and gpuwatch_http_requests_queued.
  void append_metrics(std::string& out, ExpositionFormat format, std::size_t in_flight,
                      std::size_t queued) const;
  // The same families, for the history.
  std::vector<Family> families(std::size_t in_flight, std::size_t queued) const;

 private:
  std::array<std::atomic<std::uint64_t>, kRejectReasons> rejected_{};
};

}  // namespace gpuwatch
