#include "store/sqlite_db.h"

#include <cerrno>

namespace gpuwatch::store {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc, std::string_view what) {
  const int primary = rc & 0xff;
  const WriteErrorReason reason = primary == SQLITE_FULL    ? WriteErrorReason::kNoSpace
                                  : primary == SQLITE_IOERR ? WriteErrorReason::kIo
                                                            : WriteErrorReason::kOther;
  throw StoreError(std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)), reason);
}

}  // namespace

const char* reason_name(WriteErrorReason reason) {
  switch (reason) {
    case WriteErrorReason::kNoSpace:
      return "no_space";
    case WriteErrorReason::kIo:
      return "io";
    case WriteErrorReason::kOther:
      break;
  }
  return "other";
}

WriteErrorReason reason_from_errno(int err) {
  if (err == ENOSPC || err == EDQUOT || err == EFBIG) return WriteErrorReason::kNoSpace;
  if (err == EIO) return WriteErrorReason::kIo;
  return WriteErrorReason::kOther;
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  stmt_.reset(raw);
  if (rc != SQLITE_OK) fail(db, rc, "preparing '" + std::string(sql) + "'");
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_.get(), index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_.get(), index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::bind_blob(int index, std::span<const std::uint8_t> blob) {
  sqlite3_bind_blob(stmt_.get(), index, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const std::string sql = sqlite3_sql(stmt_.get());
  sqlite3_reset(stmt_.get());
  fail(db_, rc, "running '" + sql + "'");
}

void SqliteStatement::run() {
  while (step()) {
  }
  reset();
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

std::int64_t SqliteStatement::column_int(int col) const {
  return sqlite3_column_int64(stmt_.get(), col);
}

std::string SqliteStatement::column_text(int col) const {
  const auto* text = sqlite3_column_text(stmt_.get(), col);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), col)))
              : std::string();
}

std::span<const std::uint8_t> SqliteStatement::column_blob(int col) const {
  const auto* data = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_.get(), col));
  return {data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_.get(), col))};
}

SqliteDb::SqliteDb(const std::string& path, bool create) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) fail(raw, rc, "opening " + path);
  sqlite3_busy_timeout(raw, 5000);
  sqlite3_extended_result_codes(raw, 1);
}

void SqliteDb::exec(std::string_view sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), std::string(sql).c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    const int primary = rc & 0xff;
    throw StoreError(std::string(sql) + ": " + text, primary == SQLITE_FULL    ? WriteErrorReason::kNoSpace
                                                     : primary == SQLITE_IOERR ? WriteErrorReason::kIo
                                                                               : WriteErrorReason::kOther);
  }
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace gpuwatch::store
