// The two ways a query fails, as Prometheus's API reports them: bad_data (the expression or a parameter is
// wrong or outside gpuwatch's PromQL subset; HTTP 400) and execution (the data made evaluation impossible,
// such as a many-to-many match; HTTP 422).
#pragma once

#include <stdexcept>
#include <string>

namespace gpuwatch::query {

class QueryError : public std::runtime_error {
 public:
  enum class Kind { kBadData, kExecution };
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

}  // namespace gpuwatch::query
