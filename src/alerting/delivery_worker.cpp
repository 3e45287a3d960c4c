#include "alerting/delivery_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace gpuwatch::alerting {

DeliveryWorker::DeliveryWorker(std::unique_ptr<Receiver> receiver, std::shared_ptr<DeliveryQueue> queue,
                               RetryPolicy retry)
    : receiver_(std::move(receiver)),
      queue_(std::move(queue)),
      retry_(retry),
      thread_([this](std::stop_token stop) { run(std::move(stop)); }) {}

DeliveryWorker::~DeliveryWorker() {
  thread_.request_stop();
}

DeliveryCounters DeliveryWorker::counters() const {
  return DeliveryCounters{sent_.load(), failed_.load(), queue_->size()};
}

void DeliveryWorker::run(std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  std::chrono::milliseconds backoff{0};
  std::mutex mutex;  // only for sleeping interruptibly between attempts
  std::condition_variable_any wake;
  while (!stop.stop_requested()) {
    const auto batch = queue_->wait_and_take(stop, Clock::now() + std::chrono::seconds(1));
    if (batch.alerts.empty()) continue;
    const std::string error = receiver_->send(batch.alerts);
    if (error.empty()) {
      queue_->acknowledge(batch);
      sent_.fetch_add(batch.alerts.size());
      if (backoff.count() > 0) spdlog::info("alerts: {} reachable again", receiver_->name());
      backoff = std::chrono::milliseconds{0};
      continue;
    }
    failed_.fetch_add(1);
    backoff = backoff.count() == 0 ? retry_.initial : std::min(backoff * 2, retry_.max);
    spdlog::warn("alerts: delivery to {} failed ({} alert(s) kept queued, retry in {} ms): {}",
                 receiver_->name(), batch.alerts.size(), backoff.count(), error);
    std::unique_lock lock(mutex);
    wake.wait_for(lock, stop, backoff, [] { return false; });
  }
}

}  // namespace gpuwatch::alerting
