#include "store/block_db.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "store/time_column.h"

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
CREATE TABLE IF NOT EXISTS time_columns(id INTEGER PRIMARY KEY, min_t INTEGER NOT NULL, max_t INTEGER NOT NULL,
                                        count INTEGER NOT NULL, checksum INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS time_columns_by_range ON time_columns(max_t, min_t, count, checksum);
)";

// After the blocks table has its time_id column (a data dir from before time columns gets it on open).
constexpr const char* kTimeColumnIndex =
    "CREATE INDEX IF NOT EXISTS blocks_by_time_column ON blocks(time_id) WHERE time_id != 0";

// Every read of blocks for decoding takes the block's time column along (NULL when its timestamps are inline,
// or when the row is missing: decoding then says so).
constexpr const char* kBlockColumns =
    "SELECT b.id, b.series_id, b.min_t, b.max_t, b.count, b.data, b.time_id, t.data FROM blocks b "
    "LEFT JOIN time_columns t ON t.id = b.time_id ";

BlockRow row_of(const SqliteStatement& s) {
  return BlockRow{BlockKey{s.column_int(0), static_cast<SeriesId>(s.column_int(1)), s.column_int(2),
                           s.column_int(3), s.column_int(4)},
                  s.column_blob(5), s.column_int(6), s.column_blob(7)};
}

std::string block_query(const char* where) {
  return std::string(kBlockColumns) + where;
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

// The time_columns rows of one transaction's blocks: a column equal to one stored already (the same range,
// count, checksum and bytes) is reused, else inserted once for all the blocks that carry it.
class TimeColumnRows {
 public:
  explicit TimeColumnRows(SqliteDb& db)
      : db_(db),
        find_(db.prepare(
            "SELECT id, data FROM time_columns WHERE max_t=? AND min_t=? AND count=? AND checksum=?")),
        add_(db.prepare(
            "INSERT INTO time_columns(min_t, max_t, count, checksum, data) VALUES(?, ?, ?, ?, ?)")) {}

  std::int64_t row_for(const SealedBlock& b) {
    const std::int64_t checksum = inspect_time_column(b.times).checksum;
    for (const auto& [bytes, id] : added_) {
      if (*bytes == b.times) return id;
    }
    find_.reset();
    find_.bind(1, b.max_t).bind(2, b.min_t).bind(3, static_cast<std::int64_t>(b.count)).bind(4, checksum);
    while (find_.step()) {
      const auto stored = find_.column_blob(1);
      if (std::equal(stored.begin(), stored.end(), b.times.begin(), b.times.end())) {
        const std::int64_t id = find_.column_int(0);
        find_.reset();
        added_.emplace_back(&b.times, id);
        return id;
      }
    }
    find_.reset();
    add_.bind(1, b.min_t)
        .bind(2, b.max_t)
        .bind(3, static_cast<std::int64_t>(b.count))
        .bind(4, checksum)
        .bind_blob(5, b.times)
        .run();
    const std::int64_t id = sqlite3_last_insert_rowid(db_.handle());
    added_.emplace_back(&b.times, id);
    return id;
  }

 private:
  SqliteDb& db_;
  SqliteStatement find_;
  SqliteStatement add_;
  std::vector<std::pair<const std::vector<std::uint8_t>*, std::int64_t>> added_;  // this transaction's
};

// Time columns no block names any more (retention or downsampling deleted the last of their blocks). The
// subquery repeats the partial index's "time_id != 0" so that SQLite looks each column up in that index
// instead of scanning every block for each column.
void delete_unused_time_columns(SqliteDb& db) {
  db.exec(
      "DELETE FROM time_columns WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE blocks.time_id = "
      "time_columns.id AND blocks.time_id != 0)");
}

}  // namespace

StoredBlock copy_of(const BlockRow& row) {
  return StoredBlock{
      row.key, {row.data.begin(), row.data.end()}, row.time_id, {row.times.begin(), row.times.end()}};
}

SeriesCodedAgainst series_coded_against(std::span<const ReferenceLink> links) {
  SeriesCodedAgainst out;
  for (const auto& l : links) out.emplace(l.reference, l.series);
  return out;
}

