// The history store: an in-memory head, a write-ahead log with grouped fdatasync, and sealed compressed
// blocks in SQLite, behind SeriesSource (queries) and SeriesAppender (the agent, import). Layers and files
// are described in docs/store-format.md.
//
// A caller may rely on:
// - append() is cheap (memory only, under one lock); the WAL is written and fdatasync'ed by a background
//   flusher every sync_interval, so a crash loses at most the samples appended in the last sync_interval
//   plus the duration of one sync (the loss window). commit() syncs at once.
// - A write or sync that fails (disk full, I/O error) never fails append(): samples stay in memory, the error
//   is counted by reason and logged once per episode, and writing resumes when the disk accepts it again.
//   Unwritten WAL bytes are held up to max_unwritten_bytes; beyond that they are dropped and counted (the
//   samples stay queryable in memory and are sealed into blocks later).
// - A block whose checksum fails is never returned as data: it is skipped, counted and logged.
// - All methods are thread-safe.
//
// Locking (queries never hold a lock that append() or the flusher needs for longer than a copy):
// - mu_ guards the index and the head; append() and the flusher take it. A query takes it twice, briefly:
//   once to copy the candidate series (shared, immutable label sets; no regex runs under it), once to take
//   shared references to the matching series' head blocks. Matching, decoding and evaluation run unlocked.
// - read_mu_ guards the query side's SQLite connection; only queries take it, so a slow query delays other
//   queries, never an append or a sync.
// - io_mu_ serialises the flusher's WAL and SQLite writes (flusher, commit(), maintain()).
// - corrupt_mu_ guards the set of corrupt blocks already logged; stop_mu_ the flusher's stop signal.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/series.h"
#include "core/step_sampled_source.h"
#include "store/block_db.h"
#include "store/block_reference.h"
#include "store/chunk_codec.h"
#include "store/decoded_block_cache.h"
#include "store/head.h"
#include "store/label_index.h"
#include "store/time_column.h"
#include "store/unique_fd.h"
#include "store/wal.h"

namespace gpuwatch::store {

struct StoreOptions {
  std::string data_dir;
  // "wall" or "sim:<scenario>": recorded on first open; opening with another domain is refused. "" takes the
  // recorded domain ("wall" for a new store): for `gpuwatch query` and `gpuwatch import`.
  std::string clock_domain = "wall";
  std::chrono::milliseconds sync_interval{2000};
  // Open blocks are cut at aligned windows of this length or at max_samples, whichever comes first: 1 h of
  // 1 s samples is 3600 per series (57 KiB raw in memory); the codec is within a few percent of its best
  // ratio at that length, and the WAL keeps about one window.
  std::int64_t block_window_ms = 3'600'000;
  std::size_t block_max_samples = 3600;
  std::int64_t retention_ms = 30LL * 24 * 3'600'000;
  std::uint64_t retention_bytes = std::uint64_t{1} << 30;
  std::chrono::milliseconds retention_check_interval{60'000};
  // Raw blocks wholly older than this (from the newest sample) are rewritten one point a minute, with
  // :1m_min, :1m_max, :1m_avg and :1m_count series beside (downsample.h). 0 disables it.
  std::int64_t downsample_after_ms = 48LL * 3'600'000;
  std::int64_t downsample_step_ms = 60'000;
  std::uint64_t wal_segment_bytes = 16u << 20;
  std::uint64_t max_unwritten_bytes = 64u << 20;
  // Decoded sealed blocks kept for the queries that read them again (decoded_block_cache.h): 64 MiB holds
  // a day of 1 s samples of 48 series. Only blocks a query reads whole are kept: a look at the last minutes
  // of every series (an instant query) would otherwise fill it with blocks that no range query needs.
  std::size_t decoded_cache_bytes = 64u << 20;
  // A sealed block keeps its timestamps apart, in a time column shared with every block that has the same
  // (time_column.h), when that column takes at least this many bytes; a steady cadence stays inline.
  std::size_t time_column_apart_bytes = kMinTimeColumnBytesApart;
  bool background_flusher = true;  // false: only commit() and maintain() write (tests drive them)
};

struct StoreHealth {
  std::uint64_t samples_appended = 0;
  std::map<std::string, std::uint64_t> samples_rejected;  // by reason: out_of_order, duplicate, bad_labels
  std::uint64_t series = 0;
  std::uint64_t bytes_on_disk = 0;
  std::map<std::string, std::uint64_t> write_errors;  // by reason: no_space, io, other
  std::int64_t last_sync_unix_ms = 0;                 // wall time of the last successful WAL sync; 0 = none
  std::uint64_t corrupt_blocks = 0;
  std::uint64_t corrupt_wal_records = 0;
  std::uint64_t unwritten_bytes_dropped = 0;
  std::uint64_t blocks_sealed = 0;
  std::uint64_t blocks_downsampled = 0;
  std::uint64_t samples_in_memory = 0;
  std::uint64_t memory_bytes = 0;  // the head's samples (encoded chunks and raw tails)
};

class Store final : public SeriesSource, public StepSampledSource, public SeriesAppender {
 public:
  // Opens or creates the store in options.data_dir, replays its WAL and starts the flusher. Throws
  // StoreError with a clear message (another process holds the directory, a different clock domain, an
  // unreadable database).
  static std::shared_ptr<Store> open(StoreOptions options);
  ~Store() override;  // stops the flusher after a last flush
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  std::string append(const Labels& labels, std::int64_t t_ms, double value) override;
  // As append, for a caller that keeps the series' labels: when they are sorted (as normalize_labels leaves
  // them), a new series is indexed with this label set itself, and for a known one `labels` is replaced by
  // the store's, so that the caller and the store hold one copy.
  std::string append_shared(std::shared_ptr<const Labels>& labels, std::int64_t t_ms, double value);
  // One series' points in time order, as append() of each, the series looked up once.
  std::vector<Rejection> append_points(const Labels& labels, std::span<const Point> points) override;
  // Writes and syncs the WAL now. Throws StoreError when that fails.
  void commit() override;

