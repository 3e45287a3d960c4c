// The flusher's pass: write and sync the WAL, seal finished blocks into SQLite, delete WAL segments whose
// samples are sealed, downsample and apply retention; and how write errors are counted and logged.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "core/wall_clock.h"
#include "store/codec_error.h"
#include "store/downsample.h"
#include "store/store.h"

namespace gpuwatch::store {
namespace {

namespace fs = std::filesystem;

std::uint64_t disk_bytes(const std::string& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) total += it->file_size(size_ec);
  }
  return total;
}

}  // namespace

bool Store::flush() {
  {
    std::lock_guard lock(mu_);
    if (!wal_entries_.empty()) {
      for (auto& chunk : wal_entries_.take()) {
        segment_bytes_ += chunk.size() + kWalRecordHeaderBytes;
        unwritten_.push_back(Unwritten{current_segment_, std::move(chunk)});
      }
      if (segment_bytes_ >= options_.wal_segment_bytes) {
        ++current_segment_;
        segment_bytes_ = 0;
      }
    }
  }
  try {
    std::size_t written = 0;
    try {
      for (; written < unwritten_.size(); ++written)
        wal_writer_.write(unwritten_[written].segment, unwritten_[written].entries);
    } catch (...) {
      unwritten_.erase(unwritten_.begin(), unwritten_.begin() + static_cast<std::ptrdiff_t>(written));
      throw;
    }
    unwritten_.clear();
    wal_writer_.sync();
  } catch (const StoreError& e) {
    note_error(e);
    std::uint64_t held = 0;
    for (const auto& u : unwritten_) held += u.entries.size();
    if (held > options_.max_unwritten_bytes) {
      // The samples stay in memory (and reach SQLite when it accepts writes); the WAL restarts in a new
      // segment so that every series is defined again before its next sample.
      std::lock_guard lock(mu_);
      stats_.unwritten_bytes_dropped += held;
      unwritten_.clear();
      ++current_segment_;
      segment_bytes_ = 0;
    }
    return false;
  }
  note_success();
  return true;
}

bool Store::seal() {
  std::vector<std::shared_ptr<const HeadBlock>> pending;
  std::vector<std::pair<SeriesId, Labels>> new_series;
  {
    std::lock_guard lock(mu_);
    head_.cut_finished(newest_t_);
    pending = head_.pending();
    for (const auto& b : pending) {
      if (!persisted_.contains(b->series()) &&
          std::none_of(new_series.begin(), new_series.end(),
                       [&](const auto& n) { return n.first == b->series(); }))
        new_series.emplace_back(b->series(), index_.labels(b->series()));
    }
  }
  if (pending.empty()) return true;
  std::vector<SealedBlock> blocks;
  blocks.reserve(pending.size());
  BlockDecoder decoder;
  std::vector<std::int64_t> t;
  std::vector<double> v;
  for (const auto& b : pending) {
    b->decode(decoder, t, v);
    blocks.push_back(SealedBlock{b->series(), t.front(), t.back(), static_cast<std::uint32_t>(t.size()), 0,
                                 encoder_.encode(t, v)});
  }
  try {
    write_db_->insert(blocks, new_series);
  } catch (const StoreError& e) {
    note_error(e);
    return false;
  }
  std::lock_guard lock(mu_);
  head_.drop_pending(pending.size());
  for (const auto& [id, labels] : new_series) persisted_.insert(id);
  stats_.blocks_sealed += blocks.size();
  return true;
}

void Store::delete_sealed_segments() {
  std::uint64_t keep_from = 0;
  {
    std::lock_guard lock(mu_);
    const std::uint64_t needed = head_.oldest_needed_segment();
    if (needed > current_segment_ && segment_bytes_ > 0 && wal_entries_.empty() && unwritten_.empty()) {
      // Everything written is sealed: start a new segment so that the current one can go too.
      ++current_segment_;
      segment_bytes_ = 0;
    }
    keep_from = std::min(needed, current_segment_);
  }
  for (const auto& u : unwritten_) keep_from = std::min(keep_from, u.segment);
  const std::string dir = wal_dir(options_.data_dir);
  bool removed = false;
  for (auto segment : list_segments(dir)) {
    if (segment >= keep_from) break;
    removed = ::unlink(segment_path(dir, segment).c_str()) == 0 || removed;
  }
  if (removed) sync_directory(dir);
}

