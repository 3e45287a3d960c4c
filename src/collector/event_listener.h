// Listens for NVML events (XIDs, ECC, retirement, poison, unavailable, recovery action, MIG reconfiguration)
// on its own thread, counts them into EventCounts and calls the callback for each, so the detectors can
// wake at once instead of waiting for the next tick. Registration happens on that thread too, since it calls
// each device. The thread is abandonable: destruction returns even if it is stuck in the driver, and the
// callback is never called after the destructor returned.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collector/abandonable_worker.h"
#include "collector/event_counts.h"
#include "sources/nvml/event_set.h"

namespace gpuwatch {

using EventCallback =
    std::function<void(const std::string& uuid, unsigned long long type, unsigned long long data)>;

class EventListener {
 public:
  // How long one wait in the driver lasts; also the bound on how late a stop request is noticed.
  static constexpr unsigned kWaitMs = 50;

  // Waits until the devices are registered, or until registered_by at the latest (registration calls
  // each device and may hang like any call): events from the moment of registration on are counted.
  EventListener(std::shared_ptr<const NvmlLibrary> lib, std::vector<WatchedDevice> devices,
                std::shared_ptr<EventCounts> counts, EventCallback callback,
                std::chrono::steady_clock::time_point registered_by);
  ~EventListener();
  EventListener(const EventListener&) = delete;
  EventListener& operator=(const EventListener&) = delete;

  // False once the thread has given up (no event API, no device supports the wanted types).
  bool listening() const { return worker_->busy(); }

 private:
  struct Delivery;  // the callback, guarded so it is never called after destruction; registration state
  std::shared_ptr<Delivery> delivery_;
  std::unique_ptr<AbandonableWorker> worker_;
};

}  // namespace gpuwatch
