// A fixed-capacity ring of snapshots with a drop policy. Not thread-safe (SinkRunner locks around it); it
// allocates only at construction, so queueing a snapshot costs a shared_ptr copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "agent/snapshot_sink.h"
#include "core/snapshot.h"

namespace gpuwatch {

class SnapshotQueue {
 public:
  explicit SnapshotQueue(SinkQueueOptions options)
      : slots_(options.capacity == 0 ? 1 : options.capacity), when_full_(options.when_full) {}

  // Queues the snapshot. When full, gives up the oldest queued one or this one (the policy); returns false
  // when a snapshot was dropped.
  bool push(const SnapshotPtr& snapshot) {
    if (size_ == slots_.size()) {
      if (when_full_ == WhenFull::kDropNewest) return false;
      slots_[head_].reset();
      head_ = (head_ + 1) % slots_.size();
      --size_;
      slots_[(head_ + size_) % slots_.size()] = snapshot;
      ++size_;
      return false;
    }
    slots_[(head_ + size_) % slots_.size()] = snapshot;
    ++size_;
    return true;
  }

  // The oldest queued snapshot, removed; null when empty.
  SnapshotPtr pop() {
    if (size_ == 0) return nullptr;
    SnapshotPtr out = std::move(slots_[head_]);
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return out;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  std::vector<SnapshotPtr> slots_;
  WhenFull when_full_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace gpuwatch
