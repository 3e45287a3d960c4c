#include "collector/event_listener.h"

#include <condition_variable>
#include <mutex>
#include <utility>

namespace gpuwatch {

struct EventListener::Delivery {
  std::mutex mutex;
  std::condition_variable registered_cv;
  EventCallback callback;
  bool closed = false;
  bool registered = false;
};

EventListener::EventListener(std::shared_ptr<const NvmlLibrary> lib, std::vector<WatchedDevice> devices,
                             std::shared_ptr<EventCounts> counts, EventCallback callback,
                             std::chrono::steady_clock::time_point registered_by)
    : delivery_(std::make_shared<Delivery>()) {
  delivery_->callback = std::move(callback);
  worker_ = std::make_unique<AbandonableWorker>(
      [lib = std::move(lib), devices = std::move(devices), counts = std::move(counts),
       delivery = delivery_](std::stop_token stop) {
        NvmlEventSet set(lib, devices);
        {
          std::lock_guard lock(delivery->mutex);
          delivery->registered = true;
        }
        delivery->registered_cv.notify_all();
        if (!set.ok()) return;  // no event API, or no device supports the wanted types
        while (!stop.stop_requested()) {
          const auto event = set.wait(kWaitMs);
          if (!event) continue;
          counts->record(*event->uuid, event->type, event->data);
          std::lock_guard lock(delivery->mutex);
          if (!delivery->closed && delivery->callback)
            delivery->callback(*event->uuid, event->type, event->data);
        }
      },
      std::chrono::milliseconds(4 * kWaitMs));
  worker_->start();
  std::unique_lock lock(delivery_->mutex);
  delivery_->registered_cv.wait_until(lock, registered_by, [&] { return delivery_->registered; });
}

EventListener::~EventListener() {
  {
    std::lock_guard lock(delivery_->mutex);
    delivery_->closed = true;
  }
  worker_.reset();
}

}  // namespace gpuwatch
