#include "store/block_db.h"

#include <unordered_map>
#include <unordered_set>

namespace gpuwatch::store {
namespace {

constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS series(id INTEGER PRIMARY KEY, labels BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS blocks(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL, min_t INTEGER NOT NULL,
                                  max_t INTEGER NOT NULL, count INTEGER NOT NULL,
                                  resolution_ms INTEGER NOT NULL DEFAULT 0, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS blocks_by_series ON blocks(series_id, max_t);
CREATE INDEX IF NOT EXISTS blocks_by_time ON blocks(max_t);
)";

BlockRow row_of(const SqliteStatement& s) {
  return BlockRow{BlockKey{s.column_int(0), static_cast<SeriesId>(s.column_int(1)), s.column_int(2),
                           s.column_int(3), s.column_int(4)},
                  s.column_blob(5)};
}

// A prepared statement over one series' blocks overlapping [min_t, max_t], bound on construction and reset
// on destruction: that releases the read snapshot, also when a caller's callback throws.
struct SeriesRangeRead {
  SeriesRangeRead(SqliteStatement& s, SeriesId series, std::int64_t min_t, std::int64_t max_t)
      : statement(s) {
    statement.reset();
    statement.bind(1, static_cast<std::int64_t>(series)).bind(2, min_t).bind(3, max_t);
  }
  ~SeriesRangeRead() { statement.reset(); }
  SeriesRangeRead(const SeriesRangeRead&) = delete;
  SeriesRangeRead& operator=(const SeriesRangeRead&) = delete;
  bool step() { return statement.step(); }
  SqliteStatement& statement;
};

}  // namespace

SeriesCodedAgainst series_coded_against(std::span<const ReferenceLink> links) {
  SeriesCodedAgainst out;
  for (const auto& l : links) out.emplace(l.reference, l.series);
  return out;
}

SameRangeBlock::SameRangeBlock(SqliteDb& db)
    : statement_(
          db.prepare("SELECT id, series_id, min_t, max_t, count, data FROM blocks WHERE series_id=? AND "
                     "min_t=? AND max_t=? AND count=? AND resolution_ms=0 LIMIT 1")) {}

bool SameRangeBlock::read(SeriesId series, const BlockKey& like,
                          const std::function<void(const BlockRow&)>& each) {
  statement_.reset();
  struct ResetOnExit {
    SqliteStatement& s;
    ~ResetOnExit() { s.reset(); }
  } reset_on_exit{statement_};
  statement_.bind(1, static_cast<std::int64_t>(series))
      .bind(2, like.min_t)
      .bind(3, like.max_t)
      .bind(4, like.count);
  if (!statement_.step()) return false;
  each(row_of(statement_));
  return true;
}

BlockDb::BlockDb(const std::string& path, bool create) : db_(path, create) {
  db_.exec("PRAGMA journal_mode=WAL");
  db_.exec("PRAGMA synchronous=FULL");
  db_.exec("PRAGMA auto_vacuum=INCREMENTAL");  // takes effect only on a new, empty database
  db_.exec(kSchema);
}

std::string BlockDb::meta(const std::string& key) {
  auto s = db_.prepare("SELECT value FROM meta WHERE key=?");
  s.bind(1, key);
  return s.step() ? s.column_text(0) : std::string();
}

void BlockDb::set_meta(const std::string& key, const std::string& value) {
  db_.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)").bind(1, key).bind(2, value).run();
}

std::vector<std::pair<SeriesId, Labels>> BlockDb::load_series() {
  std::vector<std::pair<SeriesId, Labels>> out;
  auto s = db_.prepare("SELECT id, labels FROM series ORDER BY id");
  while (s.step()) out.emplace_back(static_cast<SeriesId>(s.column_int(0)), decode_labels(s.column_blob(1)));
  return out;
}

std::unordered_map<SeriesId, std::int64_t> BlockDb::newest_times() {
  std::unordered_map<SeriesId, std::int64_t> out;
  auto s = db_.prepare("SELECT series_id, MAX(max_t) FROM blocks GROUP BY series_id");
  while (s.step()) out[static_cast<SeriesId>(s.column_int(0))] = s.column_int(1);
  return out;
}

std::uint64_t BlockDb::block_bytes() {
  auto s = db_.prepare("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blocks");
  return s.step() ? static_cast<std::uint64_t>(s.column_int(0)) : 0;
}

void BlockDb::insert(std::span<const SealedBlock> blocks,
                     std::span<const std::pair<SeriesId, Labels>> new_series) {
  replace({}, blocks, new_series);
}

std::vector<StoredBlock> BlockDb::raw_blocks_before(std::int64_t before_t, std::size_t limit) {
  std::vector<StoredBlock> out;
  auto s = db_.prepare(
      "SELECT id, series_id, min_t, max_t, count, data FROM blocks WHERE max_t < ? AND resolution_ms = 0 "
      "ORDER BY max_t LIMIT ?");
  s.bind(1, before_t).bind(2, static_cast<std::int64_t>(limit));
  while (s.step()) {
    const BlockRow row = row_of(s);
    out.push_back(StoredBlock{row.key, {row.data.begin(), row.data.end()}});
  }
  return out;
}

void BlockDb::replace(std::span<const std::int64_t> replaced, std::span<const SealedBlock> blocks,
                      std::span<const std::pair<SeriesId, Labels>> new_series) {
  SqliteTransaction tx(db_);
  auto del = db_.prepare("DELETE FROM blocks WHERE id=?");
  for (auto row : replaced) del.bind(1, row).run();
  auto add_series = db_.prepare("INSERT OR IGNORE INTO series(id, labels) VALUES(?, ?)");
  std::vector<std::uint8_t> encoded;
  for (const auto& [id, labels] : new_series) {
    encoded.clear();
    encode_labels(labels, encoded);
    add_series.bind(1, static_cast<std::int64_t>(id)).bind_blob(2, encoded).run();
  }
  auto add_block = db_.prepare(
      "INSERT INTO blocks(series_id, min_t, max_t, count, resolution_ms, data) VALUES(?, ?, ?, ?, ?, ?)");
  for (const auto& b : blocks) {
    add_block.bind(1, static_cast<std::int64_t>(b.series))
        .bind(2, b.min_t)
        .bind(3, b.max_t)
        .bind(4, static_cast<std::int64_t>(b.count))
        .bind(5, b.resolution_ms)
        .bind_blob(6, b.data)
        .run();
  }
  tx.commit();
}

void BlockDb::read_blocks(SeriesId series, std::int64_t min_t, std::int64_t max_t,
                          const std::function<void(const BlockRow&)>& each) {
  // Prepared once per connection: a query reads series after series, and compiling the statement for each
  // cost as much as reading a day of one series' blocks. In the index's order (max_t): ordered by min_t,
  // SQLite sorted every row, blobs included, in a temporary b-tree. Blocks of a series do not overlap
  // unless one was seen twice, and the reader sorts where they do.
  if (!read_blocks_) {
    read_blocks_.emplace(db_.prepare(
        "SELECT id, series_id, min_t, max_t, count, data FROM blocks WHERE series_id=? AND max_t>=? AND "
        "min_t<=? ORDER BY max_t"));
  }
  SeriesRangeRead s(*read_blocks_, series, min_t, max_t);
  while (s.step()) each(row_of(s.statement));
}

void BlockDb::read_block_keys(SeriesId series, std::int64_t min_t, std::int64_t max_t,
                              std::vector<BlockKey>& out) {
  out.clear();
  if (!read_block_keys_) {
    read_block_keys_.emplace(
        db_.prepare("SELECT id, min_t, max_t, count FROM blocks WHERE series_id=? AND max_t>=? AND min_t<=? "
                    "ORDER BY max_t"));
  }
  SeriesRangeRead s(*read_block_keys_, series, min_t, max_t);
  while (s.step())
    out.push_back(BlockKey{s.statement.column_int(0), series, s.statement.column_int(1),
                           s.statement.column_int(2), s.statement.column_int(3)});
}

bool BlockDb::has_block(SeriesId series, std::int64_t min_t, std::int64_t max_t) {
  auto s = db_.prepare("SELECT 1 FROM blocks WHERE series_id=? AND max_t>=? AND min_t<=? LIMIT 1");
  s.bind(1, static_cast<std::int64_t>(series)).bind(2, min_t).bind(3, max_t);
  return s.step();
}

SameRangeBlock& BlockDb::same_range_block() {
  if (!same_range_block_) same_range_block_.emplace(db_);
  return *same_range_block_;
}

void BlockDb::for_each_block(const std::function<void(const BlockRow&)>& each) {
  auto s = db_.prepare("SELECT id, series_id, min_t, max_t, count, data FROM blocks ORDER BY id");
  while (s.step()) each(row_of(s));
}

std::pair<std::size_t, std::vector<SeriesId>> BlockDb::apply_retention(
    std::int64_t before_t, std::uint64_t max_bytes, const std::function<bool(SeriesId)>& keep,
    std::span<const ReferenceLink> links) {
  SqliteTransaction tx(db_);
  // By age a block coded against a reference goes with it: they share their last sample.
  db_.prepare("DELETE FROM blocks WHERE max_t < ?").bind(1, before_t).run();
  std::size_t deleted = static_cast<std::size_t>(sqlite3_changes(db_.handle()));
  std::uint64_t bytes = block_bytes();
  if (bytes > max_bytes) {
    // Oldest first: whole blocks, until the data fits. A reference block takes along the raw blocks of its
    // range of the series paired with it: they are as old, and those coded against it unreadable without it.
    const SeriesCodedAgainst coded_against = series_coded_against(links);
    auto oldest = db_.prepare(
        "SELECT id, series_id, min_t, max_t, count, LENGTH(data), resolution_ms FROM blocks "
        "ORDER BY max_t, id");
    auto same_range = db_.prepare(
        "SELECT id, LENGTH(data) FROM blocks WHERE series_id=? AND min_t=? AND max_t=? AND count=? AND "
        "resolution_ms=0");
    std::vector<std::int64_t> doomed;
    std::unordered_set<std::int64_t> taken;
    while (bytes > max_bytes && oldest.step()) {
      if (!taken.insert(oldest.column_int(0)).second) continue;
      doomed.push_back(oldest.column_int(0));
      bytes -= static_cast<std::uint64_t>(oldest.column_int(5));
      if (oldest.column_int(6) != 0) continue;
      const auto [from, to] = coded_against.equal_range(static_cast<SeriesId>(oldest.column_int(1)));
      for (auto it = from; it != to; ++it) {
        same_range.bind(1, static_cast<std::int64_t>(it->second))
            .bind(2, oldest.column_int(2))
            .bind(3, oldest.column_int(3))
            .bind(4, oldest.column_int(4));
        while (same_range.step()) {
          if (!taken.insert(same_range.column_int(0)).second) continue;
          doomed.push_back(same_range.column_int(0));
          bytes -= std::min(bytes, static_cast<std::uint64_t>(same_range.column_int(1)));
        }
        same_range.reset();
      }
    }
    oldest.reset();
    auto del = db_.prepare("DELETE FROM blocks WHERE id=?");
    for (auto row : doomed) del.bind(1, row).run();
    deleted += doomed.size();
  }
  std::vector<SeriesId> orphans;
  if (deleted > 0) {
    auto s = db_.prepare("SELECT id FROM series WHERE id NOT IN (SELECT DISTINCT series_id FROM blocks)");
    while (s.step()) {
      const auto id = static_cast<SeriesId>(s.column_int(0));
      if (!keep(id)) orphans.push_back(id);
    }
    s.reset();
    auto del = db_.prepare("DELETE FROM series WHERE id=?");
    for (auto id : orphans) del.bind(1, static_cast<std::int64_t>(id)).run();
  }
  tx.commit();
  if (deleted > 0) db_.exec("PRAGMA incremental_vacuum");
  return {deleted, orphans};
}

void BlockDb::checkpoint() {
  db_.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace gpuwatch::store
