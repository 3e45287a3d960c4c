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
#include "store/reference_pairs.h"

namespace gpuwatch::store {
namespace {

namespace fs = std::filesystem;

void make_dir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw StoreError("cannot create " + path + ": " + ec.message(), reason_from_errno(ec.value()));
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
      decoded_(options_.decoded_cache_bytes),
      head_(options_.block_window_ms, options_.block_max_samples),
      wal_writer_(wal_dir(options_.data_dir)) {}

std::shared_ptr<Store> Store::open(StoreOptions options) {
  if (options.data_dir.empty()) throw StoreError("no data directory given");
  std::shared_ptr<Store> store(new Store(std::move(options)));
  const std::string& dir = store->options_.data_dir;
  make_dir(wal_dir(dir));
  store->lock_fd_ = UniqueFd(::open((dir + "/LOCK").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!store->lock_fd_) {
    const int err = errno;
    throw StoreError("cannot create " + dir + "/LOCK: " + std::strerror(err), reason_from_errno(err));
  }
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
  return append_sorted(*key, nullptr, t_ms, value);
}

std::string Store::append_shared(std::shared_ptr<const Labels>& labels, std::int64_t t_ms, double value) {
  if (!is_sorted_labels(*labels)) return append(*labels, t_ms, value);
  return append_sorted(*labels, &labels, t_ms, value);
}

std::string Store::append_sorted(const Labels& key_labels, std::shared_ptr<const Labels>* shared,
                                 std::int64_t t_ms, double value) {
  std::lock_guard lock(mu_);
  const Labels* key = &key_labels;
  const SeriesId id = indexed_id(key, shared);
  return add_point(id, *key, t_ms, value);
}

std::vector<SeriesAppender::Rejection> Store::append_points(const Labels& labels,
                                                            std::span<const Point> points) {
  std::vector<Rejection> rejected;
  if (points.empty()) return rejected;
  Labels sorted;
  const Labels* key = &labels;
  if (!is_sorted_labels(labels)) {
    sorted = labels;
    if (auto problem = normalize_labels(sorted); !problem.empty()) {
      std::lock_guard lock(mu_);
      stats_.samples_rejected["bad_labels"] += points.size();
      for (std::size_t i = 0; i < points.size(); ++i) rejected.push_back({i, problem});
      return rejected;
    }
    key = &sorted;
  }
  // One lookup of the series and one taking of the lock for the whole batch: import's points come in runs
  // of one series, and hashing its label set for each point was a fifth of import's time.
  std::lock_guard lock(mu_);
  const SeriesId id = indexed_id(key, nullptr);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (std::string reason = add_point(id, *key, points[i].t_ms, points[i].value); !reason.empty())
      rejected.push_back({i, std::move(reason)});
  }
  return rejected;
}

SeriesId Store::indexed_id(const Labels*& key, std::shared_ptr<const Labels>* shared) {
  auto [id, held] = index_.find_held(*key);
  if (id == 0) {
    id = next_id_++;
    if (shared != nullptr)
      index_.add(id, *shared);
    else
      index_.add(id, *key);
  } else if (shared != nullptr && held != shared->get()) {
    *shared = index_.shared_labels(id);  // frees the caller's equal copy, which key was
    key = shared->get();
  }
  return id;
}

std::string Store::add_point(SeriesId id, const Labels& key, std::int64_t t_ms, double value) {
  const std::int64_t last = head_.last_t(id);
  if (t_ms <= last) {
    const bool duplicate = t_ms == last;
    ++stats_.samples_rejected[duplicate ? "duplicate" : "out_of_order"];
    return std::string(duplicate ? "duplicate timestamp " : "out-of-order timestamp ") +
           std::to_string(t_ms) + " for " + labels_to_string(key) +
           " (newest stored: " + std::to_string(last) + ")";
  }
  auto& defined = defined_in_segment_[id];
  if (defined != current_segment_) {
    wal_entries_.add_series(id, key);
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

std::optional<SeriesId> Store::reference_of(const Labels& labels) const {
  const Labels reference = reference_labels(labels);
  if (reference.empty()) return std::nullopt;
  return index_.find(reference);
}

std::vector<ReferenceLink> Store::reference_links() const {
  std::vector<ReferenceLink> links;
  for (const auto& pair : kReferencePairs) {
    const LabelMatcher metric{"__name__", LabelMatcher::Op::kEqual, std::string(pair.metric)};
    for (const auto& c : index_.candidates(std::span(&metric, 1))) {
      if (label_value(*c.labels, "__name__") != pair.metric) continue;
      if (const auto reference = reference_of(*c.labels); reference && *reference != 0)
        links.push_back(ReferenceLink{c.id, *reference});
    }
  }
  return links;
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
