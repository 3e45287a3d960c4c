// Sinks that misbehave on purpose, for the pipeline tests.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "agent/snapshot_sink.h"

namespace gpuwatch::test {

// Records each snapshot's sequence and timestamp and when it arrived; optionally throws after recording.
class RecordingSink : public SnapshotSink {
 public:
  explicit RecordingSink(std::string name, bool throws = false, SinkQueueOptions queue = {})
      : name_(std::move(name)), throws_(throws), queue_(queue) {}
  std::string_view name() const override { return name_; }
  SinkQueueOptions queue() const override { return queue_; }
  void consume(const SnapshotPtr& s) override {
    {
      std::lock_guard lock(mutex_);
      sequences_.push_back(s->sequence);
      timestamps_.push_back(s->timestamp_ms);
      arrivals_.push_back(std::chrono::steady_clock::now());
    }
    changed_.notify_all();
    if (throws_) throw std::runtime_error("this sink always fails");
  }
  std::vector<std::uint64_t> sequences() const {
    std::lock_guard lock(mutex_);
    return sequences_;
  }
  std::vector<std::int64_t> timestamps() const {
    std::lock_guard lock(mutex_);
    return timestamps_;
  }
  std::vector<std::chrono::steady_clock::time_point> arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
  }
  // Waits until `n` snapshots were consumed; false after `limit`.
  bool wait_for(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(5)) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return sequences_.size() >= n; });
  }

 private:
  std::string name_;
  bool throws_;
  SinkQueueOptions queue_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<std::uint64_t> sequences_;
  std::vector<std::int64_t> timestamps_;
  std::vector<std::chrono::steady_clock::time_point> arrivals_;
};

// Blocks in its first consume for up to `block_for` (10 s: far past any test) or until released; the rest
// it records.
class BlockingSink : public RecordingSink {
 public:
  explicit BlockingSink(std::string name, SinkQueueOptions queue = {},
                        std::chrono::milliseconds block_for = std::chrono::seconds(10))
      : RecordingSink(std::move(name), false, queue), block_for_(block_for) {}
  void consume(const SnapshotPtr& s) override {
    {
      std::unique_lock lock(gate_);
      if (!blocked_once_) {
        blocked_once_ = true;
        entered_ = true;
        gate_changed_.notify_all();
        gate_changed_.wait_for(lock, block_for_, [this] { return released_; });
      }
    }
    RecordingSink::consume(s);
  }
  bool wait_until_blocked(std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    std::unique_lock lock(gate_);
    return gate_changed_.wait_for(lock, limit, [this] { return entered_; });
  }
  void release() {
    {
      std::lock_guard lock(gate_);
      released_ = true;
    }
    gate_changed_.notify_all();
  }

 private:
  std::chrono::milliseconds block_for_;
  std::mutex gate_;
  std::condition_variable gate_changed_;
  bool blocked_once_ = false;
  bool entered_ = false;
  bool released_ = false;
};

}  // namespace gpuwatch::test
