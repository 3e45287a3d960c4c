// Delivers one receiver's queue on a thread of its own, so a slow or absent receiver never blocks
// collection or evaluation. Failed batches stay queued and are retried with exponential backoff.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "alerting/delivery_queue.h"
#include "alerting/receiver.h"

namespace gpuwatch::alerting {

struct RetryPolicy {
  std::chrono::milliseconds initial{500};  // wait after the first failure
  std::chrono::milliseconds max{30000};    // the backoff doubles up to this
};

struct DeliveryCounters {
  std::uint64_t sent = 0;    // alerts the receiver accepted
  std::uint64_t failed = 0;  // delivery attempts that failed
  std::size_t queued = 0;    // alerts waiting now
};

class DeliveryWorker {
 public:
  DeliveryWorker(std::unique_ptr<Receiver> receiver, std::shared_ptr<DeliveryQueue> queue, RetryPolicy retry);
  ~DeliveryWorker();  // stops the thread; what is queued stays on disk for the next run
  DeliveryWorker(const DeliveryWorker&) = delete;
  DeliveryWorker& operator=(const DeliveryWorker&) = delete;

  const std::string& receiver_name() const { return receiver_->name(); }
  DeliveryQueue& queue() { return *queue_; }
  DeliveryCounters counters() const;

 private:
  void run(std::stop_token stop);

  std::unique_ptr<Receiver> receiver_;
  std::shared_ptr<DeliveryQueue> queue_;
  RetryPolicy retry_;
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> failed_{0};
  std::jthread thread_;  // last: started after everything it uses
};

}  // namespace gpuwatch::alerting
