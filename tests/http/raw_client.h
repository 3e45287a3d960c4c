// A plain TCP client for the server tests that need to send what a library client would not: a byte at a
// time, a half-close, a Content-Length that the body does not match, bytes that are not UTF-8. Connects to
// 127.0.0.1 only; every wait is bounded by a deadline.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/unique_fd.h"

namespace gpuwatch::testing {

class RawClient {
 public:
  explicit RawClient(int port);  // connects, or leaves connected() false

  bool connected() const { return static_cast<bool>(fd_); }
  // Sends all of `bytes`; false when the server closed or reset the connection.
  bool send(std::string_view bytes);
  // Says the client has sent everything (shutdown(SHUT_WR)); the server may still reply.
  void shutdown_write();
  // Reads one reply (headers, then Content-Length bytes of body), or what arrived before the server closed
  // the connection or the timeout passed; "" if nothing arrived.
  std::string read_reply(std::chrono::milliseconds timeout);
  // Whether the server closes (or resets) the connection within `timeout`, discarding anything it sends.
  bool closed_within(std::chrono::milliseconds timeout);

 private:
  UniqueFd fd_;
  std::string buffered_;
};

// The status code of a reply's status line ("HTTP/1.1 413 ..."), or 0.
int reply_status(const std::string& reply);
// The body of a reply (after the blank line), or "".
std::string reply_body(const std::string& reply);

}  // namespace gpuwatch::testing
