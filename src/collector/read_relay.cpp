#include "collector/read_relay.h"

#include <condition_variable>
#include <mutex>
#include <utility>

namespace gpuwatch {

struct ReadRelay::State {
  mutable std::mutex mutex;
  std::condition_variable ended;  // a read ended
  std::vector<Read> reads;
  std::size_t next = 0;      // the first read not begun (or taken back from there)
  std::size_t finished = 0;  // reads that ended: the first `finished`, since they run in order
  std::size_t current = kNone;

  void run(const std::stop_token& stop) {
    for (;;) {
      Read read;
      std::size_t index = 0;
      {
        std::lock_guard lock(mutex);
        if (next >= reads.size() || stop.stop_requested()) return;
        index = next++;
        current = index;
        read = reads[index];  // a copy: the owner may start over once this one is taken back
      }
      read();
      {
        std::lock_guard lock(mutex);
        current = kNone;
        finished = index + 1;
      }
      ended.notify_all();
    }
  }
};

ReadRelay::ReadRelay()
    : state_(std::make_shared<State>()),
      worker_([state = state_](const std::stop_token& stop) { state->run(stop); }) {}

bool ReadRelay::start(std::vector<Read> reads) {
  if (worker_.busy()) return false;
  {
    std::lock_guard lock(state_->mutex);
    state_->reads = std::move(reads);
    state_->next = 0;
    state_->finished = 0;
  }
  return worker_.start();
}

bool ReadRelay::wait_for(std::size_t i, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(state_->mutex);
  return state_->ended.wait_until(lock, deadline, [&] { return state_->finished > i; });
}

std::size_t ReadRelay::take_back() {
  std::lock_guard lock(state_->mutex);
  const std::size_t first = state_->next;
  state_->next = state_->reads.size();
  return first;
}

std::size_t ReadRelay::running() const {
  std::lock_guard lock(state_->mutex);
  return state_->current;
}

}  // namespace gpuwatch
