// One receiver of remote write: its disk queue and the thread that empties it, oldest request first. A
// request leaves the queue only when the receiver accepted it (2xx) or rejected it for good (4xx other than
// 429, counted as dropped); on 5xx, 429 or no answer the same batch is sent again after a backoff (doubling
// from 100 ms to 10 s, or the receiver's Retry-After), so nothing is lost while the receiver is away and
// what was queued goes out in order, then the queue catches up. A receiver that saw a batch whose answer
// never came (the agent killed mid-send) gets it again: receivers take a sample they already hold as a no-op.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "config/remote_write_target.h"
#include "remote_write/disk_queue.h"
#include "remote_write/receiver_client.h"
#include "remote_write/write_request.h"

namespace gpuwatch::remote_write {

struct RemoteWriteStats {
  std::string name;
  QueueStats queue;
  std::uint64_t samples_sent = 0;
  std::uint64_t bytes_sent = 0;  // compressed, as on the wire
  std::uint64_t requests_sent = 0;
  std::uint64_t failures_server = 0;     // 5xx, retried
  std::uint64_t failures_throttled = 0;  // 429, retried
  std::uint64_t failures_network = 0;    // no answer, retried
  std::uint64_t dropped_rejected = 0;    // samples of requests the receiver refused for good
  std::uint64_t dropped_queue_full = 0;  // samples given up because the queue reached its size
  std::int64_t newest_sent_ms = 0;       // the newest sample the receiver acknowledged
};

class RemoteWriter {
 public:
  // The queue is `<queue_dir>/<target.name>.sqlite`; format: the module's, which compresses what is queued.
  // Throws when the queue cannot be opened or the target is unusable (store::StoreError, std::runtime_error).
  // Starts sending at once.
  RemoteWriter(const RemoteWriteTarget& target, const std::string& queue_dir,
               std::shared_ptr<const WireFormat> format);
  ~RemoteWriter();  // stops the sender; an answer being waited for is given up (the batch stays queued)
  RemoteWriter(const RemoteWriter&) = delete;
  RemoteWriter& operator=(const RemoteWriter&) = delete;

  const std::string& name() const { return name_; }
  // Queues the request durably and wakes the sender. Throws store::StoreError (a full disk).
  void enqueue(const WriteRequestBuilder& request);
  RemoteWriteStats stats() const;

  static constexpr std::size_t kMaxSamplesPerSend = 10'000;

 private:
  void run(std::stop_token stop);
  // Waits `d` unless stopped first; false when stopped.
  bool pause(std::stop_token& stop, std::chrono::milliseconds d);

  std::string name_;
  std::string url_;
  std::shared_ptr<const WireFormat> format_;
  DiskQueue queue_;
  ReceiverClient client_;
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  bool pending_ = false;  // a push since the sender last looked
  std::atomic<std::uint64_t> samples_sent_{0}, bytes_sent_{0}, requests_sent_{0};
  std::atomic<std::uint64_t> failures_server_{0}, failures_throttled_{0}, failures_network_{0};
  std::atomic<std::uint64_t> dropped_rejected_{0}, dropped_queue_full_{0};
  std::atomic<std::int64_t> newest_sent_ms_{0};
  std::jthread sender_;  // last: started after everything it uses
};

}  // namespace gpuwatch::remote_write