void Store::apply_retention() {
  std::int64_t newest = 0;
  {
    std::lock_guard lock(mu_);
    newest = newest_t_;
  }
  if (newest == std::numeric_limits<std::int64_t>::min()) return;
  try {
    const std::uint64_t wal_bytes = disk_bytes(wal_dir(options_.data_dir));
    const std::uint64_t budget =
        options_.retention_bytes > wal_bytes ? options_.retention_bytes - wal_bytes : 0;
    auto [deleted, orphans] =
        write_db_->apply_retention(newest - options_.retention_ms, budget, [this](SeriesId id) {
          std::lock_guard lock(mu_);
          return head_.holds(id);
        });
    if (deleted > 0) decoded_.clear();
    if (deleted > 0)
      spdlog::info("store: retention dropped {} block(s) and {} series", deleted, orphans.size());
    std::lock_guard lock(mu_);
    index_.remove(orphans);
    for (auto id : orphans) {
      head_.forget(id);
      defined_in_segment_.erase(id);
      persisted_.erase(id);
    }
  } catch (const StoreError& e) {
    note_error(e);
  }
}

SeriesId Store::rollup_series(SeriesId raw, std::string_view suffix,
                              std::vector<std::pair<SeriesId, Labels>>& created) {
  Labels labels = index_.labels(raw);
  for (auto& [name, value] : labels) {
    if (name == "__name__") value += suffix;
  }
  SeriesId id = index_.find(labels);
  if (id == 0) {
    id = next_id_++;
    index_.add(id, labels);
  }
  if (!persisted_.contains(id) &&
      std::none_of(created.begin(), created.end(), [id](const auto& c) { return c.first == id; }))
    created.emplace_back(id, std::move(labels));
  return id;
}

void Store::downsample() {
  if (options_.downsample_after_ms <= 0) return;
  std::int64_t newest = 0;
  {
    std::lock_guard lock(mu_);
    newest = newest_t_;
  }
  if (newest == std::numeric_limits<std::int64_t>::min()) return;
  constexpr std::size_t kBatch = 512;  // a bounded pass: the rest waits for the next one
  try {
    const auto raw = write_db_->raw_blocks_before(newest - options_.downsample_after_ms, kBatch);
    if (raw.empty()) return;
    std::vector<std::int64_t> replaced;
    std::vector<SealedBlock> blocks;
    std::vector<std::pair<SeriesId, Labels>> created;
    BlockDecoder decoder;
    const std::int64_t step = options_.downsample_step_ms;
    for (const auto& b : raw) {
      DecodedBlock d;
      try {
        d = decoder.decode(b.data);
      } catch (const CodecError&) {
        continue;  // a corrupt block stays as it is: reads skip and report it
      }
      const Rollup r = roll_up(d.timestamps_ms, d.values, step);
      const auto count = static_cast<std::uint32_t>(r.t.size());
      blocks.push_back(
          SealedBlock{b.series, r.t.front(), r.t.back(), count, step, encoder_.encode(r.t, r.last)});
      for (std::size_t k = 0; k < kRollupSuffixes.size(); ++k) {
        SeriesId id = 0;
        {
          std::lock_guard lock(mu_);
          id = rollup_series(b.series, kRollupSuffixes[k], created);
        }
        blocks.push_back(
            SealedBlock{id, r.t.front(), r.t.back(), count, step, encoder_.encode(r.t, r.by_suffix[k])});
      }
      replaced.push_back(b.row);
    }
    write_db_->replace(replaced, blocks, created);
    decoded_.forget(replaced);
    std::lock_guard lock(mu_);
    for (const auto& [id, labels] : created) persisted_.insert(id);
    stats_.blocks_downsampled += replaced.size();
  } catch (const StoreError& e) {
    note_error(e);
  }
}

bool Store::maintain() {
  std::lock_guard io(io_mu_);
  bool ok = flush();
  ok = seal() && ok;
  delete_sealed_segments();
  const auto now = std::chrono::steady_clock::now();
  if (now >= next_retention_) {
    downsample();
    apply_retention();
    next_retention_ = now + options_.retention_check_interval;
  }
  const std::uint64_t bytes = disk_bytes(options_.data_dir);
  std::lock_guard lock(mu_);
  stats_.bytes_on_disk = bytes;
  return ok;
}

void Store::seal_all() {
  {
    std::lock_guard lock(mu_);
    head_.cut_all();
  }
  maintain();
}

void Store::note_error(const StoreError& e) {
  {
    std::lock_guard lock(mu_);
    ++stats_.write_errors[reason_name(e.reason())];
  }
  if (!in_error_episode_) {
    spdlog::error("store: {} (samples are kept in memory; writing resumes when the disk accepts it)",
                  e.what());
    in_error_episode_ = true;
  }
}

void Store::note_success() {
  {
    std::lock_guard lock(mu_);
    stats_.last_sync_unix_ms = wall_unix_ms();
  }
  if (in_error_episode_) {
    spdlog::info("store: writing to {} resumed", options_.data_dir);
    in_error_episode_ = false;
  }
}

void Store::run_flusher() {
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, options_.sync_interval, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    try {
      maintain();
    } catch (const std::exception& e) {
      spdlog::error("store: {}", e.what());
    }
    lock.lock();
  }
}

}  // namespace gpuwatch::store
