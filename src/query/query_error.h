// The ways a query fails, as Prometheus's API reports them: bad_data (the expression or a parameter is
// wrong or outside gpuwatch's PromQL subset; HTTP 400), execution (the data made evaluation impossible, such
// as a many-to-many match or too many samples; HTTP 422) and timeout (past the query timeout; HTTP 503).
#pragma once

#include <stdexcept>
#include <string>

namespace gpuwatch::query {

class QueryError : public std::runtime_error {
 public:
  enum class Kind { kBadData, kExecution, kTimeout };
  QueryError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

inline QueryError bad_data(const std::string& message) {
  return {QueryError::Kind::kBadData, message};
}
inline QueryError execution_error(const std::string& message) {
  return {QueryError::Kind::kExecution, message};
}
inline QueryError timeout_error(const std::string& message) {
  return {QueryError::Kind::kTimeout, message};
}

// Prometheus's errorType and HTTP status for each kind.
inline const char* error_type(QueryError::Kind kind) {
  switch (kind) {
    case QueryError::Kind::kBadData:
      return "bad_data";
    case QueryError::Kind::kExecution:
      return "execution";
    case QueryError::Kind::kTimeout:
      return "timeout";
  }
  return "execution";
}
inline int http_status(QueryError::Kind kind) {
  switch (kind) {
    case QueryError::Kind::kBadData:
      return 400;
    case QueryError::Kind::kExecution:
      return 422;
    case QueryError::Kind::kTimeout:
      return 503;
  }
  return 422;
}

}  // namespace gpuwatch::query
