#include "store/store_check.h"

#include <filesystem>
#include <map>
#include <set>

#include "store/block_db.h"
#include "store/block_reference.h"
#include "store/chunk_codec.h"
#include "store/codec_error.h"
#include "store/label_index.h"
#include "store/reference_pairs.h"
#include "store/sqlite_db.h"
#include "store/time_column.h"
#include "store/wal.h"

namespace gpuwatch::store {

std::string CheckReport::summary() const {
  std::string out = "clock domain: " + (clock_domain.empty() ? std::string("(none)") : clock_domain) + "\n";
  out += "series: " + std::to_string(series);
  if (series_only_in_wal > 0)
    out += " (" + std::to_string(series_only_in_wal) + " only in the write-ahead log so far)";
  out += "\n";
  out += "blocks: " + std::to_string(blocks) + " (" + std::to_string(block_samples) + " samples, " +
         std::to_string(block_bytes) + " bytes";
  if (block_samples > 0) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, ", %.3f bytes/sample",
                  static_cast<double>(block_bytes) / block_samples);
    out += ratio;
  }
  out += ")\n";
  if (time_columns > 0 || blocks_with_times_apart > 0)
    out += "time columns: " + std::to_string(time_columns) + " (" + std::to_string(time_column_bytes) +
           " bytes), shared by " + std::to_string(blocks_with_times_apart) + " blocks\n";
  out += "write-ahead log: " + std::to_string(wal_segments) + " segment(s), " + std::to_string(wal_records) +
         " record(s), " + std::to_string(wal_samples) + " sample(s)";
  if (wal_torn_tail_bytes > 0)
    out +=
        "; a torn last write of " + std::to_string(wal_torn_tail_bytes) + " bytes (cut off at the next open)";
  out += "\n";
  out += problems.empty() ? "no problems found\n" : std::to_string(problems.size()) + " problem(s):\n";
  for (const auto& p : problems) out += "  " + p + "\n";
  return out;
}

CheckReport check_store(const std::string& data_dir) {
  CheckReport report;
  const std::string db_path = data_dir + "/store.db";
  if (!std::filesystem::exists(db_path)) {
    report.problems.push_back(db_path + ": missing (not a gpuwatch data directory?)");
    return report;
  }
  // Series by their labels, in the series table and in the write-ahead log.
  std::set<std::string> series_labels;
  std::set<std::int64_t> series_ids;
  try {
    SqliteDb db(db_path, false);
    {
      auto s = db.prepare("SELECT value FROM meta WHERE key='clock_domain'");
      if (s.step()) report.clock_domain = s.column_text(0);
    }
    {
      auto s = db.prepare("PRAGMA quick_check");
      while (s.step()) {
        const std::string line = s.column_text(0);
        if (line != "ok") report.problems.push_back(db_path + ": " + line);
      }
    }
    // Which series each series' blocks may be coded against (reference_pairs.h).
    std::map<std::int64_t, Labels> labels_of;
    std::map<Labels, std::int64_t> id_of;
    {
      auto s = db.prepare("SELECT id, labels FROM series");
      while (s.step()) {
        series_ids.insert(s.column_int(0));
        try {
          Labels labels = decode_labels(s.column_blob(1));
          series_labels.insert(labels_to_string(labels));
          id_of.emplace(labels, s.column_int(0));
          labels_of.emplace(s.column_int(0), std::move(labels));
        } catch (const std::exception& e) {
          report.problems.push_back("series " + std::to_string(s.column_int(0)) +
                                    ": bad labels: " + e.what());
        }
      }
    }
    // A data dir from before time columns (no time_id column, no time_columns table) is read as one whose
    // blocks all keep their timestamps inline, through stand-ins in the connection's temporary schema: the
    // file is not changed.
    if (!has_time_ids(db)) {
      db.exec("CREATE TEMP TABLE time_columns(id INTEGER PRIMARY KEY, data BLOB)");
      db.exec("CREATE TEMP VIEW blocks AS SELECT *, 0 AS time_id FROM main.blocks");
    }
    {
      auto s = db.prepare("SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM time_columns");
      if (s.step()) {
        report.time_columns = static_cast<std::size_t>(s.column_int(0));
        report.time_column_bytes = static_cast<std::uint64_t>(s.column_int(1));
        report.block_bytes += report.time_column_bytes;
      }
    }
    BlockDecoder decoder;
    ReferenceColumns reference;
    TimeColumnCache time_columns;
    SameRangeBlock reference_blocks(db);
    std::vector<std::int64_t> t;
    std::vector<double> v;
    for_each_block(db, [&](const BlockRow& b) {
      ++report.blocks;
      const BlockKey& key = b.key;
      report.block_bytes += b.data.size();
      if (b.time_id != 0) ++report.blocks_with_times_apart;
      const std::string where =
          "block " + std::to_string(key.row) + " (series " + std::to_string(key.series) + ")";
      if (!series_ids.contains(key.series)) report.problems.push_back(where + ": its series is missing");
      try {
        SeriesReference r{};
        if (inspect_block(b.data).needs_reference) {
          // Decoded against the block it was sealed against; a missing or damaged one is this block's
          // problem.
          const auto labels = labels_of.find(key.series);
          if (labels == labels_of.end())
            throw CodecError(
                "its values are coded against a reference series, which its missing series names");
          const Labels reference_series = reference_labels(labels->second);
          if (reference_series.empty())
            throw CodecError("its values are coded against a reference series, but its metric has none");
          const auto id = id_of.find(reference_series);
          reference.load(
              reference_blocks, id == id_of.end() ? 0 : static_cast<SeriesId>(id->second),
              [&] { return labels_to_string(reference_series); }, key, decoder);
          r = reference.view();
        }
        decoder.decode_into(b.data, t, v, r, time_columns.timestamps(b.time_id, b.times));
      } catch (const std::exception& e) {
        report.problems.push_back(where + ": " + e.what());
        return;
      }
      report.block_samples += t.size();
      if (static_cast<std::int64_t>(t.size()) != key.count || t.front() != key.min_t || t.back() != key.max_t)
        report.problems.push_back(where + ": its row says " + std::to_string(key.count) + " samples in [" +
                                  std::to_string(key.min_t) + ", " + std::to_string(key.max_t) +
                                  "], the block holds " + std::to_string(t.size()) + " in [" +
                                  std::to_string(t.front()) + ", " + std::to_string(t.back()) + "]");
    });
  } catch (const std::exception& e) {
    report.problems.push_back(db_path + ": " + e.what());
  }
  // A live store's newest series are in the write-ahead log alone until their first block is sealed.
  WalVisitor visitor;
  visitor.series = [&](std::uint64_t, SeriesId, Labels labels) {
    if (series_labels.insert(labels_to_string(labels)).second) ++report.series_only_in_wal;
  };
  const WalReplayReport wal = replay_wal(wal_dir(data_dir), visitor, false);
  report.series = series_labels.size();
  report.wal_segments = wal.segments;
  report.wal_records = wal.records;
  report.wal_samples = wal.samples;
  report.wal_torn_tail_bytes = wal.torn_bytes_dropped;
  for (const auto& c : wal.corruption) report.problems.push_back(c);
  return report;
}

}  // namespace gpuwatch::store
