// One receiver's HTTP side: POSTs a compressed WriteRequest with remote-write 1.0's headers, the target's
// headers, credentials and TLS settings, and sorts the answer as Prometheus does: 2xx accepted; 5xx, 429 and
// no answer retried (429's Retry-After honoured); any other status rejected for good (the samples are bad:
// sending them again cannot help).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "config/remote_write_target.h"

namespace gpuwatch::net {
class HttpClient;
}

namespace gpuwatch::remote_write {

struct SendOutcome {
  enum class Kind { kAccepted, kRetry, kRejected };
  Kind kind = Kind::kRetry;
  int status = 0;  // 0: no answer (connection refused, timeout, TLS failure)
  std::optional<std::chrono::milliseconds> retry_after;
  std::string message;  // for the log: what failed, with the receiver's own words
};

class ReceiverClient {
 public:
  // Throws std::runtime_error when the URL is not http(s), a credential file cannot be read, or the URL is
  // https and the TLS client module is missing ("module_missing: ...").
  explicit ReceiverClient(const RemoteWriteTarget& target);
  ~ReceiverClient();
  ReceiverClient(const ReceiverClient&) = delete;
  ReceiverClient& operator=(const ReceiverClient&) = delete;

  SendOutcome send(const std::string& compressed_request);
  // From another thread: cuts off a send in progress (it returns with no answer). For shutdown.
  void abort();

 private:
  std::string url_;
  std::string path_;
  std::unique_ptr<net::HttpClient> client_;
};

// Retry-After in either form RFC 9110 allows: delay-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2015
// 07:28:00 GMT", also the obsolete RFC 850 and asctime forms recipients must accept), the wait until `now`
// reaches it (zero for a date already past). Bounded to 5 minutes; nullopt for anything else, which falls
// back to the sender's own backoff.
std::optional<std::chrono::milliseconds> parse_retry_after(
    const std::string& value, std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace gpuwatch::remote_write
