// A remote-write receiver that misbehaves on purpose, in front of a real one: it answers scripted statuses
// (500s, 429s with Retry-After) without passing the request on, or passes a request on and then holds its
// answer (the receiver has the samples, the sender never hears so: the moment to kill the sender), and
// otherwise forwards each request unchanged and answers what the real receiver answered.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace gpuwatch::test {

class FaultProxy {
 public:
  explicit FaultProxy(std::string upstream_write_url);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  std::string write_url() const;
  // The next `count` requests get `status` (and Retry-After when given), unforwarded.
  void answer(int status, int count, const std::string& retry_after = "");
  // The next request is forwarded, then its answer held until release().
  void hold_next();
  bool wait_until_held(std::chrono::milliseconds limit);
  void release();
  int requests() const;
  int forwarded() const;

 private:
  struct Scripted {
    int status = 0;  // 0: forward, then hold
    std::string retry_after;
  };
  std::string upstream_origin_, upstream_path_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Scripted> script_;
  bool holding_ = false, released_ = false;
  int requests_ = 0, forwarded_ = 0;
  std::thread thread_;
};

}  // namespace gpuwatch::test
