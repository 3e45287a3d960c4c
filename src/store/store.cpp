#include "store/store.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "store/codec_error.h"
#include "store/downsample.h"

namespace gpuwatch::store {
namespace {

namespace fs = std::filesystem;

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void make_dir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw StoreError("cannot create " + path + ": " + ec.message());
}

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

bool is_sorted_labels(const Labels& labels) {
  for (std::size_t i = 1; i < labels.size(); ++i) {
    if (!(labels[i - 1].first < labels[i].first)) return false;
  }
  for (const auto& [n, v] : labels) {
    if (n.empty() || v.empty()) return false;
  }
  return true;
}

}  // namespace

Store::Store(StoreOptions options)
    : options_(std::move(options)),
      head_(options_.block_window_ms, options_.block_max_samples),
      wal_writer_(wal_dir(options_.data_dir)) {}

std::shared_ptr<Store> Store::open(StoreOptions options) {
  if (options.data_dir.empty()) throw StoreError("no data directory given");
  std::shared_ptr<Store> store(new Store(std::move(options)));
  const std::string& dir = store->options_.data_dir;
  make_dir(wal_dir(dir));
  store->lock_fd_ = UniqueFd(::open((dir + "/LOCK").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!store->lock_fd_) throw StoreError("cannot create " + dir + "/LOCK: " + std::strerror(errno));
  if (::flock(store->lock_fd_.get(), LOCK_EX | LOCK_NB) != 0)
    throw StoreError(dir + " is in use by another gpuwatch process (it holds " + dir + "/LOCK)");

  const std::string db_path = dir + "/store.db";
  const bool fresh = !fs::exists(db_path);
  store->write_db_ = std::make_unique<BlockDb>(db_path, true);
  if (fresh) {
    store->write_db_->set_meta("format_version", "1");
    store->write_db_->checkpoint();  // the database file itself is durable before any data depends on it
    sync_directory(dir);
  }
  const std::string recorded = store->write_db_->meta("clock_domain");
  // Readers and import take the domain the history was recorded in.
  if (store->options_.clock_domain.empty())
    store->options_.clock_domain = recorded.empty() ? "wall" : recorded;
  if (recorded.empty()) {
    store->write_db_->set_meta("clock_domain", store->options_.clock_domain);
  } else if (recorded != store->options_.clock_domain) {
    throw StoreError("the history in " + dir + " was recorded in clock domain '" + recorded +
                     "', but this agent runs in '" + store->options_.clock_domain +
                     "'; time from different clocks cannot be mixed: use another --data-dir");
  }
  store->read_db_ = std::make_unique<BlockDb>(db_path, false);
  store->replay();
  store->opened_ = true;
  if (store->options_.background_flusher)
    store->flusher_ = std::thread([s = store.get()] { s->run_flusher(); });
  return store;
}

void Store::replay() {
  for (auto& [id, labels] : write_db_->load_series()) {
    index_.add(id, std::move(labels));
    persisted_.insert(id);
    next_id_ = std::max<SeriesId>(next_id_, id + 1);
  }
  for (const auto& [id, t] : write_db_->newest_times()) {
    head_.set_last_t(id, t);
    newest_t_ = std::max(newest_t_, t);
  }
  // WAL series ids of the segment being replayed -> store ids (the same unless a collision forces a new one).
  std::unordered_map<SeriesId, SeriesId> ids;
  std::uint64_t ids_segment = 0;
  WalVisitor visitor;
  visitor.series = [&](std::uint64_t segment, SeriesId wal_id, Labels labels) {
    if (segment != ids_segment) ids.clear(), ids_segment = segment;
    SeriesId id = index_.find(labels);
    if (id == 0) {
      id = (wal_id != 0 && index_.labels_or_null(wal_id) == nullptr) ? wal_id : next_id_;
      index_.add(id, std::move(labels));
      next_id_ = std::max<SeriesId>(next_id_, id + 1);
    }
    ids[wal_id] = id;
  };
  std::size_t replayed = 0;
  visitor.sample = [&](std::uint64_t segment, SeriesId wal_id, std::int64_t t, double v) {
    const auto it = ids.find(wal_id);
    if (segment != ids_segment || it == ids.end()) return;
    if (t <= head_.last_t(it->second)) return;  // already sealed into a block
    head_.add(it->second, t, v, segment);
    newest_t_ = std::max(newest_t_, t);
    ++replayed;
  };
  const WalReplayReport report = replay_wal(wal_dir(options_.data_dir), visitor, true);
  for (const auto& line : report.corruption) spdlog::error("store: WAL corruption: {}", line);
  stats_.corrupt_wal_records = report.corruption.size();
  if (report.torn_bytes_dropped > 0)
    spdlog::warn("store: dropped a torn write of {} bytes at the end of the WAL (a crash during a write)",
                 report.torn_bytes_dropped);
  const auto segments = list_segments(wal_dir(options_.data_dir));
  current_segment_ = segments.empty() ? 1 : segments.back() + 1;
  spdlog::info("store: opened {} ({} series, {} samples replayed from {} WAL segment(s))", options_.data_dir,
               index_.size(), replayed, report.segments);
}

Store::~Store() {
  if (flusher_.joinable()) {
    {
      std::lock_guard lock(stop_mu_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    flusher_.join();
  }
  if (!opened_) return;  // open() failed half-way: nothing to write
  try {
    maintain();
  } catch (const std::exception& e) {
    spdlog::error("store: closing {}: {}", options_.data_dir, e.what());
  }
}

std::string Store::append(const Labels& labels, std::int64_t t_ms, double value) {
  Labels sorted;
  const Labels* key = &labels;
  if (!is_sorted_labels(labels)) {
    sorted = labels;
    if (auto problem = normalize_labels(sorted); !problem.empty()) {
      std::lock_guard lock(mu_);
      ++stats_.samples_rejected["bad_labels"];
      return problem;
    }
    key = &sorted;
  }
  std::lock_guard lock(mu_);
  SeriesId id = index_.find(*key);
  if (id == 0) {
    id = next_id_++;
    index_.add(id, *key);
  }
  const std::int64_t last = head_.last_t(id);
  if (t_ms <= last) {
    const bool duplicate = t_ms == last;
    ++stats_.samples_rejected[duplicate ? "duplicate" : "out_of_order"];
    return std::string(duplicate ? "duplicate timestamp " : "out-of-order timestamp ") +
           std::to_string(t_ms) + " for " + labels_to_string(*key) +
           " (newest stored: " + std::to_string(last) + ")";
  }
  auto& defined = defined_in_segment_[id];
  if (defined != current_segment_) {
    wal_entries_.add_series(id, *key);
    defined = current_segment_;
  }
  wal_entries_.add_sample(id, t_ms, value);
  head_.add(id, t_ms, value, current_segment_);
  newest_t_ = std::max(newest_t_, t_ms);
  ++stats_.samples_appended;
  return "";
}

void Store::commit() {
  std::lock_guard io(io_mu_);
  if (!flush()) {
    throw StoreError(
        "the store's write-ahead log could not be synced (see gpuwatch_store_write_errors_total)");
  }
}

bool Store::flush() {
  {
    std::lock_guard lock(mu_);
    if (!wal_entries_.empty()) {
      segment_bytes_ += wal_entries_.size() + kWalRecordHeaderBytes;
      unwritten_.push_back(Unwritten{current_segment_, wal_entries_.take()});
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
  std::set<SeriesId> held;
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
    if (deleted > 0)
      spdlog::info("store: retention dropped {} block(s) and {} series", deleted, orphans.size());
    std::lock_guard lock(mu_);
    for (auto id : orphans) {
      index_.remove(id);
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
    stats_.last_sync_unix_ms = wall_ms();
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

std::vector<SeriesPoints> Store::select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                        std::int64_t max_t) const {
  const CompiledMatchers compiled(matchers);
  std::vector<SeriesPoints> out;
  std::vector<SeriesId> ids;
  std::vector<std::vector<std::shared_ptr<const HeadBlock>>> in_memory;
  {
    // Memory first, then SQLite: a block moving from the head to SQLite meanwhile is seen twice (and
    // deduplicated below), never missed. Decoding happens outside the lock that appends take.
    std::lock_guard lock(mu_);
    ids = index_.select(compiled);
    out.reserve(ids.size());
    in_memory.resize(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      out.push_back(SeriesPoints{index_.labels(ids[i]), {}});
      head_.blocks(ids[i], min_t, max_t, in_memory[i]);
    }
  }
  BlockDecoder decoder;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (const auto& b : in_memory[i]) b->append_points(min_t, max_t, decoder, out[i].points);
  }
  DecodedBlock decoded;
  {
    std::lock_guard lock(read_mu_);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      auto& points = out[i].points;
      read_db_->read_blocks(ids[i], min_t, max_t, [&](const BlockRow& row) {
        try {
          decoder.decode_into(row.data, decoded.timestamps_ms, decoded.values);
        } catch (const CodecError& e) {
          std::lock_guard c(corrupt_mu_);
          if (corrupt_rows_.insert(row.row).second)
            spdlog::error("store: block {} of {} is corrupt and skipped: {}", row.row,
                          labels_to_string(out[i].labels), e.what());
          return;
        }
        const auto& ts = decoded.timestamps_ms;
        for (auto it = std::lower_bound(ts.begin(), ts.end(), min_t); it != ts.end() && *it <= max_t; ++it)
          points.push_back(Point{*it, decoded.values[static_cast<std::size_t>(it - ts.begin())]});
      });
    }
  }
  for (auto& s : out) {
    std::sort(s.points.begin(), s.points.end(),
              [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
    s.points.erase(std::unique(s.points.begin(), s.points.end(),
                               [](const Point& a, const Point& b) { return a.t_ms == b.t_ms; }),
                   s.points.end());
  }
  std::erase_if(out, [](const SeriesPoints& s) { return s.points.empty(); });
  return out;
}

std::vector<Labels> Store::series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                  std::int64_t max_t) const {
  const CompiledMatchers compiled(matchers);
  std::vector<Labels> out;
  std::vector<std::pair<SeriesId, Labels>> on_disk;
  {
    std::lock_guard lock(mu_);
    for (auto id : index_.select(compiled)) {
      if (head_.has_points(id, min_t, max_t))
        out.push_back(index_.labels(id));
      else
        on_disk.emplace_back(id, index_.labels(id));
    }
  }
  std::lock_guard lock(read_mu_);
  for (auto& [id, labels] : on_disk) {
    if (read_db_->has_block(id, min_t, max_t)) out.push_back(std::move(labels));
  }
  std::sort(out.begin(), out.end());
  return out;
}

StoreHealth Store::health() const {
  StoreHealth h;
  {
    std::lock_guard lock(mu_);
    h = stats_;
    h.series = index_.size();
    h.samples_in_memory = head_.samples_in_memory();
    h.memory_bytes = head_.memory_bytes();
  }
  std::lock_guard c(corrupt_mu_);
  h.corrupt_blocks = corrupt_rows_.size();
  return h;
}

}  // namespace gpuwatch::store
