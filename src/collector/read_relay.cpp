#include "collector/read_relay.h"

#include <algorithm>
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
  std::chrono::steady_clock::time_point began;  // of the read running, or the end of the one before it
  int waiting_for_one = 0;                      // callers of wait_for(i), woken at each read's end

  void run(const std::stop_token& stop) {
    for (;;) {
      Read read;
      std::size_t index = 0;
      {
        std::lock_guard lock(mutex);
        if (next >= reads.size() || stop.stop_requested()) return;
        index = next++;
        current = index;
        began = std::chrono::steady_clock::now();
        read = reads[index];  // a copy: the owner may start over once this one is taken back
      }
      read();
      bool wake = false;
      {
        std::lock_guard lock(mutex);
        current = kNone;
        finished = index + 1;
        began = std::chrono::steady_clock::now();
        wake = next >= reads.size() || waiting_for_one > 0;
      }
      // wait_for_all() sleeps until every read has ended or one overruns its share: waking it after each
      // read would cost a hand-off between threads per GPU.
      if (wake) ended.notify_all();
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
    state_->began = std::chrono::steady_clock::now();
  }
  return worker_.start();
}

bool ReadRelay::wait_for_all(std::chrono::steady_clock::duration share,
                             std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(state_->mutex);
  for (;;) {
    if (state_->finished >= state_->reads.size()) return true;
    const auto overrun = state_->began + share;
    const auto now = std::chrono::steady_clock::now();
    if (now >= overrun) return true;
    if (now >= deadline) return false;
    state_->ended.wait_until(lock, std::min(deadline, overrun));
  }
}

bool ReadRelay::all_ended() const {
  std::lock_guard lock(state_->mutex);
  return state_->finished >= state_->reads.size();
}

bool ReadRelay::wait_for(std::size_t i, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(state_->mutex);
  ++state_->waiting_for_one;
  const bool ended = state_->ended.wait_until(lock, deadline, [&] { return state_->finished > i; });
  --state_->waiting_for_one;
  return ended;
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