  std::vector<SeriesPoints> select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                   std::int64_t max_t) const override;
  std::vector<Labels> series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                             std::int64_t max_t) const override;
  void for_each_series(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                       const std::function<void(const Labels&, std::span<const Point>)>& fn) const override;
  // Checks while matching candidates (every few series) and before reading each series' sealed blocks.
  void for_each_series_checked(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                               const std::function<void(const Labels&, std::span<const Point>)>& fn,
                               const Checkpoint& checkpoint) const override;
  // Sealed blocks hand out only the points the times pick (step_pick.h); the head's, all of theirs.
  void for_each_series_at(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                          const EvalTimes& times,
                          const std::function<void(const Labels&, std::span<const Point>)>& fn,
                          const Checkpoint& checkpoint) const override;

  // One flusher pass: write and sync the WAL, seal finished blocks into SQLite, delete WAL segments whose
  // samples are all sealed, and (when due) apply retention. Returns false when a write failed.
  bool maintain();
  // Seals every open block now (tests, and callers about to copy the data dir).
  void seal_all();
  StoreHealth health() const;
  const StoreOptions& options() const { return options_; }

 private:
  explicit Store(StoreOptions options);
  // append's work on sorted labels; `shared`, when not null, holds them and is indexed or replaced (then
  // `key` is not read again).
  // Under mu_: the id of the series `key` names, indexed now if new (with `shared`'s labels when given, else
  // a copy; a known series replaces `shared` with the store's copy and points `key` at it).
  SeriesId indexed_id(const Labels*& key, std::shared_ptr<const Labels>* shared);
  // Under mu_: one point of series `id` (labels `key`) into the head and the WAL, or why it is rejected.
  std::string add_point(SeriesId id, const Labels& key, std::int64_t t_ms, double value);
  std::string append_sorted(const Labels& key, std::shared_ptr<const Labels>* shared, std::int64_t t_ms,
                            double value);
  void replay();
  bool flush();
  bool seal();
  void delete_sealed_segments();
  void apply_retention();
  void downsample();
  // Adds to a downsampling batch the raw blocks it lacks of the same range as its reference blocks, of the
  // series paired with them: a reference block is never rolled up before the blocks coded against it.
  void take_coded_against(std::vector<StoredBlock>& batch, std::span<const ReferenceLink> links);
  SeriesId rollup_series(SeriesId raw, std::string_view suffix,
                         std::vector<std::pair<SeriesId, Labels>>& created);
  // The series whose labels satisfy the matchers, ascending by id; takes mu_ only to copy the candidates.
  std::vector<LabelIndex::Candidate> matching(std::span<const LabelMatcher> matchers,
                                              const Checkpoint* checkpoint = nullptr) const;
  // Calls fn for each matching series with points in [min_t, max_t], one series at a time (ascending id),
  // its points in one reused buffer: no query holds every series it reads at once. With `times`, only the
  // points an instant selector at those times can pick are sure to be there.
  void read(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
            const std::function<void(const Labels&, std::span<const Point>)>& fn,
            const Checkpoint* checkpoint, const EvalTimes* times) const;
  std::vector<Point> take_buffer() const;
  void give_back_buffer(std::vector<Point> buffer) const;
  // Appends the points of one sealed block within [min_t, max_t] (those `times` pick, when given), decoded
  // or from the cache. `reference`: the series its blocks may be coded against (0 when it is not in the
  // store), or none when its metric has no reference.
  void append_sealed(const BlockRow& row, const Labels& labels, std::optional<SeriesId> reference,
                     std::int64_t min_t, std::int64_t max_t, const EvalTimes* times, std::uint64_t generation,
                     BlockDecoder& decoder, ReferenceColumns& reference_columns,
                     TimeColumnCache& time_columns, std::vector<Point>& scratch,
                     std::vector<Point>& out) const;
  // The series a series' blocks may be coded against (reference_pairs.h): none when its metric has no
  // reference, 0 when that series is not in the store. The caller holds mu_.
  std::optional<SeriesId> reference_of(const Labels& labels) const;
  // Every series in the store with its reference series, both present. The caller holds mu_.
  std::vector<ReferenceLink> reference_links() const;
  // What a block cut from the head is sealed against: the block of its reference series with the same range,
  // pending with it or sealed before it; empty when there is none (it is then sealed on its own).
  SeriesReference seal_reference(const HeadBlock& block, std::optional<SeriesId> reference,
                                 std::span<const std::shared_ptr<const HeadBlock>> pending,
                                 ReferenceColumns& columns, BlockDecoder& decoder);
  // A block as the store seals it (raw or rolled up): its timestamps apart, in a time column stored once for
  // every block that has the same, when that column is large enough to be worth a row of its own.
  SealedBlock sealed_block(SeriesId series, std::span<const std::int64_t> t, std::span<const double> v,
                           std::int64_t resolution_ms, SeriesReference reference = {});
  // Whether every block in `keys` is decoded in the cache; if so, their points are in `found`.
  bool all_cached(const std::vector<BlockKey>& keys, std::vector<CachedPoints>& found) const;
  void note_error(const StoreError& e);
  void note_success();
  void run_flusher();

