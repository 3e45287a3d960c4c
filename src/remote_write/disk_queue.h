// A receiver's queue on disk: the write requests made while it has not yet acknowledged them, oldest first,
// in one SQLite database (WAL). Each push is its own transaction, so what was queued survives the agent being
// killed at any moment (SIGKILL, OOM kill): SQLite's write-ahead log is in the file before push returns. A
// restarted agent opens the same file and sends on from the oldest request. Past its size the oldest
// requests are given up (counted): a receiver gone for good must not fill the disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite_db.h"

namespace gpuwatch::remote_write {

// The oldest queued requests.
struct QueuedBatch {
  std::int64_t last_seq = 0;  // pop_through(last_seq) removes them
  std::size_t samples = 0;
  std::int64_t newest_ms = 0;         // of its samples
  std::vector<std::string> requests;  // as pushed, oldest first
};

struct QueueStats {
  std::size_t requests = 0;
  std::size_t samples = 0;
  std::uint64_t bytes = 0;     // of the queued requests, as pushed
  std::int64_t oldest_ms = 0;  // the newest sample of the oldest request; 0 when empty
  std::int64_t newest_ms = 0;  // the newest sample queued; 0 when empty
};

class DiskQueue {
 public:
  // Opens or creates the database at `path` (its folder must exist). Throws store::StoreError.
  DiskQueue(const std::string& path, std::uint64_t max_bytes);
  // Appends one request; then gives up the oldest while the queue is larger than its size (never the one just
  // pushed). Returns the samples given up. Throws store::StoreError (a full disk).
  std::size_t push(std::string_view body, std::size_t samples, std::int64_t newest_ms);
  // The oldest requests, as many as fit in max_samples (at least one); nullopt when empty.
  std::optional<QueuedBatch> front(std::size_t max_samples);
  // Removes every request up to and including `seq`.
  void pop_through(std::int64_t seq);
  QueueStats stats() const;

 private:
  void drop_oldest_locked(std::size_t& dropped_samples);
  void count_locked();  // stats_ from the table

  mutable std::mutex mu_;
  store::SqliteDb db_;
  std::uint64_t max_bytes_;
  QueueStats stats_;
};

}  // namespace gpuwatch::remote_write
