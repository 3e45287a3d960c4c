// Sealed blocks and series metadata in SQLite (store.db in the data dir, WAL journal mode, synchronous=FULL
// so that a committed transaction is durable). Tables:
//   meta(key, value)                      clock domain, format version
//   series(id, labels)                    labels as encode_labels writes them
//   blocks(id, series_id, min_t, max_t, count, resolution_ms, data, time_id)
//                                         one encoded block (chunk_codec) per row, never rewritten
//                                         (downsampling replaces raw rows by one-a-minute rows)
//   time_columns(id, min_t, max_t, count, checksum, data)
//                                         timestamps stored apart (time_column.h), one row for every
//                                         block that carries them (blocks.time_id; 0: inline); deleted
//                                         with the last such block
// Not thread-safe: one connection per thread; the store keeps one for writing and one for reading.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/label_index.h"
#include "store/sqlite_db.h"

namespace gpuwatch::store {

struct SealedBlock {
  SeriesId series = 0;
  std::int64_t min_t = 0;
  std::int64_t max_t = 0;
  std::uint32_t count = 0;
  std::int64_t resolution_ms = 0;  // 0: raw samples; 60000: a downsampled (one point a minute) block
  std::vector<std::uint8_t> data;
  // Its time column when the block keeps its timestamps apart (encode_time_column), else empty: stored once
  // for every block of a transaction or of the store with the same bytes.
  std::vector<std::uint8_t> times;
};

// Which block a row holds: its id, series, time range and sample count (a row id alone may be reused after a
// delete; the whole key is not, for different data).
struct BlockKey {
  std::int64_t row = 0;
  SeriesId series = 0;
  std::int64_t min_t = 0;
  std::int64_t max_t = 0;
  std::int64_t count = 0;
  friend bool operator==(const BlockKey&, const BlockKey&) = default;
};

struct StoredBlock {
  BlockKey key;
  std::vector<std::uint8_t> data;
  std::int64_t time_id = 0;         // its time column's row; 0 when its timestamps are inline
  std::vector<std::uint8_t> times;  // that row's bytes; empty when inline or when the row is missing
};

struct BlockRow {
  BlockKey key;
  std::span<const std::uint8_t> data;   // valid during the callback only
  std::int64_t time_id = 0;             // as StoredBlock's
  std::span<const std::uint8_t> times;  // as StoredBlock's, valid during the callback only
};
StoredBlock copy_of(const BlockRow& row);

// A series whose blocks may be coded against another's (reference_pairs.h): retention and downsampling take
// a reference block and the blocks coded against it together (block_reference.h).
struct ReferenceLink {
  SeriesId series = 0;
  SeriesId reference = 0;
};
// The same links by reference: each reference series to the series coded against it.
using SeriesCodedAgainst = std::unordered_multimap<SeriesId, SeriesId>;
SeriesCodedAgainst series_coded_against(std::span<const ReferenceLink> links);

// Whether the blocks table has its time_id column: a data dir written before time columns has not.
bool has_time_ids(SqliteDb& db);
// Every block over `db`, in row order, with its time column (a block's key names its series): the integrity
// check's walk, over a connection of its own.
void for_each_block(SqliteDb& db, const std::function<void(const BlockRow&)>& each);

// Finds a series' raw block with exactly a given time range and sample count: the reference block of a block
// coded against that series (block_reference.h). Over any connection: the integrity check has no BlockDb.
class SameRangeBlock {
 public:
  explicit SameRangeBlock(SqliteDb& db);
  // Calls `each` with the block and returns true, or returns false when there is none.
  bool read(SeriesId series, const BlockKey& like, const std::function<void(const BlockRow&)>& each);

 private:
  SqliteStatement statement_;
};

class BlockDb {
 public:
  // Opens or creates `path`. Throws StoreError naming the file.
  BlockDb(const std::string& path, bool create);

  std::string meta(const std::string& key);  // "" when unset
  void set_meta(const std::string& key, const std::string& value);

  std::vector<std::pair<SeriesId, Labels>> load_series();
  // Per series: the newest timestamp in its blocks.
  std::unordered_map<SeriesId, std::int64_t> newest_times();
  // Total bytes of block data.
  std::uint64_t block_bytes();

  // Inserts blocks (and the series rows they need) in one transaction. Throws StoreError; then nothing
  // was inserted.
  void insert(std::span<const SealedBlock> blocks, std::span<const std::pair<SeriesId, Labels>> new_series);
  // The same, also deleting the rows `replaced`, in one transaction (downsampling).
  void replace(std::span<const std::int64_t> replaced, std::span<const SealedBlock> blocks,
               std::span<const std::pair<SeriesId, Labels>> new_series);
  // Raw (not yet downsampled) blocks wholly older than `before_t`, oldest first, at most `limit`.
  std::vector<StoredBlock> raw_blocks_before(std::int64_t before_t, std::size_t limit);

  // Blocks of a series overlapping [min_t, max_t], oldest (by last sample) first.
  void read_blocks(SeriesId series, std::int64_t min_t, std::int64_t max_t,
                   const std::function<void(const BlockRow&)>& each);
  // The keys of the same blocks, without their data (a reader whose blocks are all decoded already reads
  // no blob); into `out`, cleared first.
  void read_block_keys(SeriesId series, std::int64_t min_t, std::int64_t max_t, std::vector<BlockKey>& out);
  // Whether a series has a block overlapping [min_t, max_t].
  bool has_block(SeriesId series, std::int64_t min_t, std::int64_t max_t);

  // The reference lookup over this connection.
  SameRangeBlock& same_range_block();

  // Retention: deletes blocks wholly older than `before_t`, then the oldest blocks until block data is at
  // most `max_bytes`, each reference block of `links` with the raw blocks of the same range of the series
  // paired with it (they are as old); then series rows left without blocks, except `keep`. Returns blocks
  // deleted and the ids of the series rows deleted.
  std::pair<std::size_t, std::vector<SeriesId>> apply_retention(std::int64_t before_t,
                                                                std::uint64_t max_bytes,
                                                                const std::function<bool(SeriesId)>& keep,
                                                                std::span<const ReferenceLink> links = {});
  void checkpoint();  // moves SQLite's WAL into the main file (and truncates it)

 private:
  SqliteDb db_;
  std::optional<SqliteStatement> read_blocks_;  // declared after db_: finalized before the connection closes
  std::optional<SqliteStatement> read_block_keys_;
  std::optional<SameRangeBlock> same_range_block_;
};

}  // namespace gpuwatch::store
