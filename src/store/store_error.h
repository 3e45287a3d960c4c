// The one exception type of the store: what failed, and why in words a user can act on. `reason` sorts
// write failures for gpuwatch_store_write_errors_total.
#pragma once

#include <stdexcept>
#include <string>

namespace gpuwatch::store {

enum class WriteErrorReason { kNoSpace, kIo, kOther };

class StoreError : public std::runtime_error {
 public:
  explicit StoreError(const std::string& what, WriteErrorReason reason = WriteErrorReason::kOther)
      : std::runtime_error(what), reason_(reason) {}
  WriteErrorReason reason() const { return reason_; }

 private:
  WriteErrorReason reason_;
};

// "no_space", "io" or "other": the label value of gpuwatch_store_write_errors_total.
const char* reason_name(WriteErrorReason reason);
// The reason for an errno value from a failed write or sync.
WriteErrorReason reason_from_errno(int err);

}  // namespace gpuwatch::store
