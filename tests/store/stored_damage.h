#pragma once
// Damage as a disk error leaves it: one byte flipped in the middle of a stored row's data, SQLite itself left
// consistent. For the tests of what the store and its integrity check make of damaged blocks and columns.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "store/sqlite_db.h"

namespace gpuwatch::store::testing {

// `table` is "blocks" or "time_columns"; `row` its id, which must exist.
inline void flip_stored_byte(const std::string& dir, const std::string& table, std::int64_t row) {
  SqliteDb db(dir + "/store.db", false);
  auto read = db.prepare("SELECT data FROM " + table + " WHERE id=?");
  read.bind(1, row);
  ASSERT_TRUE(read.step()) << table << " has no row " << row;
  const auto blob = read.column_blob(0);
  std::vector<std::uint8_t> bytes(blob.begin(), blob.end());
  read.reset();
  bytes[bytes.size() / 2] ^= 0x10;
  db.prepare("UPDATE " + table + " SET data=? WHERE id=?").bind_blob(1, bytes).bind(2, row).run();
}

}  // namespace gpuwatch::store::testing
