// The integrity check behind `gpuwatch store check`: opens a data dir without changing it, verifies every
// sealed block's checksum and header against its row, its time column when it keeps its timestamps apart,
// every series reference, each block coded against a reference series against the block it was sealed against
// (block_reference.h), and every WAL record. Safe to run beside a running agent (SQLite readers do not block
// the writer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuwatch::store {

struct CheckReport {
  std::string clock_domain;
  std::size_t series = 0;              // distinct series, sealed or in the write-ahead log
  std::size_t series_only_in_wal = 0;  // of those, the ones with no sealed block yet (a live store)
  std::size_t blocks = 0;
  std::uint64_t block_samples = 0;
  std::uint64_t block_bytes = 0;        // blocks and time columns together
  std::size_t time_columns = 0;         // timestamps stored apart (time_column.h)
  std::uint64_t time_column_bytes = 0;  // of block_bytes
  std::size_t blocks_with_times_apart = 0;
  std::size_t wal_segments = 0;
  std::size_t wal_records = 0;
  std::size_t wal_samples = 0;
  std::uint64_t wal_torn_tail_bytes = 0;  // a crash mid-write; cut off at the next open, not damage
  std::vector<std::string> problems;      // one line each: what is damaged and where
  bool clean() const { return problems.empty(); }
  // A few lines for a terminal: counts, then every problem.
  std::string summary() const;
};

CheckReport check_store(const std::string& data_dir);

}  // namespace gpuwatch::store
