// A thin RAII layer over libsqlite3: a connection and prepared statements that finalize themselves.
// Errors become StoreError carrying SQLite's message and whether the disk was full.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/store_error.h"

namespace gpuwatch::store {

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql);
  SqliteStatement(SqliteStatement&&) = default;
  SqliteStatement& operator=(SqliteStatement&&) = default;

  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind_blob(int index, std::span<const std::uint8_t> blob);
  // Steps once: true while a row is available, false when done. Throws StoreError on failure.
  bool step();
  // Runs to completion and resets, ready for new bindings.
  void run();
  void reset();

  std::int64_t column_int(int col) const;
  std::string column_text(int col) const;
  std::span<const std::uint8_t> column_blob(int col) const;  // valid until the next step

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
  };
  sqlite3* db_;
  std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
};

class SqliteDb {
 public:
  // Opens (creating when asked) the database file. Throws StoreError naming the path.
  SqliteDb(const std::string& path, bool create);
  sqlite3* handle() const { return db_.get(); }
  void exec(std::string_view sql);
  SqliteStatement prepare(std::string_view sql) { return SqliteStatement(db_.get(), sql); }

 private:
  struct Close {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  std::unique_ptr<sqlite3, Close> db_;
};

// Commits on commit(); rolls back when destroyed without it (an exception on the way).
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace gpuwatch::store
