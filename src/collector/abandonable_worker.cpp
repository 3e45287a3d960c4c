#include "collector/abandonable_worker.h"

#include <condition_variable>
#include <mutex>
#include <utility>

namespace gpuwatch {

struct AbandonableWorker::State {
  std::mutex mutex;
  std::condition_variable changed;
  Job job;
  std::stop_source stop;
  bool requested = false;  // a run was asked for and has not begun
  bool running = false;
  bool exited = false;
};

AbandonableWorker::AbandonableWorker(Job job, std::chrono::milliseconds shutdown_grace)
    : state_(std::make_shared<State>()), grace_(shutdown_grace) {
  state_->job = std::move(job);
}

// The thread starts with the first run: a worker that is never started (a one-shot read that reads its GPUs
// in turn) costs no thread.
void AbandonableWorker::launch() {
  thread_ = std::thread([state = state_] {
    std::unique_lock lock(state->mutex);
    for (;;) {
      state->changed.wait(lock, [&] { return state->requested || state->stop.stop_requested(); });
      if (state->stop.stop_requested()) {
        state->requested = false;  // a run asked for but never begun: the worker is idle now
        break;
      }
      state->requested = false;
      state->running = true;
      lock.unlock();
      state->job(state->stop.get_token());
      lock.lock();
      state->running = false;
      // Woken after the lock is let go: a waiter woken under it would only wait again, for the lock.
      lock.unlock();
      state->changed.notify_all();
      lock.lock();
    }
    state->exited = true;
    state->changed.notify_all();
  });
}

AbandonableWorker::~AbandonableWorker() {
  request_stop();
  if (!thread_.joinable()) return;  // never started
  std::unique_lock lock(state_->mutex);
  const bool exited = state_->changed.wait_for(lock, grace_, [&] { return state_->exited; });
  lock.unlock();
  if (exited) {
    thread_.join();
  } else {
    thread_.detach();  // stuck in a call that cannot be cancelled; it owns what it uses
  }
}

bool AbandonableWorker::start() {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->running || state_->requested || state_->stop.stop_requested()) return false;
    state_->requested = true;
  }
  if (!thread_.joinable()) {
    launch();  // the new thread sees the request: nothing to wake
    return true;
  }
  state_->changed.notify_all();
  return true;
}

bool AbandonableWorker::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(state_->mutex);
  return state_->changed.wait_until(lock, deadline, [&] { return !state_->running && !state_->requested; });
}

bool AbandonableWorker::busy() const {
  std::lock_guard lock(state_->mutex);
  return state_->running || state_->requested;
}

void AbandonableWorker::request_stop() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop.request_stop();
  }
  state_->changed.notify_all();
}

}  // namespace gpuwatch