  StoreOptions options_;
  bool opened_ = false;
  UniqueFd lock_fd_;
  std::unique_ptr<BlockDb> write_db_;  // flusher side
  mutable std::mutex read_mu_;
  mutable std::unique_ptr<BlockDb> read_db_;
  mutable DecodedBlockCache decoded_;
  // Point buffers that reads reuse: a day of one series is over a megabyte, and a fresh one per query costs
  // more in page faults than copying the points into it does.
  mutable std::mutex buffers_mu_;
  mutable std::vector<std::vector<Point>> buffers_;

  // Everything below mu_ changes on append.
  mutable std::mutex mu_;
  LabelIndex index_;
  Head head_;
  SeriesId next_id_ = 1;
  std::unordered_map<SeriesId, std::uint64_t>
      defined_in_segment_;        // the WAL segment holding its series entry
  std::set<SeriesId> persisted_;  // has a row in the series table
  WalEntries wal_entries_;
  std::uint64_t current_segment_ = 1;
  std::uint64_t segment_bytes_ = 0;
  std::int64_t newest_t_ = std::numeric_limits<std::int64_t>::min();
  StoreHealth stats_;

  // Flusher side, under io_mu_.
  std::mutex io_mu_;
  WalWriter wal_writer_;
  struct Unwritten {
    std::uint64_t segment;
    std::vector<std::uint8_t> entries;
  };
  std::vector<Unwritten> unwritten_;
  BlockEncoder encoder_;
  bool in_error_episode_ = false;
  std::chrono::steady_clock::time_point next_retention_{};

  mutable std::mutex corrupt_mu_;
  mutable std::set<std::int64_t> corrupt_rows_;

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread flusher_;
};

}  // namespace gpuwatch::store
