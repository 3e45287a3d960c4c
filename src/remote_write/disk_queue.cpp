#include "remote_write/disk_queue.h"

#include <algorithm>
#include <span>

namespace gpuwatch::remote_write {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

DiskQueue::DiskQueue(const std::string& path, std::uint64_t max_bytes)
    : db_(path, true), max_bytes_(max_bytes) {
  // WAL with synchronous=NORMAL: a commit is in the log file when it returns, which is all a killed process
  // needs; a power cut may lose the last commits, not the database.
  db_.exec("PRAGMA journal_mode=WAL");
  db_.exec("PRAGMA synchronous=NORMAL");
  db_.exec(
      "CREATE TABLE IF NOT EXISTS requests (seq INTEGER PRIMARY KEY AUTOINCREMENT, newest_ms INTEGER NOT "
      "NULL, "
      "samples INTEGER NOT NULL, body BLOB NOT NULL)");
  count_locked();
}

void DiskQueue::count_locked() {
  auto count = db_.prepare(
      "SELECT count(*), total(samples), total(length(body)), "
      "(SELECT newest_ms FROM requests ORDER BY seq LIMIT 1), max(newest_ms) FROM requests");
  stats_ = QueueStats{};
  if (count.step()) {
    stats_.requests = static_cast<std::size_t>(count.column_int(0));
    stats_.samples = static_cast<std::size_t>(count.column_int(1));
    stats_.bytes = static_cast<std::uint64_t>(count.column_int(2));
    stats_.oldest_ms = count.column_int(3);
    stats_.newest_ms = count.column_int(4);
  }
}

std::size_t DiskQueue::push(std::string_view body, std::size_t samples, std::int64_t newest_ms) {
  std::lock_guard lock(mu_);
  auto insert = db_.prepare("INSERT INTO requests (newest_ms, samples, body) VALUES (?1, ?2, ?3)");
  insert.bind(1, newest_ms).bind(2, static_cast<std::int64_t>(samples)).bind_blob(3, as_bytes(body));
  insert.run();
  ++stats_.requests;
  stats_.samples += samples;
  stats_.bytes += body.size();
  if (stats_.requests == 1) stats_.oldest_ms = newest_ms;
  stats_.newest_ms = std::max(stats_.newest_ms, newest_ms);
  std::size_t dropped = 0;
  while (stats_.bytes > max_bytes_ && stats_.requests > 1) drop_oldest_locked(dropped);
  if (dropped > 0) count_locked();
  return dropped;
}

void DiskQueue::drop_oldest_locked(std::size_t& dropped_samples) {
  auto oldest = db_.prepare("SELECT seq, samples, length(body) FROM requests ORDER BY seq LIMIT 1");
  if (!oldest.step()) return;
  const std::int64_t seq = oldest.column_int(0);
  const auto samples = static_cast<std::size_t>(oldest.column_int(1));
  const auto bytes = static_cast<std::uint64_t>(oldest.column_int(2));
  db_.prepare("DELETE FROM requests WHERE seq = ?1").bind(1, seq).run();
  --stats_.requests;
  stats_.samples -= samples;
  stats_.bytes -= bytes;
  dropped_samples += samples;
}

std::optional<QueuedBatch> DiskQueue::front(std::size_t max_samples) {
  std::lock_guard lock(mu_);
  auto select = db_.prepare("SELECT seq, samples, newest_ms, body FROM requests ORDER BY seq LIMIT 1000");
  QueuedBatch batch;
  while (select.step()) {
    const auto samples = static_cast<std::size_t>(select.column_int(1));
    if (batch.samples > 0 && batch.samples + samples > max_samples) break;
    batch.last_seq = select.column_int(0);
    batch.samples += samples;
    batch.newest_ms = std::max(batch.newest_ms, select.column_int(2));
    const auto body = select.column_blob(3);
    batch.requests.emplace_back(reinterpret_cast<const char*>(body.data()), body.size());
  }
  if (batch.last_seq == 0) return std::nullopt;
  return batch;
}

void DiskQueue::pop_through(std::int64_t seq) {
  std::lock_guard lock(mu_);
  db_.prepare("DELETE FROM requests WHERE seq <= ?1").bind(1, seq).run();
  count_locked();
}

QueueStats DiskQueue::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace gpuwatch::remote_write
