#include "agent/sink_runner.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "agent/snapshot_queue.h"

namespace gpuwatch {
namespace {

constexpr std::chrono::seconds kErrorLogInterval{60};

}  // namespace

struct SinkRunner::State {
  explicit State(std::shared_ptr<SnapshotSink> s)
      : sink(std::move(s)), name(sink->name()), queue(sink->queue()) {}

  std::shared_ptr<SnapshotSink> sink;
  const std::string name;
  mutable std::mutex mutex;
  std::condition_variable wake;    // a snapshot was queued, or stop was asked
  std::condition_variable exited;  // the thread is done
  SnapshotQueue queue;
  bool stopping = false;
  bool done = false;
  std::optional<std::chrono::steady_clock::time_point> consuming_since;
  std::chrono::nanoseconds last_duration{0};
  std::uint64_t consumed = 0;
  std::uint64_t errors = 0;
  std::uint64_t dropped = 0;
  // Touched by the sink's thread only.
  std::optional<std::chrono::steady_clock::time_point> last_error_log;
  std::uint64_t errors_not_logged = 0;

  void log_error(std::string_view what) {
    const auto now = std::chrono::steady_clock::now();
    if (last_error_log && now - *last_error_log < kErrorLogInterval) {
      ++errors_not_logged;
      return;
    }
    if (errors_not_logged > 0) {
      spdlog::error("sink {}: {} ({} more errors in the last minute not logged)", name, what,
                    errors_not_logged);
    } else {
      spdlog::error("sink {}: {}", name, what);
    }
    errors_not_logged = 0;
    last_error_log = now;
  }

  void run() {
    for (;;) {
      SnapshotPtr next;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty()) break;  // stopping, and everything queued was consumed
        next = queue.pop();
        consuming_since = std::chrono::steady_clock::now();
      }
      bool failed = false;
      try {
        sink->consume(next);
      } catch (const std::exception& e) {
        failed = true;
        log_error(e.what());
      } catch (...) {
        failed = true;
        log_error("unknown exception");
      }
      next.reset();  // not held while waiting for the next one
      std::lock_guard lock(mutex);
      last_duration = std::chrono::steady_clock::now() - *consuming_since;
      consuming_since.reset();
      ++consumed;
      if (failed) ++errors;
    }
    std::lock_guard lock(mutex);
    done = true;
    exited.notify_all();
  }
};

SinkRunner::SinkRunner(std::shared_ptr<SnapshotSink> sink, std::chrono::milliseconds stop_grace)
    : state_(std::make_shared<State>(std::move(sink))), stop_grace_(stop_grace) {
  std::thread([state = state_] { state->run(); }).detach();  // stop() waits for it on `exited`, with a limit
}

SinkRunner::~SinkRunner() {
  stop();
}

void SinkRunner::offer(const SnapshotPtr& snapshot) {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->stopping) return;
    if (!state_->queue.push(snapshot)) ++state_->dropped;
  }
  state_->wake.notify_one();
}

SinkStats SinkRunner::stats() const {
  std::lock_guard lock(state_->mutex);
  SinkStats s;
  s.name = state_->name;
  auto duration = state_->last_duration;
  if (state_->consuming_since)
    duration = std::max<std::chrono::nanoseconds>(
        duration, std::chrono::steady_clock::now() - *state_->consuming_since);
  s.duration_seconds = std::chrono::duration<double>(duration).count();
  s.consumed = state_->consumed;
  s.errors = state_->errors;
  s.dropped = state_->dropped;
  s.queue_length = state_->queue.size();
  return s;
}

void SinkRunner::request_stop() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_one();
}

bool SinkRunner::wait_until(std::chrono::steady_clock::time_point deadline) {
  if (waited_) return clean_;
  std::unique_lock lock(state_->mutex);
  clean_ = state_->exited.wait_until(lock, deadline, [this] { return state_->done; });
  waited_ = true;
  if (!clean_) spdlog::warn("sink {} is stuck in a consume; leaving it behind", state_->name);
  return clean_;
}

bool SinkRunner::stop() {
  request_stop();
  return wait_until(std::chrono::steady_clock::now() + stop_grace_);
}

}  // namespace gpuwatch