SameRangeBlock::SameRangeBlock(SqliteDb& db)
    : statement_(db.prepare(block_query("WHERE b.series_id=? AND b.min_t=? AND b.max_t=? AND b.count=? AND "
                                        "b.resolution_ms=0 LIMIT 1"))) {}

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
  // 0: the block's timestamps are inline; else the time_columns row that holds them.
  if (!has_time_ids(db_)) db_.exec("ALTER TABLE blocks ADD COLUMN time_id INTEGER NOT NULL DEFAULT 0");
  db_.exec(kTimeColumnIndex);
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
  auto s = db_.prepare(
      "SELECT (SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blocks) + "
      "(SELECT COALESCE(SUM(LENGTH(data)), 0) FROM time_columns)");
  return s.step() ? static_cast<std::uint64_t>(s.column_int(0)) : 0;
}

void BlockDb::insert(std::span<const SealedBlock> blocks,
                     std::span<const std::pair<SeriesId, Labels>> new_series) {
  replace({}, blocks, new_series);
}

std::vector<StoredBlock> BlockDb::raw_blocks_before(std::int64_t before_t, std::size_t limit) {
  std::vector<StoredBlock> out;
  auto s = db_.prepare(block_query("WHERE b.max_t < ? AND b.resolution_ms = 0 ORDER BY b.max_t LIMIT ?"));
  s.bind(1, before_t).bind(2, static_cast<std::int64_t>(limit));
  while (s.step()) out.push_back(copy_of(row_of(s)));
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
  TimeColumnRows time_columns(db_);
  auto add_block = db_.prepare(
      "INSERT INTO blocks(series_id, min_t, max_t, count, resolution_ms, data, time_id) "
      "VALUES(?, ?, ?, ?, ?, ?, ?)");
  for (const auto& b : blocks) {
    add_block.bind(1, static_cast<std::int64_t>(b.series))
        .bind(2, b.min_t)
        .bind(3, b.max_t)
        .bind(4, static_cast<std::int64_t>(b.count))
        .bind(5, b.resolution_ms)
        .bind_blob(6, b.data)
        .bind(7, b.times.empty() ? 0 : time_columns.row_for(b))
        .run();
  }
  if (!replaced.empty()) delete_unused_time_columns(db_);
  tx.commit();
}

void BlockDb::read_blocks(SeriesId series, std::int64_t min_t, std::int64_t max_t,
                          const std::function<void(const BlockRow&)>& each) {
  // Prepared once per connection: a query reads series after series, and compiling the statement for each
  // cost as much as reading a day of one series' blocks. In the index's order (max_t): ordered by min_t,
  // SQLite sorted every row, blobs included, in a temporary b-tree. Blocks of a series do not overlap
  // unless one was seen twice, and the reader sorts where they do.
  if (!read_blocks_) {
    read_blocks_.emplace(
        db_.prepare(block_query("WHERE b.series_id=? AND b.max_t>=? AND b.min_t<=? ORDER BY b.max_t")));
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

bool has_time_ids(SqliteDb& db) {
  auto columns = db.prepare("PRAGMA table_info(blocks)");
  while (columns.step()) {
    if (columns.column_text(1) == "time_id") return true;
  }
  return false;
}

void for_each_block(SqliteDb& db, const std::function<void(const BlockRow&)>& each) {
  auto s = db.prepare(block_query("ORDER BY b.id"));
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
    // A time column's bytes count as freed with the first of its blocks: they are as old (one window), and
    // the rest of them follow in this order.
    auto oldest = db_.prepare(
        "SELECT b.id, b.series_id, b.min_t, b.max_t, b.count, LENGTH(b.data), b.resolution_ms, b.time_id, "
        "COALESCE(LENGTH(t.data), 0) FROM blocks b LEFT JOIN time_columns t ON t.id = b.time_id "
        "ORDER BY b.max_t, b.id");
    std::unordered_set<std::int64_t> freed_columns;
    auto same_range = db_.prepare(
        "SELECT id, LENGTH(data) FROM blocks WHERE series_id=? AND min_t=? AND max_t=? AND count=? AND "
        "resolution_ms=0");
    std::vector<std::int64_t> doomed;
    std::unordered_set<std::int64_t> taken;
    while (bytes > max_bytes && oldest.step()) {
      if (!taken.insert(oldest.column_int(0)).second) continue;
      doomed.push_back(oldest.column_int(0));
      bytes -= std::min(bytes, static_cast<std::uint64_t>(oldest.column_int(5)));
      if (oldest.column_int(7) != 0 && freed_columns.insert(oldest.column_int(7)).second)
        bytes -= std::min(bytes, static_cast<std::uint64_t>(oldest.column_int(8)));
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
  if (deleted > 0) delete_unused_time_columns(db_);
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
