// The flusher's pass: write and sync the WAL, seal finished blocks into SQLite, delete WAL segments whose
// samples are sealed, downsample and apply retention; and how write errors are counted and logged.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "core/wall_clock.h"
#include "store/codec_error.h"
#include "store/downsample.h"
#include "store/store.h"
#include "store/time_column.h"

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

// Sealing and downsampling only ask whether a block's reference can be read; what it is called is in no
// message of theirs.
std::string unnamed_reference() {
  return "its reference series";
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
  std::unordered_map<SeriesId, std::optional<SeriesId>> references;
  {
    std::lock_guard lock(mu_);
    head_.cut_finished(newest_t_);
    pending = head_.pending();
    auto reference_for = [&](SeriesId id) {
      const auto [it, added] = references.try_emplace(id);
      if (added) it->second = reference_of(index_.labels(id));
      return it->second;
    };
    // A block cut before its reference's (its series' sample of a tick came first) takes that one along.
    bool cut_more = false;
    for (const auto& b : pending) {
      if (const auto reference = reference_for(b->series()); reference && *reference != 0)
        cut_more = head_.cut_if_same(*reference, b->first_t(), b->last_t(), b->size()) || cut_more;
    }
    if (cut_more) pending = head_.pending();
    for (const auto& b : pending) {
      if (!persisted_.contains(b->series()) &&
          std::none_of(new_series.begin(), new_series.end(),
                       [&](const auto& n) { return n.first == b->series(); }))
        new_series.emplace_back(b->series(), index_.labels(b->series()));
      reference_for(b->series());
    }
  }
  if (pending.empty()) return true;
  std::vector<SealedBlock> blocks;
  blocks.reserve(pending.size());
  BlockDecoder decoder;
  ReferenceColumns reference;
  std::vector<std::int64_t> t;
  std::vector<double> v;
  for (const auto& b : pending) {
    b->decode(decoder, t, v);
    const SeriesReference r = seal_reference(*b, references[b->series()], pending, reference, decoder);
    blocks.push_back(sealed_block(b->series(), t, v, 0, r));
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

SealedBlock Store::sealed_block(SeriesId series, std::span<const std::int64_t> t, std::span<const double> v,
                                std::int64_t resolution_ms, SeriesReference reference) {
  SealedBlock out{series, t.front(), t.back(), static_cast<std::uint32_t>(t.size()), resolution_ms, {}, {}};
  std::vector<std::uint8_t> times = encode_time_column(t);
  const bool apart = times.size() >= options_.time_column_apart_bytes;
  out.data = encoder_.encode(t, v, reference, apart);
  if (apart) out.times = std::move(times);
  return out;
}

SeriesReference Store::seal_reference(const HeadBlock& block, std::optional<SeriesId> reference,
                                      std::span<const std::shared_ptr<const HeadBlock>> pending,
                                      ReferenceColumns& columns, BlockDecoder& decoder) {
  if (!reference || *reference == 0) return {};
  // Pending with it: both go into the same transaction.
  for (const auto& p : pending) {
    if (p->series() == *reference && p->first_t() == block.first_t() && p->last_t() == block.last_t() &&
        p->size() == block.size()) {
      columns.load(*p, decoder);
      return columns.view();
    }
  }
  // Sealed before it (the reference's block was cut first): committed already.
  try {
    const BlockKey key{0, *reference, block.first_t(), block.last_t(),
                       static_cast<std::int64_t>(block.size())};
    columns.load(write_db_->same_range_block(), *reference, unnamed_reference, key, decoder);
    return columns.view();
  } catch (const CodecError&) {
    return {};  // none, or damaged: the block is sealed on its own
  } catch (const StoreError&) {
    return {};
  }
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
    std::vector<ReferenceLink> links;
    {
      std::lock_guard lock(mu_);
      links = reference_links();
    }
    auto [deleted, orphans] = write_db_->apply_retention(
        newest - options_.retention_ms, budget,
        [this](SeriesId id) {
          std::lock_guard lock(mu_);
          return head_.holds(id);
        },
        links);
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

void Store::take_coded_against(std::vector<StoredBlock>& batch, std::span<const ReferenceLink> links) {
  const SeriesCodedAgainst coded_against = series_coded_against(links);
  std::unordered_set<std::int64_t> rows;
  for (const auto& b : batch) rows.insert(b.key.row);
  const std::size_t n = batch.size();
  for (std::size_t i = 0; i < n; ++i) {
    const BlockKey key = batch[i].key;  // a copy: push_back below may move the batch
    const auto [from, to] = coded_against.equal_range(key.series);
    for (auto it = from; it != to; ++it) {
      write_db_->same_range_block().read(it->second, key, [&](const BlockRow& row) {
        if (rows.insert(row.key.row).second) batch.push_back(copy_of(row));
      });
    }
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
    auto raw = write_db_->raw_blocks_before(newest - options_.downsample_after_ms, kBatch);
    if (raw.empty()) return;
    std::vector<ReferenceLink> links;
    {
      std::lock_guard lock(mu_);
      links = reference_links();
    }
    take_coded_against(raw, links);
    std::unordered_map<SeriesId, SeriesId> reference_of_series;
    for (const auto& l : links) reference_of_series.emplace(l.series, l.reference);
    std::vector<std::int64_t> replaced;
    std::vector<SealedBlock> blocks;
    std::vector<std::pair<SeriesId, Labels>> created;
    BlockDecoder decoder;
    ReferenceColumns reference;
    TimeColumnCache time_columns;
    const std::int64_t step = options_.downsample_step_ms;
    for (const auto& b : raw) {
      DecodedBlock d;
      try {
        // The reference is still raw: it is replaced in this pass's transaction at the earliest.
        SeriesReference r{};
        const auto it = reference_of_series.find(b.key.series);
        if (it != reference_of_series.end() && inspect_block(b.data).needs_reference) {
          reference.load(write_db_->same_range_block(), it->second, unnamed_reference, b.key, decoder);
          r = reference.view();
        }
        d = decoder.decode(b.data, r, time_columns.timestamps(b.time_id, b.times));
      } catch (const CodecError&) {
        continue;  // a corrupt block (or one whose reference is) stays as it is: reads skip and report it
      }
      // Rollups are coded on their own, so that only raw blocks ever depend on another block.
      const Rollup r = roll_up(d.timestamps_ms, d.values, step);
      blocks.push_back(sealed_block(b.key.series, r.t, r.last, step));
      for (std::size_t k = 0; k < kRollupSuffixes.size(); ++k) {
        SeriesId id = 0;
        {
          std::lock_guard lock(mu_);
          id = rollup_series(b.key.series, kRollupSuffixes[k], created);
        }
        blocks.push_back(sealed_block(id, r.t, r.by_suffix[k], step));
      }
      replaced.push_back(b.key.row);
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
